// rmsnorm.metal in OpenCL C with cl_khr_subgroups (build with -cl-std=CL2.0 or later): one
// work-group per row, the sum of squares by sub_group_reduce_add and then across the sub-groups
// through local memory. Runs only on peers that report sub-group support.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void rms_norm_rows(__global const float* x, __global const float* w, __global float* y, uint width, float eps)
{
    __local float partial[256];
    const size_t row = get_group_id(0);
    const uint lid = get_local_id(0), size = get_local_size(0);
    const uint lane = get_sub_group_local_id(), sg = get_sub_group_id(), nsg = get_num_sub_groups();
    __global const float* in = x + row * width;
    __global float* out = y + row * width;
    float s = 0.0f;
    for (uint i = lid; i < width; i += size) s += in[i] * in[i];
    s = sub_group_reduce_add(s);
    if (lane == 0) partial[sg] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    float total = 0.0f;
    for (uint base = 0; base < nsg; base += get_sub_group_size())
        total += sub_group_reduce_add(base + lane < nsg ? partial[base + lane] : 0.0f);
    const float scale = rsqrt(total / (float)width + eps);
    for (uint i = lid; i < width; i += size) out[i] = in[i] * scale * w[i];
}
