#!/usr/bin/env bash
# Installs the Debian 12 packages mslsim needs (only those that are missing), then configures and
# builds into build/. Idempotent and incremental: a second run installs nothing and rebuilds only
# what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-packages.sh

if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
cmake --build build -j2
