#include <metal_stdlib>
using namespace metal;

// QR helper qr_update_vec: out = v - Q c, one thread per row of Q (m x k, row-major).
// Signature as mx.fast.metal_kernel generates it for inputs {Q, c, v, shape}
// and output {out}.
[[kernel]] void qr_update_vec(
    const device float* Q [[buffer(0)]],
    const device float* c [[buffer(1)]],
    const device float* v [[buffer(2)]],
    const constant uint32_t* shape [[buffer(3)]],   // {m, k}
    device float* out [[buffer(4)]],
    uint3 thread_position_in_grid [[thread_position_in_grid]])
{
    uint i = thread_position_in_grid.x;
    uint m = shape[0];
    uint k = shape[1];
    if (i >= m) return;
    float proj = 0.0f;
    for (uint j = 0; j < k; ++j) {
        proj = fma(Q[i * k + j], c[j], proj);
    }
    out[i] = v[i] - proj;
}
