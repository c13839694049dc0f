// Version and platform macros as kernel libraries test them, size_t/ptrdiff_t arithmetic and the
// u/l/ul literal suffixes.
#include <metal_stdlib>
using namespace metal;

#if defined(__METAL_IOS__)
#define PLATFORM_TAG 1u
#elif defined(__METAL_MACOS__)
#define PLATFORM_TAG 2u
#else
#define PLATFORM_TAG 0u
#endif

#if __METAL_VERSION__ < 310
#error "bfloat needs Metal 3.1"
#endif

#if defined(__HAVE_BFLOAT__)
typedef bfloat storage_t;
#else
typedef half storage_t;
#endif

kernel void version_tag(device uint* out [[buffer(0)]], device const storage_t* s [[buffer(1)]],
                        uint gid [[thread_position_in_grid]]) {
  size_t n = size_t(gid) * 4ul;
  ptrdiff_t d = ptrdiff_t(n) - ptrdiff_t(8l);
  uintptr_t addr = uintptr_t(s);
  out[gid] = PLATFORM_TAG + uint(__METAL_VERSION__) + uint(__METAL__) + uint(n) + uint(d) + 7u + uint(addr & 0u);
}
