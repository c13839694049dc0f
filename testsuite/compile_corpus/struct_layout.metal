// Structs with C layout and alignas, nested structs and arrays of structs in device memory.
#include <metal_stdlib>
using namespace metal;

struct alignas(16) Particle {
  float3 pos;
  float3 vel;
  float mass;
  uint id;
};
static_assert(sizeof(Particle) == 48, "Particle layout");

struct SimParams {
  float dt;
  float3 gravity;
  struct {
    float lo, hi;
  } bounds;
};

kernel void integrate(device Particle* p [[buffer(0)]],
                      constant SimParams& sp [[buffer(1)]],
                      uint i [[thread_position_in_grid]]) {
  thread Particle& q = p[i];
  Particle local = q;
  local.vel += sp.gravity * sp.dt / max(local.mass, 1e-6f);
  local.pos = clamp(local.pos + local.vel * sp.dt, sp.bounds.lo, sp.bounds.hi);
  p[i] = local;
}
