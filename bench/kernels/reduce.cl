#define GROUP 256

// Tree reduction in local memory with a barrier per level: one partial sum per 256-item
// work-group. bench/kernels/reduce.metal is the same kernel in MSL.
__kernel __attribute__((reqd_work_group_size(GROUP, 1, 1)))
void reduce_tree(__global const float* x, __global float* partials, uint n)
{
    __local float s[GROUP];
    const uint gid = get_global_id(0), lid = get_local_id(0);
    s[lid] = gid < n ? x[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint stride = GROUP / 2; stride > 0; stride >>= 1) {
        if (lid < stride) s[lid] += s[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partials[get_group_id(0)] = s[0];
}
