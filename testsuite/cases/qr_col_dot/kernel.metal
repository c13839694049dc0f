#include <metal_stdlib>
using namespace metal;

// QR helper qr_col_dot: c = Q^T v, one thread per column of Q (m x k, row-major).
// Signature as mx.fast.metal_kernel generates it for inputs {Q, v, shape}
// (shape has 2 elements, so it is bound in the constant address space) and
// output {out}.
[[kernel]] void qr_col_dot(
    const device float* Q [[buffer(0)]],
    const device float* v [[buffer(1)]],
    const constant uint32_t* shape [[buffer(2)]],   // {m, k}
    device float* out [[buffer(3)]],
    uint3 thread_position_in_grid [[thread_position_in_grid]])
{
    uint j = thread_position_in_grid.x;
    uint m = shape[0];
    uint k = shape[1];
    if (j >= k) return;
    float acc = 0.0f;
    for (uint i = 0; i < m; ++i) {
        acc = fma(Q[i * k + j], v[i], acc);
    }
    out[j] = acc;
}
