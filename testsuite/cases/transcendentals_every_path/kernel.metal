#include <metal_stdlib>
using namespace metal;

// Seven transcendental functions of n = 1003 floats (not a multiple of any vector width, so the
// vectorised build runs a loop remainder too). mslsim sends every call, in every execution path,
// to one libmvec variant: the outputs are the same bits with and without checks, vectorised or
// not (testsuite/run_paths.py compares them).
kernel void transcendentals(
    device const float* x   [[buffer(0)]],
    device const float* y   [[buffer(1)]],
    device float*       out [[buffer(2)]],
    constant uint&      n   [[buffer(3)]],
    uint i [[thread_position_in_grid]])
{
    if (i >= n) return;
    const float a = x[i], b = y[i];
    out[7 * i + 0] = exp(a);
    out[7 * i + 1] = log(b);
    out[7 * i + 2] = sin(a);
    out[7 * i + 3] = cos(a);
    out[7 * i + 4] = pow(b, a);
    out[7 * i + 5] = atan2(a, b);
    out[7 * i + 6] = tanh(a) + exp2(a) + log2(b);
}
