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
# A metal-cpp program, unchanged from macOS, against mslsim::metal.
rm -rf "$build/consumer-metal-build"
cmake -S "$source/examples/metal-cpp" -B "$build/consumer-metal-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$build/consumer-metal-build" > /dev/null
"$build/consumer-metal-build/metal_cpp_softmax" "$source/examples/metal-cpp/kernels.metal"
# The Python package lands where the interpreter looks under the prefix.
site=$(ls -d "$prefix"/lib/python3*/dist-packages)
PYTHONPATH=$site /usr/bin/python3 -c "
import numpy as np, mslsim, mslsim.testing
k = mslsim.fast.metal_kernel(name='inc', input_names=['a'], output_names=['o'],
                             source='uint i = thread_position_in_grid.x; o[i] = a[i] + 1;')
a = np.arange(8, dtype=np.float32)
mslsim.testing.assert_kernel_allclose(k, a + 1, inputs=[a], output_shapes=[(8,)],
                                      output_dtypes=[mslsim.float32], grid=(8, 1, 1), threadgroup=(8, 1, 1))
print('installed Python package works')"
