#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer: builds mslsim with clang-16 into build-asan/ and
# runs the unit tests (bin/mslsim_unit_tests, one ctest per test) and the CLI contract tests
# (cli.behaviour: tests/cli/test_cli.py driving bin/mslsim) through ctest. Exits non-zero if a test
# fails; a sanitizer report aborts the process it is in, so it fails its test (the report is in
# the test's output: build-asan/Testing/Temporary/LastTest.log).
#
#   scripts/sanitize.sh [extra ctest arguments, e.g. -V or --output-on-failure]
#
# Installs what is missing (scripts/install-packages.sh). MSLSIM_BUILD_JOBS sets the build's -j
# (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh

build=build-asan
# -fno-sanitize-recover=undefined: a UBSan report aborts (and fails the test) instead of printing
# and going on. -fno-sanitize=vptr: LLVM, Clang and mslsim's classes deriving from theirs are built
# without RTTI, which the vptr check needs. Frame pointers: whole stacks in reports.
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr -fno-omit-frame-pointer"
if [ ! -f $build/CMakeCache.txt ]; then
  CC=clang-16 CXX=clang++-16 cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
fi
start=$SECONDS
nice -n 19 cmake --build $build -j "${MSLSIM_BUILD_JOBS:-$(nproc)}" --target mslsim_unit_tests mslsim
echo "sanitize.sh: build took $((SECONDS - start)) s"

# How the simulator and ASan get along:
#  detect_stack_use_after_return=0  ASan (clang 15 and later) gives instrumented functions frames on a
#      "fake stack" in the heap to catch use after return. The executor asks whether an address is
#      on the worker's real stack by comparing it with the address of a local of its own
#      (ThreadgroupScheduler::access): on a fake stack that answer is wrong, an overrun past a
#      buffer counts as the kernel's own stack, and the bounds check misses it (seen as failures
#      of Executor.TheBoundsCheckAloneStillSeesEveryOverrun and Binding.* depending on where the
#      mappings land). Fake stacks also do not follow the fibers' stack switches (Boost.Context,
#      no __sanitizer_start_switch_fiber annotations).
#  handle_segv=1:handle_sigbus=1:handle_sigfpe=1  ASan's handlers, which let a program install its
#      own (ASan's defaults, spelt out): faults in JIT'd kernels (guard pages, wild pointers,
#      division by zero) must reach the executor's handler, which turns them into findings; a fault
#      before the first dispatch gets ASan's report. Not 2, which would keep ASan's handler and
#      make every kernel fault a crash. (After the first dispatch a fault outside JIT'd code gets
#      the default action, a plain crash with no ASan report: the executor's handler passes it on
#      to SIG_DFL.)
#  detect_leaks=1: leaks are checked at exit.
#  exitcode=86, log_path: a report goes to a file of build-asan/sanitizer-logs/ and the process
#      exits 86, so that it is seen even where a test expects a failing exit status and does not
#      read all of stderr (the CLI tests); any log there fails this script.
logs=$PWD/$build/sanitizer-logs
rm -rf "$logs"
mkdir -p "$logs"
export ASAN_OPTIONS=detect_stack_use_after_return=0:handle_segv=1:handle_sigbus=1:handle_sigfpe=1:detect_leaks=1:exitcode=86:log_path=$logs/asan

# Kernels compiled by this build go to a cache of its own, not the user's ~/.cache/mslsim.
export MSLSIM_CACHE_DIR=$PWD/$build/compile-cache
export UBSAN_OPTIONS=print_stacktrace=1:exitcode=86:log_path=$logs/ubsan

# The unit tests are registered per test (gtest_discover_tests) under their suites' names.
suites=$($build/bin/mslsim_unit_tests --gtest_list_tests | sed -n 's/^\([A-Za-z0-9_]*\)\.$/\1/p' | paste -sd'|')
tests="^(($suites)\\.|cli\\.behaviour\$)"
# Excluded: none. (Every unit test and the CLI tests run under ASan: the JIT'd kernels are not
# instrumented, but everything of mslsim's around them is.)
exclude=""
start=$SECONDS
status=0
ctest --test-dir $build -R "$tests" ${exclude:+-E "$exclude"} --output-on-failure -j "${MSLSIM_TEST_JOBS:-1}" "$@" ||
  status=$?
echo "sanitize.sh: tests took $((SECONDS - start)) s"
if compgen -G "$logs/*" > /dev/null; then
  for f in "$logs"/*; do
    echo "== $f"
    cat "$f"
  done
  echo "sanitize.sh: sanitizer reports in $logs"
  exit 1
fi
exit $status
