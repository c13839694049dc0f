// softmax.metal in OpenCL C with cl_khr_subgroups (build with -cl-std=CL2.0 or later): one
// work-group per row; sub_group_reduce_max / _add per sub-group, then across the sub-groups
// through local memory. Runs only on peers that report sub-group support.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

float group_reduce(float v, __local float* partial, int is_max)
{
    const uint lane = get_sub_group_local_id(), sg = get_sub_group_id(), nsg = get_num_sub_groups();
    v = is_max ? sub_group_reduce_max(v) : sub_group_reduce_add(v);
    if (lane == 0) partial[sg] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    float total = is_max ? -INFINITY : 0.0f;
    for (uint base = 0; base < nsg; base += get_sub_group_size()) {
        float p = base + lane < nsg ? partial[base + lane] : (is_max ? -INFINITY : 0.0f);
        total = is_max ? fmax(total, sub_group_reduce_max(p)) : total + sub_group_reduce_add(p);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void softmax_rows(__global const float* x, __global float* y, uint width)
{
    __local float partial[256];
    const size_t row = get_group_id(0);
    const uint lid = get_local_id(0), size = get_local_size(0);
    __global const float* in = x + row * width;
    __global float* out = y + row * width;
    float m = -INFINITY;
    for (uint i = lid; i < width; i += size) m = fmax(m, in[i]);
    m = group_reduce(m, partial, 1);
    float s = 0.0f;
    for (uint i = lid; i < width; i += size) s += exp(in[i] - m);
    s = group_reduce(s, partial, 0);
    const float inv = 1.0f / s;
    for (uint i = lid; i < width; i += size) out[i] = exp(in[i] - m) * inv;
}
