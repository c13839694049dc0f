#!/usr/bin/env bash
# The main job: build mslsim, then run every kernel in examples/ on its bundled inputs and print a
# report (kernel, grid, result check against the bundled numpy results, time), and the metal-cpp
# program of examples/metal-cpp.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
status=0
build/bin/mslsim suite examples/*/case.json || status=$?
echo
# A metal-cpp program written for macOS, built unchanged against mslsim's Metal API.
build/bin/metal_cpp_softmax examples/metal-cpp/kernels.metal || status=$?
exit $status
