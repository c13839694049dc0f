#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ (clang-16, ASan + UBSan) into build-fuzz/ and runs each
# for SECONDS (default 60) on a copy of its seed corpus. Exits 1 if any target crashed, leaked, ran
# out of memory or timed out; the input that did it is kept in build-fuzz/crashes/<target>/.
#
#   scripts/fuzz.sh [--build-only | --no-build] [SECONDS] [TARGET ...]
#   e.g. scripts/fuzz.sh 3600, scripts/fuzz.sh 60 fuzz_npy
#
# --build-only builds the targets and stops; --no-build runs what an earlier --build-only built
# (ctest's fuzz.* tests build once, then fuzz the input parsers side by side). MSLSIM_FUZZ_BUILD
# names the build directory (default build-fuzz).
#
# Installs what is missing (scripts/install-packages.sh). MSLSIM_BUILD_JOBS sets the build's -j
# (default: every core). Reproduce a crash with build-fuzz/bin/<target> build-fuzz/crashes/<target>/<file>.
set -euo pipefail
cd "$(dirname "$0")/.."

all_targets=(fuzz_npy fuzz_buffer_spec fuzz_spec_json fuzz_case_json fuzz_suppressions fuzz_msl_frontend fuzz_metal_api)
stage=all
case "${1:-}" in --build-only) stage=build; shift ;; --no-build) stage=run; shift ;; esac
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
((${#targets[@]})) || targets=("${all_targets[@]}")
case "$seconds" in '' | *[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2 ;; esac
for t in "${targets[@]}"; do
  [[ " ${all_targets[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target '$t' (${all_targets[*]})" >&2; exit 2; }
done

# clang-16 and its runtimes (libclang-rt-16-dev: libFuzzer, ASan, UBSan), and what the build needs.
scripts/install-packages.sh

build=$(realpath -m "${MSLSIM_FUZZ_BUILD:-build-fuzz}")
if [ $stage != run ]; then
  if [ ! -f "$build/CMakeCache.txt" ]; then
    CC=clang-16 CXX=clang++-16 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMSLSIM_FUZZ=ON
  fi
  start=$SECONDS
  nice -n 19 cmake --build "$build" -j "${MSLSIM_BUILD_JOBS:-$(nproc)}" --target "${targets[@]}"
  echo "fuzz.sh: build took $((SECONDS - start)) s"
fi
[ $stage = build ] && exit 0

# A UBSan report already aborts (-fno-sanitize-recover); this gives it a stack.
export UBSAN_OPTIONS=print_stacktrace=1
# fuzz_metal_api runs kernels: ASan as scripts/sanitize.sh explains (no fake stacks, which the
# executor's stack test and the fibers cannot follow; the executor's fault handlers in place).
export ASAN_OPTIONS=detect_stack_use_after_return=0:handle_segv=1:handle_sigbus=1:handle_sigfpe=1
failed=()
summary=()
for t in "${targets[@]}"; do
  run=$build/fuzz-run/$t
  crashes=$build/crashes/$t
  rm -rf "$run"
  mkdir -p "$run/tmp" "$crashes"
  # The harness writes its input files under $TMPDIR (a private directory each); keep them here.
  export TMPDIR=$run/tmp
  cp -r tests/fuzz/corpus/$t "$run/corpus"  # the fuzzer adds what it finds to the copy
  options=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
           -artifact_prefix="$crashes/")
  [ -f tests/fuzz/dict/$t.dict ] && options+=(-dict=tests/fuzz/dict/$t.dict)
  status=0
  # Regression inputs too large to be seeds (they would raise the corpus's -max_len and slow every
  # mutation): each run once first.
  if compgen -G "tests/fuzz/regressions/$t/*" > /dev/null; then
    "$build/bin/$t" -artifact_prefix="$crashes/" tests/fuzz/regressions/$t/* < /dev/null > "$run/log" 2>&1 || status=$?
  fi
  echo "fuzz.sh: $t for $seconds s (log: $run/log)"
  if [ $status -eq 0 ]; then
    "$build/bin/$t" "${options[@]}" "$run/corpus" < /dev/null >> "$run/log" 2>&1 || status=$?
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log" | tail -1)
  corpus=$(ls "$run/corpus" | wc -l)
  if [ $status -ne 0 ]; then
    failed+=("$t")
    summary+=("$(printf '%-18s FAILED (exit %d): %s' "$t" $status "$(ls -t "$crashes" | head -1)")")
    # The report: from its first line, without libFuzzer's hex dump of the input.
    grep -v '^0x' "$run/log" | grep -E -m1 -A15 \
      'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|fuzz invariant failed|terminate called|ALARM|out-of-memory' ||
      tail -20 "$run/log"
  else
    summary+=("$(printf '%-18s ok: %s runs, %s exec/s, corpus %s files' "$t" "${execs:-?}" "${rate:-?}" "$corpus")")
  fi
done

echo
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz.sh: ${#failed[@]} target(s) failed: ${failed[*]}; inputs in $build/crashes/"
  exit 1
fi
echo "fuzz.sh: no crashes"
