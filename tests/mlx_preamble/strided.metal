// MLX-style kernels (signatures as mx.fast.metal_kernel generates them) exercising the indexing
// helpers of the MLX preamble: elem_to_loc (both overloads), elem_to_loc_1/2/3, elem_to_loc_2_nd,
// elem_to_loc_3_nd and LoopedElemToLoc.
#include <__mslsim/mlx_preamble.h>

// The docs' myexp_strided example (contract §4.2), verbatim apart from this comment.
template <typename T>
[[kernel]] void custom_kernel_myexp_strided__float_float16_t_float16_t(
  const device float16_t* inp [[buffer(0)]],
  const constant int* inp_shape [[buffer(1)]],
  const constant int64_t* inp_strides [[buffer(2)]],
  const constant int& inp_ndim [[buffer(3)]],
  device float16_t* out [[buffer(4)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {

    uint elem = thread_position_in_grid.x;
    uint loc = elem_to_loc(elem, inp_shape, inp_strides, inp_ndim);
    T tmp = inp[loc];
    out[elem] = metal::exp(tmp);

}

template [[host_name("custom_kernel_myexp_strided__float_float16_t_float16_t")]] [[kernel]] decltype(custom_kernel_myexp_strided__float_float16_t_float16_t<float>) custom_kernel_myexp_strided__float_float16_t_float16_t<float>;

// Offsets of every element of a 4-D view (negative strides allowed) computed every way MLX can.
// One thread per element on a 3-D grid: x = last dim, y = second-to-last, z = the leading dims.
[[kernel]] void custom_kernel_locs_float_float_float_int64_t(
  const device float* x [[buffer(0)]],
  const constant int* x_shape [[buffer(1)]],
  const constant int64_t* x_strides [[buffer(2)]],
  const constant int& x_ndim [[buffer(3)]],
  const device float* y [[buffer(4)]],
  const constant int64_t* y_strides [[buffer(5)]],
  const device float* z [[buffer(6)]],
  const constant int64_t* z_strides [[buffer(7)]],
  device int64_t* locs [[buffer(8)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]],
  uint3 threads_per_grid [[threads_per_grid]]) {
  uint3 pos = thread_position_in_grid;
  int64_t elem = (int64_t(pos.z) * threads_per_grid.y + pos.y) * threads_per_grid.x + pos.x;
  device int64_t* o = locs + elem * 12;
  o[0] = elem_to_loc(elem, x_shape, x_strides, x_ndim);               // scalar index, IdxT = int64_t
  o[1] = elem_to_loc(pos, x_shape, x_strides, x_ndim);                // uint3 overload, default int64_t
  long2 l2 = elem_to_loc_2_nd(pos, x_shape, x_strides, y_strides, x_ndim);
  o[2] = l2.x;
  o[3] = l2.y;
  long3 l3 = elem_to_loc_3_nd(pos, x_shape, x_strides, y_strides, z_strides, x_ndim);
  o[4] = l3.x;
  o[5] = l3.y;
  o[6] = l3.z;
  o[7] = elem_to_loc_1(pos.x, x_strides[3]);
  o[8] = elem_to_loc_2(pos.xy, x_strides + 2);
  o[9] = elem_to_loc_3(uint3(pos.x, pos.y, pos.z % uint(x_shape[1])), x_strides + 1);
  o[10] = elem_to_loc<int>(int(elem), x_shape, x_strides, x_ndim);    // explicit narrow IdxT
  o[11] = int64_t(elem_to_loc<int64_t>(pos, x_shape, x_strides, x_ndim) == o[0]);
}

// LoopedElemToLoc walks, done by one thread: [0] General=true over DIM=2 levels (the inner level
// recomputes with elem_to_loc), [1] General=false with DIM == ndim, [2] jumps of 7 with next(n, ...).
[[kernel]] void custom_kernel_looped_float_int64_t(
  const device float* x [[buffer(0)]],
  const constant int* x_shape [[buffer(1)]],
  const constant int64_t* x_strides [[buffer(2)]],
  const constant int& x_ndim [[buffer(3)]],
  device int64_t* walks [[buffer(4)]],
  uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  if (thread_position_in_grid.x != 0) return;
  int n = 1;
  for (int d = 0; d < x_ndim; ++d) n *= x_shape[d];
  LoopedElemToLoc<2, int64_t, true> a(x_ndim);
  LoopedElemToLoc<4, int64_t, false> b(x_ndim);
  for (int i = 0; i < n; ++i) {
    walks[i] = a.location();
    walks[n + i] = b.location();
    a.next(x_shape, x_strides);
    b.next(x_shape, x_strides);
  }
  LoopedElemToLoc<2, int64_t, true> c(x_ndim);
  LoopedElemToLoc<3, size_t, true> d(x_ndim);
  for (int i = 0; i < n; ++i) walks[2 * n + i] = -1;
  for (int i = 0; i < n; i += 7) {
    walks[2 * n + i] = c.location();
    walks[3 * n + i] = int64_t(d.location());
    c.next(7, x_shape, x_strides);
    d.next(7, x_shape, x_strides);
  }
}
