#include <metal_stdlib>
using namespace metal;

// A templated kernel, instantiated twice under host names. Both explicit
// instantiation spellings are used: the MLX one (decltype of the
// specialisation) and the ggml-style one (full kernel signature).
template <typename T>
[[kernel]] void add(
    device const T* in  [[buffer(0)]],
    device T*       out [[buffer(1)]],
    uint index [[thread_position_in_grid]])
{
    out[index] = out[index] + in[index];
}

template [[host_name("add_float")]] [[kernel]] decltype(add<float>) add<float>;
template [[host_name("add_int")]] kernel void add<int>(device const int*, device int*, uint);
