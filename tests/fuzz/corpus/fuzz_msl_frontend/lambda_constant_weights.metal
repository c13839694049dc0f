#include <metal_stdlib>
using namespace metal;

// Program-scope constant array and a capturing lambda (Metal 3.2).
// 3-tap smoothing with clamp-to-edge boundaries. The weights are powers of two,
// so every product is exact and only the two additions round.
constant float weights[3] = {0.25f, 0.5f, 0.25f};

[[kernel]] void smooth3_clamped(
    device const float* x [[buffer(0)]],
    device float*       y [[buffer(1)]],
    constant uint&      n [[buffer(2)]],
    uint i [[thread_position_in_grid]])
{
    auto at = [&](int j) { return x[clamp(j, 0, int(n) - 1)]; };
    float acc = 0.0f;
    for (int t = 0; t < 3; ++t) {
        acc += weights[t] * at(int(i) + t - 1);
    }
    y[i] = acc;
}
