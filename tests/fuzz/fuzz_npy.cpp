// The .npy reader: parseNpy (the parser readNpy also uses) on arbitrary bytes. An Error is the
// expected answer to a bad file; any other exception, a sanitizer report or a failed invariant is
// a finding. What parses is used as callers use it (every value read), written back with writeNpy
// and read again with readNpy: the same dtype, shape and bytes must come back.
#include <mslsim/host_array.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "FuzzSupport.h"

using mslsim::HostArray;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  HostArray a;
  try {
    a = mslsim::parseNpy(bytes, "fuzz.npy");
  } catch (const mslsim::Error&) {
    return 0;
  }
  // The header's shape and dtype account for exactly the bytes kept.
  uint64_t elements = 1;
  for (uint64_t d : a.shape) elements *= d;  // no overflow: the parser checked
  if (elements * mslsim::dtypeSize(a.dtype) != a.bytes.size()) mslsim_fuzz::invariantFailed("shape * dtype size != data size");
  if (a.count() != elements) mslsim_fuzz::invariantFailed("count() != product of the shape");
  volatile double sink = 0;
  for (uint64_t i = 0; i < std::min<uint64_t>(a.count(), 1 << 16); ++i) sink = sink + a.valueAt(i);

  std::string path = mslsim_fuzz::privateDirectory() + "/roundtrip.npy";
  try {
    mslsim::writeNpy(path, a);
    HostArray b = mslsim::readNpy(path);
    if (b.dtype != a.dtype || b.shape != a.shape || b.bytes != a.bytes)
      mslsim_fuzz::invariantFailed("writeNpy + readNpy does not give the array back");
  } catch (const mslsim::Error& e) {
    mslsim_fuzz::invariantFailed((std::string("round trip refused: ") + e.what()).c_str());
  }
  return 0;
}
