// scan.metal in OpenCL C with cl_khr_subgroups (build with -cl-std=CL2.0 or later): exclusive scan
// of each 256-item work-group's elements with sub_group_scan_exclusive_add, then the sub-group
// totals are scanned and added back. Sub-group sizes differ between devices, so the second level
// is a short serial loop on one work-item. Runs only on peers that report sub-group support.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void scan_block(__global const float* x, __global float* y, __global float* totals, uint n)
{
    __local float offsets[256];
    const uint gid = get_global_id(0);
    const uint lane = get_sub_group_local_id(), sg = get_sub_group_id();
    const float v = gid < n ? x[gid] : 0.0f;
    const float prefix = sub_group_scan_exclusive_add(v);
    if (lane == get_sub_group_size() - 1) offsets[sg] = prefix + v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        float running = 0.0f;
        for (uint i = 0; i < get_num_sub_groups(); ++i) {
            const float total = offsets[i];
            offsets[i] = running;
            running += total;
        }
        totals[get_group_id(0)] = running;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n) y[gid] = prefix + offsets[sg];
}
