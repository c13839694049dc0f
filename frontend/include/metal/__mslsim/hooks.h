// The only calls from the MSL standard library into the simulator. Everything else in the library is
// ordinary C++ that runs on the calling thread. Each collective takes the call site (file, line,
// column: filled by __builtin_FILE()/__builtin_LINE()/__builtin_COLUMN() default arguments of the
// public MSL function) so the simulator can name the source line in barrier and SIMD diagnostics.
#pragma once

extern "C" {
// Waits for every thread of the threadgroup that has not returned (flags: metal::mem_flags bits).
void __mslsim_threadgroup_barrier(unsigned flags, const char* file, unsigned line, unsigned column);
// Waits for the active lanes of the calling SIMD-group.
void __mslsim_simdgroup_barrier(unsigned flags, const char* file, unsigned line, unsigned column);
// SIMD-group collective: every participating lane contributes `size` bytes at `value`; when all
// participating lanes of the SIMD-group have arrived, each receives the 32 contributions, indexed by
// lane, in `lanes` (32 * size bytes; entries of non-participating lanes are unspecified). Returns the
// mask of participating lanes (bit i = lane i). All lanes of one call must pass the same size.
unsigned __mslsim_simd_exchange(const void* value, void* lanes, unsigned size, const char* file,
                                unsigned line, unsigned column);
// A SIMD-group function read the value of `lane`, which is inactive or out of range (undefined in
// MSL). Returns the byte the value is to be made of: the SIMD check reruns the dispatch with other
// bytes to find out whether the value reaches memory.
unsigned __mslsim_simd_inactive_read(unsigned lane, const char* file, unsigned line, unsigned column);
// One lane's two elements of an 8x8x8 simdgroup_matrix product: `lanes` holds the 32 lanes'
// operands as exchanged by __mslsim_simd_exchange (six floats per lane: its two elements of A, of
// B and of the accumulator), all lanes active. Returns the elements (row, col) and (row, col + 1)
// of lane `lane` (the caller's) as two floats' bits, the first in the low half: each is
// fma(A[row][k], B[k][col], acc) for k = 0..7 from acc = the accumulator, rounded once per fma.
__UINT64_TYPE__ __mslsim_simdgroup_mma(const void* lanes, unsigned lane);
// The calling thread's lane in its SIMD-group (0..31) and the SIMD-group width (always 32).
unsigned __mslsim_simd_lane(void);
}
