#!/usr/bin/env bash
# MLX with its Metal backend on Linux, on mslsim: builds MLX (the C++ library and its C++ tests)
# from the checkout given, with the Metal backend against mslsim's metal-cpp API (mslsim::metal),
# then runs MLX's C++ tests on the GPU device and writes a table of the results.
#
# Two configurations, as MLX's CMake has them:
#   shipping (default)  MLX_METAL_JIT=OFF, as MLX's macOS packages are built: every kernel comes
#                       from the default library mlx.metallib, the instantiations of kernels/*.metal
#                       (here a manifest of those sources: mslsim lists each file's functions once
#                       per cache and compiles the one kernel MLX asks for, when it asks)
#   --jit               MLX_METAL_JIT=ON: kernels are made at run time from source strings
# Given a nanobind checkout, it builds MLX's Python package too and runs MLX's Python tests.
#
#   scripts/mlx-on-linux.sh MLX_CHECKOUT [--nanobind NANOBIND_CHECKOUT] [--jit] [--build-only] [--jobs N]
#                                        [--tests cpp|python|all] [--timeout SECONDS] [--xdist N]
#
# --xdist N runs the Python suite in one pytest run over N pytest-xdist workers that share one
# compile cache (a test file per worker at a time); without it, one test file per process in turn.
#
# Work happens in $MSLSIM_MLX_WORK (default build/mlx-on-linux): an installed mslsim, a copy of the
# checkout with the changes below, MLX's build, and the results (results.md, tests.xml).
#
# Nothing is downloaded. MLX's FetchContent dependencies come from Debian packages or mslsim:
#   metal_cpp   mslsim's headers (FETCHCONTENT_SOURCE_DIR_METAL_CPP), the Metal, Foundation and
#               QuartzCore "frameworks" are libmslsim-metal
#   json        Debian's nlohmann-json3-dev (a directory laid out as the release tarball)
#   fmt         Debian's libfmt-dev (USE_SYSTEM_FMT, header-only as MLX uses it)
#   doctest     Debian's doctest-dev (for MLX's tests)
#   nanobind    not in Debian 12: a checkout of the tag MLX's CMakeLists.txt pins, with its
#               ext/robin_map submodule (git clone --recursive -b vX.Y.Z wjakob/nanobind)
# Changes to MLX, applied to the copy, each the smallest that works:
#   1. CMakeLists.txt turns MLX_BUILD_METAL off on every system but Darwin and iOS: that `set` is
#      removed, so that the Metal backend builds here.
# How it is built, where Linux differs from a Mac:
#   clang-16 -stdlib=libc++     Apple's toolchain: MLX relies on libc++ (transitive <optional>,
#                               tuple-to-pair conversion in fft.cpp)
#   -DvisionOS=watchOS          clang 16 predates visionOS in __builtin_available
#   -I metal/darwin             mach/vm_page_size.h, sys/sysctl.h
#   -include clang16-compat.h   clang 16 lacks the "f16c" name of __builtin_cpu_supports (CPU backend)
#   PATH=scripts/mlx-on-linux   its `xcrun` answers the Metal toolchain calls of MLX's CMake
#                               (preprocessing for the JIT preambles; mlx.metallib becomes a
#                               manifest of the .metal sources, compiled when MLX asks for a kernel)
#   runtime-bin/g++ on PATH     while the tests run: MLX's CPU backend compiles fused kernels with
#                               `g++` (Apple's clang on macOS), from a preamble clang-16 preprocessed
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mlx= nanobind= build_only=0 jobs=2 suites=all timeout=300 xdist=0 jit=OFF
usage="usage: scripts/mlx-on-linux.sh MLX_CHECKOUT [--nanobind NANOBIND_CHECKOUT] [--jit] [--build-only] [--jobs N] [--tests cpp|python|all] [--timeout SECONDS] [--xdist N]"
while [ $# -gt 0 ]; do
  case "$1" in
    --build-only) build_only=1 ;;
    --jit) jit=ON ;;
    --jobs) jobs=$2; shift ;;
    --nanobind) nanobind=$(cd "$2" && pwd); shift ;;
    --tests) suites=$2; shift ;;
    --timeout) timeout=$2; shift ;;
    --xdist) xdist=$2; shift ;;
    -*) echo "mlx-on-linux: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
    *) mlx=$(cd "$1" && pwd) ;;
  esac
  shift
