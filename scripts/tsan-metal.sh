#!/usr/bin/env bash
# ThreadSanitizer over the Metal API: builds metal/src and its tests (metal/tests/MetalApiTest.cpp:
# several queues, shared events, completion handlers, command buffers committed from several
# threads) with -fsanitize=thread against build/lib/libmslsim.so, and runs them. The simulator
# itself is not instrumented (its workers and fibers are covered by scripts/sanitize.sh); what this
# checks is the API's own threads: queues, events, handlers, reference counts, autorelease pools.
#
#   scripts/tsan-metal.sh [BUILD_DIR]     (default: build; run scripts/setup.sh first)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=$build/tsan-metal
mkdir -p "$out"
g++ -std=c++17 -O1 -g -fsanitize=thread -I"$root/metal/include" -I"$root/include" \
  "$root"/metal/src/*.cpp "$root/metal/tests/MetalApiTest.cpp" -o "$out/metal_api_tests" \
  -L"$build/lib" -lmslsim -Wl,-rpath,"$build/lib" -lgtest -lgtest_main -lpthread
TSAN_OPTIONS="halt_on_error=1 suppressions=$root/scripts/tsan-metal.supp ${TSAN_OPTIONS:-}" "$out/metal_api_tests"
