#!/usr/bin/env bash
# Builds mslsim and runs every test (unit tests, the kernel testsuite against numpy references, CLI
# error paths) through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cd build
exec ctest --output-on-failure -j2 "$@"