done
if [ -z "$mlx" ] || [ ! -f "$mlx/mlx/backend/metal/device.cpp" ]; then
  echo "$usage" >&2
  exit 2
fi
python_on=OFF
if [ -n "$nanobind" ]; then
  if [ ! -f "$nanobind/cmake/nanobind-config.cmake" ] || [ ! -f "$nanobind/ext/robin_map/include/tsl/robin_map.h" ]; then
    echo "mlx-on-linux: $nanobind is not a nanobind checkout with its ext/robin_map submodule" >&2
    exit 2
  fi
  pinned=$(grep -A3 'GIT_REPOSITORY https://github.com/wjakob/nanobind' "$mlx/CMakeLists.txt" | sed -n 's/.*GIT_TAG *//p')
  have=$(sed -n 's/^version *= *"\(.*\)"/v\1/p' "$nanobind/pyproject.toml" | head -1)
  [ "$pinned" = "$have" ] || echo "mlx-on-linux: warning: MLX pins nanobind $pinned, the checkout given is $have" >&2
  python_on=ON
fi
work=${MSLSIM_MLX_WORK:-$root/build/mlx-on-linux}
mkdir -p "$work"
work=$(cd "$work" && pwd)

# Packages MLX needs beyond mslsim's own.
# (python3-dev, numpy and pytest, for the Python package and its tests, are among mslsim's own.)
"$root/scripts/install-packages.sh" libopenblas-dev liblapacke-dev doctest-dev rsync python3-pytest-xdist python3-pytest-timeout

# 1. mslsim, built and installed where MLX's build finds it.
"$root/scripts/setup.sh" > "$work/mslsim-build.log"
prefix=$work/mslsim
cmake --install "$root/build" --prefix "$prefix" > /dev/null
metal_lib=$prefix/lib/libmslsim-metal.so

# 2. The copy of MLX, with its one change.
src=$work/mlx-src
rsync -a --delete --exclude .git "$mlx/" "$src/"
python3 - "$src/CMakeLists.txt" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path).read()
# The `else()` branch after the iOS case: "set(MLX_BUILD_METAL OFF)" for every other system.
pattern = re.compile(r'(elseif\(CMAKE_SYSTEM_NAME STREQUAL "iOS"\)\n(?:[ \t]*#[^\n]*\n)*else\(\)\n)([ \t]*set\(MLX_BUILD_METAL OFF\)\n)')
changed, n = pattern.subn(r'\1  # mslsim: the Metal backend builds on Linux against mslsim::metal\n', text)
if n != 1:
    sys.exit("mlx-on-linux: MLX's CMakeLists.txt no longer has the line that turns Metal off off Darwin; look again")
open(path, "w").write(changed)
EOF

# 3. Stand-ins for downloads.
deps=$work/deps
mkdir -p "$deps/json/single_include" "$deps/doctest/scripts/cmake"
ln -sfn /usr/include/nlohmann "$deps/json/single_include/nlohmann"
cat > "$deps/doctest/CMakeLists.txt" <<'EOF'
# Debian's doctest, as the target MLX's tests link.
cmake_minimum_required(VERSION 3.20)
project(doctest CXX)
add_library(doctest INTERFACE)
target_include_directories(doctest INTERFACE /usr/include/doctest /usr/include)
add_library(doctest::doctest ALIAS doctest)
EOF
cp /usr/lib/cmake/doctest/doctest.cmake "$deps/doctest/scripts/cmake/doctest.cmake" 2>/dev/null ||
  cp "$(dpkg -L doctest-dev | grep '/doctest.cmake$' | head -1)" "$deps/doctest/scripts/cmake/doctest.cmake"
