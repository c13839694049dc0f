// Conversions real kernels rely on: integers to bfloat (MLX softmax `acc = 0;`, unary `Sign`
// returning 1), a class with `operator bool` to bfloat (MLX steel_gemm_masked's _NoMask), a vector
// from a braced list of fewer elements (MLX random.metal: `uint4 ks = {a, b, c};`),
// numeric_limits of a vector and initializer_list (SPIR-V Cross helpers).
#include <metal_stdlib>
using namespace metal;

struct NoMask {
  char x;
  constexpr METAL_FUNC operator bool() thread { return true; }
  constexpr METAL_FUNC operator bool() const device { return true; }
};

template <typename T> T one_of() { return 1; }

template <typename T> struct Columns {
  vec<T, 2> c[2];
  Columns& operator=(initializer_list<vec<T, 2>> cols) {
    int k = 0;
    for (auto& col : cols) c[k++] = col;
    return *this;
  }
};

kernel void conversions(device bfloat* out [[buffer(0)]], const device NoMask* mask [[buffer(1)]],
                        device uint4* keys [[buffer(2)]], device float4* lim [[buffer(3)]],
                        uint i [[thread_position_in_grid]]) {
  bfloat acc;
  acc = 0;
  acc += one_of<bfloat>();
  bfloat scale;
  scale = mask[i];
  out[i] = acc * scale;
  uint2 key = uint2(i, 7u);
  uint4 ks = {key.x, key.y, key.x ^ key.y ^ 0x1BD11BDA};
  keys[i] = ks;
  Columns<float> m;
  m = {float2(1.0f), float2(2.0f)};
  lim[i] = numeric_limits<float4>::max() * 0.0f + float4(m.c[1], m.c[0]);
}
