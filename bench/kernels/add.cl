// Element-wise add; bench/kernels/add.metal is the same kernel in MSL.
__kernel void add(__global const float* a, __global const float* b, __global float* out, uint n)
{
    uint i = get_global_id(0);
    if (i < n) out[i] = a[i] + b[i];
}
