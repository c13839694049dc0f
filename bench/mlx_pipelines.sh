#!/usr/bin/env bash
# Compile latency over the pipelines MLX really makes (issue 37): records every pipeline state
# MLX's C++ (and, with --python, Python) test suites make on the simulated GPU
# (MSLSIM_METAL_RECORD), then replays the corpus with bench/pipeline_latency on one core: from an
# empty compile cache in each code tier, and from the cache. Prints markdown tables.
#
#   bench/mlx_pipelines.sh MLX_WORK [--python] [--corpus DIR] [--replay-only] [--tiers "adaptive optimised"]
#
# MLX_WORK is the work directory of scripts/mlx-on-linux.sh after a build (--build-only is
# enough; $MSLSIM_MLX_WORK there): a build with --jit records the JIT libraries MLX makes, the
# default shipping build the pipelines of its default library (mlx.metallib). The corpus is generated, never committed: by default it goes to
# build/mlx-pipelines/corpus (sources are MLX's). Record once, replay as often as needed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work= python=0 corpus=$root/build/mlx-pipelines/corpus replay_only=0 tiers="adaptive optimised"
usage="usage: bench/mlx_pipelines.sh MLX_WORK [--python] [--corpus DIR] [--replay-only] [--tiers LIST]"
while [ $# -gt 0 ]; do
  case "$1" in
    --python) python=1 ;;
    --corpus) corpus=$2; shift ;;
    --replay-only) replay_only=1 ;;
    --tiers) tiers=$2; shift ;;
    -*) echo "$usage" >&2; exit 2 ;;
    *) work=$(cd "$1" && pwd) ;;
  esac
  shift
done
[ -n "$work" ] && [ -x "$work/mlx-build/tests/tests" ] || { echo "$usage (no MLX build in it)" >&2; exit 2; }
out=$(dirname "$corpus")
mkdir -p "$out"
out=$(cd "$out" && pwd) corpus=$(cd "$out" && pwd)/$(basename "$corpus")
here=$root/scripts/mlx-on-linux
replay=$root/build/bench/pipeline_latency
[ -x "$replay" ] || { echo "mlx_pipelines: build mslsim first (scripts/setup.sh)" >&2; exit 2; }
# MLX links the installed libmslsim-metal: install this build there.
cmake --install "$root/build" --prefix "$work/mslsim" > /dev/null

if [ $replay_only = 0 ]; then
  rm -rf "$corpus"
  mkdir -p "$corpus"
  cache=$(mktemp -d)
  start=$SECONDS
  PATH=$here/runtime-bin:$PATH MSLSIM_CACHE_DIR=$cache MSLSIM_METAL_RECORD=$corpus \
    MSLSIM_METAL_STATS=$out/cpp-stats.jsonl \
    /usr/bin/python3 "$here/run_cases.py" cpp --binary "$work/mlx-build/tests/tests" --out "$out/cpp.jsonl" \
    --deny "$here/deny-cpp.txt" --timeout 300 > "$out/cpp-run.log" 2>&1 || true
  echo "C++ suite from an empty cache: $((SECONDS - start)) s"
  if [ $python = 1 ]; then
    start=$SECONDS
    PATH=$here/runtime-bin:$PATH MSLSIM_CACHE_DIR=$cache MSLSIM_METAL_RECORD=$corpus \
      MSLSIM_METAL_STATS=$out/python-stats.jsonl PYTHONPATH="$work/mlx-src/python" \
      /usr/bin/python3 "$here/run_cases.py" python --tests "$work/mlx-src/python/tests" \
      --out "$out/python.jsonl" --deny "$here/deny-python.txt" --timeout 60 > "$out/python-run.log" 2>&1 || true
    echo "Python suite from the C++ suite's cache: $((SECONDS - start)) s"
  fi
  rm -rf "$cache"
  /usr/bin/python3 "$here/results.py" "$out"/cpp.jsonl $([ $python = 1 ] && echo "$out/python.jsonl") > "$out/results.md"
  grep -m3 -i "passed\|failed" "$out/results.md" || true
fi
echo "corpus: $(wc -l < "$corpus/pipelines.jsonl") pipelines recorded, $(ls "$corpus" | grep -c '\.metal$') sources"

# Replays, one core each, in a process of their own: cold per tier, then cached.
rm -f "$out/replay.jsonl"
for tier in $tiers; do
  cache=$(mktemp -d)
  MSLSIM_CACHE_DIR=$cache MSLSIM_METAL_TIER=$tier taskset -c 0 "$replay" "$corpus" \
    --json "$out/replay.jsonl" --label "cold-$tier"
  MSLSIM_CACHE_DIR=$cache MSLSIM_METAL_TIER=$tier taskset -c 0 "$replay" "$corpus" \
    --json "$out/replay.jsonl" --label "cached-$tier"
  rm -rf "$cache"
done
