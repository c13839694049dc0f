// MLX's defines.h writes instantiate_kernel with the attribute list split over two lines of the
// macro (clang-format output). A user header that copies it must keep working. Known front-end bug
// at the time of writing: SourceRewriter re-emits the newline inside the attribute arguments and
// then another one, which ends the macro early (see tests/mlx_preamble/README.md).
#include <__mslsim/mlx_preamble.h>

#define my_instantiate_kernel(name, func, ...) \
  template [[host_name(                        \
      name)]] [[kernel]] decltype(func<__VA_ARGS__>) func<__VA_ARGS__>;

template <typename T>
[[kernel]] void add_one(device T* out [[buffer(0)]], uint3 thread_position_in_grid [[thread_position_in_grid]]) {
  out[thread_position_in_grid.x] += T(1);
}
my_instantiate_kernel("add_one_float", add_one, float)
