// Soft capping, y = cap * tanh(x / cap): examples/soft_cap/kernel.metal in OpenCL C.
__kernel void soft_cap(__global const float* input, __global float* output, float cap_value, uint size)
{
    uint tid = get_global_id(0);
    if (tid >= size) return;
    float val = input[tid];
    output[tid] = cap_value * tanh(val / cap_value);
}
