// The simulator's side of the contract with JIT'd code: the functions and the variable that the
// standard library and the IR passes reference by name.
#pragma once

#include <vector>

namespace mslsim {

struct RuntimeSymbol {
  const char* name;
  void* address;
};

// Every symbol JIT'd kernels may reference, for the JIT's symbol table.
std::vector<RuntimeSymbol> runtimeSymbols();

namespace hook {
constexpr const char* kThreadgroupBarrier = "__mslsim_threadgroup_barrier";
constexpr const char* kSimdgroupBarrier = "__mslsim_simdgroup_barrier";
constexpr const char* kSimdExchange = "__mslsim_simd_exchange";
constexpr const char* kSimdResult = "__mslsim_simd_result";          // i32(void): after a resume
constexpr const char* kCoroutineFrame = "__mslsim_coroutine_frame";  // ptr(i64 size, i64 align): this thread's
// ptr(i64 size, i64 align): the frames of the running threadgroup's threads, thread i's at i *
// coroutineFrameStride(size, align) (the JIT's loop over thread starts hands them out itself).
constexpr const char* kCoroutineFrames = "__mslsim_coroutine_frames";
constexpr const char* kThreadgroupArena = "__mslsim_threadgroup_arena";  // void*(void)
// i32(void): the running thread's index in its threadgroup, for the store claims
// (addStoreClaims). The thread loop puts its own index in its place (buildThreadLoop), and its
// stores of the index come only before hook calls; elsewhere the call reads the executor's.
constexpr const char* kRunningThread = "__mslsim_running_thread";
constexpr const char* kPoll = "__mslsim_poll";  // void(ptr file, i32 line, i32 column): the loop's
constexpr const char* kCancelFlag = "__mslsim_cancel_flag";              // i32, nonzero: poll
// void(ptr address, i64 value, i32 size), when the cancel flag is set: a polling loop (one whose
// exit depends only on what it reads from memory) read `value` (zero-extended) at `address`.
constexpr const char* kPollRead = "__mslsim_poll_read";
// i32(ptr address, i64 size, i32 site, ptr newValue): nonzero if the access may happen.
constexpr const char* kAccess = "__mslsim_access";
// void(ptr address, i64 size, i32 site, ptr base), called by the inline check of an access to a
// thread-private array or a program-scope constant (its site names the object and its size) when
// the access leaves the object: reported to the observers; the access is never performed.
constexpr const char* kPrivateOverrun = "__mslsim_private_overrun";
// The same two in a SIMD-group function (vector lanes), for the lanes whose access leaves the
// filter's range: i32(ptr addresses[32], i64 size, i32 site, ptr newValues[32] or null, i32 lanes)
// returns the lanes whose access may happen; void(ptr addresses[32], i64 size, i32 site, ptr
// bases[32], i32 lanes). Bit l of a mask is lane l.
constexpr const char* kLanesAccess = "__mslsim_lanes_access";
constexpr const char* kLanesPrivateOverrun = "__mslsim_lanes_private_overrun";
// i64(ptr lanes, i32 lane): one lane's two elements of a simdgroup_matrix product from the
// exchanged operands (frontend/include/metal/__mslsim/hooks.h); in a SIMD-group function, once for
// the lanes of a mask: void(ptr lanes, i32 mask, ptr results[32 x i64]). Pure arithmetic
// (SimdgroupMatrix.cpp).
constexpr const char* kSimdgroupMma = "__mslsim_simdgroup_mma";
// Both at once, for threads on fibers (fuseMatrixExchanges): i32(ptr operands, ptr lanes, ptr
// result, ptr file, i32 line, i32 column) exchanges the lane's operands as kSimdExchange does (24
// bytes; the result is the mask of active lanes) and writes the lane's two elements of the product
// (kSimdgroupMma's result) to `result`. With every lane active the simulator multiplies once for
// the SIMD-group and leaves `lanes` alone; otherwise it fills `lanes` too.
constexpr const char* kSimdMmaExchange = "__mslsim_simd_mma_exchange";
}  // namespace hook
// The bytes of one lane's operands of a simdgroup_matrix product (struct __sgmm_in: six floats).
constexpr unsigned kMatrixLaneOperandsBytes = 24;
namespace hook {
constexpr const char* kLanesSimdgroupMma = "__mslsim_lanes_simdgroup_mma";
// ptr(void), once per instrumented function call: a table of {u64 begin, u64 end} per access site.
// An access of [address, address + size) inside its site's range goes ahead without calling
// kAccess: the simulator puts there the allocation the site's pointer comes from when only the
// bounds check listens, and an empty range when every access must be seen. After the table's
// `sites` entries, for the inline settled-read test (addSettledReadTests,
// ThreadgroupScheduler::publishSettledReadTest): {tags bias, pointer to the key for everyone}, a
// settled range per site, {pointer to the running thread's index (u32), 0}; then, for the store
// claims (addStoreClaims, ThreadgroupScheduler::publishStoreClaims): {the threadgroup's first
// thread number, shift}, and per site {bias, tag}, {begin, end}.
constexpr const char* kAccessFilter = "__mslsim_access_filter";
// i1(i64 address, i64 size, i64 begin, i64 end): whether [address, address + size) lies in the
// filter's [begin, end). Not a symbol the JIT resolves: it stands for that compare until
// lowerRangeChecks writes it out, so that versionRangeCheckedLoops can find the checks.
constexpr const char* kInRange = "__mslsim_in_range";
// Where a thread is in the loops around its SIMD-group function calls (insertSimdLoopPositions),
// called before each such call: void(const i32* positions, i32 depth), the `depth` loops around
// the call outermost first, each as {loop id, iterations done}.
constexpr const char* kSimdLoopPosition = "__mslsim_simd_loop_position";
}  // namespace hook

// A settled-read tag (and key): the read generation above kSettledWhoBits, and below them who may
// read: all ones for every thread, 1 + n for the threads of SIMD-group n.
constexpr unsigned kSettledWhoBits = 6;

// The least alignment of the coroutine frames the simulator hands out (hook::kCoroutineFrame). A
// frame gets the alignment its coroutine split lays it out for (llvm.coro.align) when that is more:
// code made for the frame relies on it (a SIMD-group function's spilled <32 x i64> wants 256, and
// offsets from a frame LLVM takes to be 256-aligned are or-ed in; a frame only 64-aligned lost a
// threadgroup histogram's atomic adds).
constexpr unsigned kCoroutineFrameAlignment = 64;
constexpr uint64_t coroutineFrameAlignment(uint64_t align) {
  return align > kCoroutineFrameAlignment ? align : kCoroutineFrameAlignment;
}
// How far apart the frames of a threadgroup's threads are, for frames of `size` bytes aligned to
// `align` (a frame always begins with the resume and destroy pointers).
constexpr uint64_t coroutineFrameStride(uint64_t size, uint64_t align) {
  return ((size > 2 * sizeof(void*) ? size : 2 * sizeof(void*)) + coroutineFrameAlignment(align) - 1) /
         coroutineFrameAlignment(align) * coroutineFrameAlignment(align);
}

}  // namespace mslsim
