// MLX-style fragment access: thread_elements() of an 8x8 matrix, reinterpret_cast of the fragment
// reference, and the lane layout (row/col from the lane index) used to scale accumulators.
#include <metal_stdlib>
using namespace metal;

METAL_FUNC short2 frag_coord(ushort lane [[thread_index_in_simdgroup]]) {
  const short qid = lane / 4;
  const short fm = (qid & 4) + ((lane / 2) % 4);
  const short fn = (qid & 2) * 2 + (lane % 2) * 2;
  return short2(fn, fm);
}

kernel void scale_fragment(device const float* in [[buffer(0)]],
                           device float* out [[buffer(1)]],
                           device const float* row_scale [[buffer(2)]],
                           ushort lane [[thread_index_in_simdgroup]]) {
  simdgroup_float8x8 m;
  simdgroup_load(m, in, 8);
  short2 c = frag_coord(lane);
  thread auto& el = m.thread_elements();
  el[0] *= row_scale[c.y];
  el[1] *= row_scale[c.y];
  typedef vec<float, 2> frag_t;
  thread frag_t& f = reinterpret_cast<thread frag_t&>(m.thread_elements());
  f += frag_t(0.0f);
  simdgroup_store(m, out, 8);
  simdgroup_half8x8 h;
  h.thread_elements()[0] = half(f.x);
  h.thread_elements()[1] = half(f.y);
}
