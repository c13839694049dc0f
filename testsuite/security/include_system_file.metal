// A kernel includes a file of the machine: its lines would come back in the parse errors.
// run: --grid 1 --threadgroup 1 --buffer 0=zeros:float32:4
// expect-exit: 2
// expect-stderr: include_system_file.metal:7:10: error: #include "/etc/passwd" resolves to '/etc/passwd', outside the directories a program may include from
// reject-stderr: root:
#include <metal_stdlib>
#include "/etc/passwd"
kernel void k(device float* out [[buffer(0)]]) { out[0] = 1.0f; }
