#!/usr/bin/env bash
# Compiles MLX's Metal backend (mlx/backend/metal/*.cpp of the checkout given) against mslsim's
# metal-cpp headers, unchanged, and checks that every NS:: and MTL:: function the objects call is
# defined in libmslsim-metal: the API surface MLX needs, measured on MLX itself.
#
#   scripts/check-mlx-metal-api.sh MLX_CHECKOUT [BUILD_DIR]    (BUILD_DIR default: build)
#
# How it compiles, as MLX's own macOS build does where Linux differs (each flag says why):
#   clang++-16 -stdlib=libc++   Apple's toolchain: MLX relies on libc++'s transitive includes
#                               (<optional> through kernels.h) and its tuple-to-pair conversion (fft.cpp)
#   -DvisionOS=watchOS          clang 16 predates the visionOS platform name in __builtin_available
#   -DMETAL_PATH=...            defined by MLX's CMake (the default library's path)
#   -I metal/darwin             Darwin headers MLX includes (mach/vm_page_size.h, sys/sysctl.h)
# Exit 0 when everything compiles and resolves, 1 otherwise, 77 when no checkout is given.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mlx=${1:-${MSLSIM_MLX_DIR:-}}
build=$(cd "${2:-$root/build}" && pwd)
if [ -z "$mlx" ] || [ ! -d "$mlx/mlx/backend/metal" ]; then
  echo "check-mlx-metal-api: no MLX checkout (give its path or set MSLSIM_MLX_DIR); skipped"
  exit 77
fi
lib=$build/lib/libmslsim-metal.so
[ -f "$lib" ] || { echo "check-mlx-metal-api: $lib is not built"; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
flags=(-stdlib=libc++ -std=c++20 -O0 -c -w -I"$mlx" -I"$root/metal/include" -I"$root/metal/darwin"
       -DvisionOS=watchOS -DMETAL_PATH=\"mlx.metallib\" -DMLX_VERSION=\"0\")
files=$(ls "$mlx"/mlx/backend/metal/*.cpp | grep -v '/no_metal.cpp$')
failed=0
compile() { clang++-16 "${flags[@]}" "$1" -o "$out/$(basename "$1" .cpp).o" 2> "$out/$(basename "$1" .cpp).log"; }
export -f compile
export out
for f in $files; do
  if ! compile "$f"; then
    echo "FAIL compile $(basename "$f"):"
    grep -m5 error "$out/$(basename "$f" .cpp).log"
    failed=1
  fi
done
count=$(echo "$files" | wc -w)
# Every NS:: / MTL:: symbol the objects need must be one the library defines.
nm -C --defined-only -D "$lib" | awk '{ $1=""; $2=""; sub(/^  /, ""); print }' | sort -u > "$out/defined"
nm -C -u "$out"/*.o 2>/dev/null | awk '{ $1=""; sub(/^ /, ""); print }' | grep -E '^(NS|MTL)::' | sort -u > "$out/needed"
missing=$(comm -23 "$out/needed" "$out/defined")
if [ -n "$missing" ]; then
  echo "FAIL: MLX calls NS::/MTL:: functions libmslsim-metal does not define:"
  echo "$missing" | sed 's/^/  /'
  failed=1
fi
echo "check-mlx-metal-api: $count MLX Metal backend files, $(wc -l < "$out/needed") NS::/MTL:: functions called," \
     "$([ $failed = 0 ] && echo 'all compile and resolve' || echo 'FAILED')"
exit $failed
