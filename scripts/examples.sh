#!/usr/bin/env bash
# The main job: build mslsim, then run every kernel in examples/ on its bundled inputs and print a
# report (kernel, grid, result check against the bundled numpy results, time).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/bin/mslsim suite examples/*/case.json
