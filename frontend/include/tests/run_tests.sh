#!/bin/sh
# Builds and runs the MSL library tests (each is a standalone program returning nonzero on failure),
# compile-checks the example kernels, and prints the parse time of <metal_stdlib>.
# Usage: frontend/include/tests/run_tests.sh [build-dir]   (default build dir: /tmp/mslsim-libtests)
set -e
here=$(cd "$(dirname "$0")" && pwd)
inc=$(dirname "$here")
out=${1:-/tmp/mslsim-libtests}
mkdir -p "$out"
CXX=${CXX:-clang++-16}
FLAGS="-x c++ -std=c++17 -fdeclspec -ffreestanding -fno-exceptions -fno-rtti -Xclang -ffloat16-excess-precision=none
  -include $inc/metal/__mslsim/prelude.h -I $inc/metal -Wno-unknown-attributes -Wno-ignored-attributes"
status=0
for t in test_vec test_scalar test_simd; do
  for opt in -O0 -O2; do
    $CXX $FLAGS $opt "$here/$t.cpp" -o "$out/$t$opt"
    if "$out/$t$opt" >"$out/$t$opt.log"; then echo "PASS $t $opt"; else echo "FAIL $t $opt"; cat "$out/$t$opt.log"; status=1; fi
  done
done
$CXX $FLAGS -O2 -c "$here/kernel_compile.metal.cpp" -o "$out/kernel_compile.o" && echo "PASS kernel_compile"
printf '#include <metal_stdlib>\nusing namespace metal;\n' >"$out/inc.cpp"
start=$(date +%s%N); $CXX $FLAGS -fsyntax-only "$out/inc.cpp"; end=$(date +%s%N)
echo "parse time of #include <metal_stdlib>: $(( (end - start) / 1000000 )) ms"
start=$(date +%s%N); $CXX $FLAGS -fsyntax-only "$here/kernel_compile.metal.cpp"; end=$(date +%s%N)
echo "parse time of kernel_compile.metal.cpp: $(( (end - start) / 1000000 )) ms"
exit $status