cp "$(dirname "$(dpkg -L doctest-dev | grep '/doctest.cmake$' | head -1)")"/doctestAddTests.cmake \
  "$deps/doctest/scripts/cmake/" 2>/dev/null || true

# 4. Configure and build.
export PATH=$root/scripts/mlx-on-linux:$PATH
flags="-stdlib=libc++ -DvisionOS=watchOS -I$root/metal/darwin -include $root/scripts/mlx-on-linux/clang16-compat.h"
bld=$work/mlx-build
start=$SECONDS
CC=clang-16 CXX=clang++-16 cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-stdlib=libc++" \
  -DCMAKE_SHARED_LINKER_FLAGS="-stdlib=libc++" \
  -DMLX_BUILD_METAL=ON -DMLX_METAL_JIT=$jit -DMLX_BUILD_TESTS=ON -DMLX_BUILD_EXAMPLES=OFF \
  -DMLX_BUILD_GGUF=OFF -DUSE_SYSTEM_FMT=ON \
  -DMLX_BUILD_PYTHON_BINDINGS=$python_on -DPython_EXECUTABLE=/usr/bin/python3 \
  -DMLX_PYTHON_BINDINGS_OUTPUT_DIRECTORY="$src/python/mlx" \
  ${nanobind:+-DFETCHCONTENT_SOURCE_DIR_NANOBIND="$nanobind"} \
  -DMETAL_LIB="$metal_lib" -DFOUNDATION_LIB="$metal_lib" -DQUARTZ_LIB="$metal_lib" \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_METAL_CPP="$prefix/include/mslsim/metal-cpp" \
  -DFETCHCONTENT_SOURCE_DIR_JSON="$deps/json" -DFETCHCONTENT_SOURCE_DIR_DOCTEST="$deps/doctest" \
  > "$work/mlx-configure.log" || { tail -30 "$work/mlx-configure.log"; exit 1; }
targets=(tests)
[ $python_on = ON ] && targets+=(core)
cmake --build "$bld" -j "$jobs" --target "${targets[@]}" > "$work/mlx-build.log" 2>&1 ||
  { grep -m20 -B2 -A8 "error" "$work/mlx-build.log"; echo "mlx-on-linux: the build failed (log: $work/mlx-build.log)"; exit 1; }
echo "mlx-on-linux: MLX (${targets[*]}) built in $((SECONDS - start)) s"
[ $build_only = 1 ] && exit 0

# 5. MLX's tests on the GPU device (the default device of a Metal build), one test case (C++) or
#    one test file (Python) per process, each test stopped after $timeout s; tests too heavy for a
#    CPU simulator are in the deny-lists, with the time they were measured to take.
here=$root/scripts/mlx-on-linux
export PATH=$here/runtime-bin:$PATH  # `g++` for MLX's CPU kernels compiled at run time (see there)
results=()
if [ "$suites" != python ]; then
  /usr/bin/python3 "$here/run_cases.py" cpp --binary "$bld/tests/tests" --out "$work/cpp.jsonl" \
    --deny "$here/deny-cpp.txt" --timeout "$timeout" > "$work/cpp-run.log" 2>&1 || true
  results+=("$work/cpp.jsonl")
fi
if [ "$suites" != cpp ] && [ $python_on = ON ]; then
  PYTHONPATH="$src/python" /usr/bin/python3 "$here/run_cases.py" python --tests "$src/python/tests" \
    --out "$work/python.jsonl" --deny "$here/deny-python.txt" --timeout "$timeout" --xdist "$xdist" \
    > "$work/python-run.log" 2>&1 || true
  results+=("$work/python.jsonl")
fi
/usr/bin/python3 "$here/results.py" "${results[@]}" > "$work/results.md"
cat "$work/results.md"
