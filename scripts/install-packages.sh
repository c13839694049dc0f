#!/usr/bin/env bash
# Installs the Debian 12 packages mslsim's build, tests, benchmarks, fuzzing and sanitizer builds
# need, and any named as arguments, only those that are missing (apt, as root). scripts/setup.sh,
# fuzz.sh, sanitize.sh and mlx-on-linux.sh start with it.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ python3 python3-numpy python3-dev python3-pytest pybind11-dev
  llvm-16-dev libclang-16-dev clang-16
  # tests/fuzz: libFuzzer and the sanitizers' runtimes for clang-16
  libclang-rt-16-dev
  # metal/: metal-cpp programs built as on macOS, with clang and libc++ (MLX relies on libc++)
  libc++-16-dev libc++abi-16-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev libboost-context-dev
  # bench/: the OpenCL peers and their host program (bench/opencl_host.cpp)
  pocl-opencl-icd oclgrind ocl-icd-opencl-dev opencl-c-headers clinfo
  "$@"
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-packages: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

