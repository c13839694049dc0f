// reduce_simd.metal in OpenCL C with cl_khr_subgroups (build with -cl-std=CL2.0 or later):
// sub_group_reduce_add per sub-group, one barrier, then the first sub-group sums the partials.
// Sub-group sizes differ between devices, so the second level loops when there are more
// sub-groups than lanes. Runs only on peers that report sub-group support.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void reduce_simd(__global const float* x, __global float* partials, uint n)
{
    __local float sums[256];
    const uint gid = get_global_id(0);
    const uint lane = get_sub_group_local_id(), sg = get_sub_group_id();
    float s = sub_group_reduce_add(gid < n ? x[gid] : 0.0f);
    if (lane == 0) sums[sg] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        float total = 0.0f;
        for (uint base = 0; base < get_num_sub_groups(); base += get_sub_group_size())
            total += sub_group_reduce_add(base + lane < get_num_sub_groups() ? sums[base + lane] : 0.0f);
        if (lane == 0) partials[get_group_id(0)] = total;
    }
}
