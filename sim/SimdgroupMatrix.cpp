// The arithmetic of a simdgroup_matrix product (hook::kSimdgroupMma), done by the simulator as a
// GPU's matrix unit would: the kernel exchanges its lanes' operands, then each lane (per-thread
// paths) or the SIMD-group at once (vector lanes) gets its elements from here. Written out in the
// kernel's own code, each lane's share was 12 reads of other lanes' operands and 16 fmas behind
// lane-dependent indices: 10 us a product in quick code and 2.5 us in vector lanes, where this is
// 0.1-0.2 us. The steps are those of the standard library's fallback for partial SIMD-groups
// (frontend/include/metal/__mslsim/simdgroup_matrix.h), so every path gives the same bits.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "Hooks.h"

namespace {

// One lane's operands as the standard library exchanges them (struct __sgmm_in).
struct LaneOperands {
  float a0, a1, b0, b1, c0, c1;
};
static_assert(sizeof(LaneOperands) == mslsim::kMatrixLaneOperandsBytes, "the layout of __sgmm_in");

// The lane layout of simdgroup_matrix<T, 8, 8> (simdgroup_matrix.h): lane l holds (row, col) and
// (row, col + 1).
unsigned rowOf(unsigned l) { return ((l >> 2) & 4u) + ((l >> 1) & 3u); }
unsigned columnOf(unsigned l) { return ((l >> 2) & 2u) * 2u + (l & 1u) * 2u; }
// The lane holding element (r, c0) of an operand, c0 even.
unsigned laneOf(unsigned r, unsigned c0) { return ((r & 4u) << 2) | ((c0 & 4u) << 1) | ((r & 3u) << 1) | ((c0 >> 1) & 1u); }

uint64_t bitsOf(float x, float y) {
  uint32_t a, b;
  std::memcpy(&a, &x, 4);
  std::memcpy(&b, &y, 4);
  return uint64_t(a) | uint64_t(b) << 32;
}

// With the host's fma instruction where it has one (glibc's fmaf is a call otherwise: two thirds
// of the time).
__attribute__((target_clones("fma", "default"))) uint64_t product(const LaneOperands* in, unsigned lane) {
  unsigned row = rowOf(lane), col = columnOf(lane);
  float acc0 = in[lane].c0, acc1 = in[lane].c1;
  for (unsigned k = 0; k < 8; ++k) {
    const LaneOperands& fa = in[laneOf(row, k & ~1u)];
    const LaneOperands& fb = in[laneOf(k, col)];
    float a = (k & 1u) ? fa.a1 : fa.a0;
    acc0 = std::fma(a, fb.b0, acc0);
    acc1 = std::fma(a, fb.b1, acc1);
  }
  return bitsOf(acc0, acc1);
}

// Every lane's, as the 8x8 matrices: each row of the result is eight fma chains side by side
// (one vector instruction per step on a host with fma), the same steps per element as product().
__attribute__((target_clones("fma", "default"))) void products(const LaneOperands* in, unsigned mask, uint64_t* results) {
  float a[8][8], b[8][8], d[8][8];
  for (unsigned l = 0; l < 32; ++l) {
    unsigned r = rowOf(l), c = columnOf(l);
    a[r][c] = in[l].a0;
    a[r][c + 1] = in[l].a1;
    b[r][c] = in[l].b0;
    b[r][c + 1] = in[l].b1;
    d[r][c] = in[l].c0;
    d[r][c + 1] = in[l].c1;
  }
  for (unsigned r = 0; r < 8; ++r)
    for (unsigned k = 0; k < 8; ++k)
      for (unsigned c = 0; c < 8; ++c) d[r][c] = std::fma(a[r][k], b[k][c], d[r][c]);
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) results[l] = bitsOf(d[rowOf(l)][columnOf(l)], d[rowOf(l)][columnOf(l) + 1]);
}

}  // namespace

extern "C" {
uint64_t __mslsim_simdgroup_mma(const void* lanes, unsigned lane) {
  return product(static_cast<const LaneOperands*>(lanes), lane & 31u);
}
void __mslsim_lanes_simdgroup_mma(const void* lanes, unsigned mask, uint64_t* results) {
  // An inactive lane's operands are whatever the buffer held: computed, never handed out.
  products(static_cast<const LaneOperands*>(lanes), mask, results);
}
}
