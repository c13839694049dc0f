#!/bin/sh
# Installs mslsim into a scratch prefix, then builds and runs examples/cmake-consumer against it,
# as a user's project would (find_package(mslsim), mslsim::mslsim, <mslsim/gtest.h>).
set -e
build=$1
source=$2
prefix=$build/consumer-install
rm -rf "$prefix" "$build/consumer-build"
cmake --install "$build" --prefix "$prefix" > /dev/null
cmake -S "$source/examples/cmake-consumer" -B "$build/consumer-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build/consumer-build" > /dev/null
"$build/consumer-build/saxpy_test"
