// Inference batch norm over NCHW with per-channel parameters in a constant struct array.
#include <metal_stdlib>
using namespace metal;

struct ChannelParams {
  float mean;
  float inv_std;
  float gamma;
  float beta;
};

kernel void batchnorm(device const float* x [[buffer(0)]],
                      constant ChannelParams* params [[buffer(1)]],
                      device float* y [[buffer(2)]],
                      constant uint3& nchw [[buffer(3)]],
                      uint3 gid [[thread_position_in_grid]]) {
  uint hw = nchw.z, c = gid.y, n = gid.z;
  if (gid.x >= hw) return;
  constant ChannelParams& p = params[c];
  size_t i = (size_t(n) * nchw.y + c) * hw + gid.x;
  y[i] = fma((x[i] - p.mean) * p.inv_std, p.gamma, p.beta);
}
