#include <metal_stdlib>
using namespace metal;

// Kernel parameters in a struct bound by reference in the constant address
// space. The struct is 16 bytes: {uint n; float alpha; float beta; uint offset;}.
struct Params {
    uint  n;
    float alpha;
    float beta;
    uint  offset;
};

kernel void affine_params(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    constant Params&    p [[buffer(2)]],
    uint gid [[thread_position_in_grid]])
{
    if (gid >= p.n) {
        return;
    }
    y[gid] = p.alpha * x[gid + p.offset] + p.beta;
}
