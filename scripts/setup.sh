#!/usr/bin/env bash
# Installs the Debian 12 packages mslsim needs (only those that are missing), then configures and
# builds into build/. Idempotent and incremental: a second run installs nothing and rebuilds only
# what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build ccache g++ python3 python3-numpy python3-dev python3-pytest pybind11-dev
  llvm-16-dev libclang-16-dev clang-16
  # tests/fuzz: libFuzzer and the sanitizers' runtimes for clang-16
  libclang-rt-16-dev
  libfmt-dev libcli11-dev nlohmann-json3-dev libgtest-dev libboost-context-dev
  # bench/: the OpenCL peers and their host program (bench/opencl_host.cpp)
  pocl-opencl-icd oclgrind ocl-icd-opencl-dev opencl-c-headers clinfo
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build -j2
