#pragma once
namespace mslsim {
struct EmbeddedFile {
  const char* path;      // relative to the header root, e.g. "metal_stdlib", "__mslsim/prelude.h"
  const char* contents;
};
extern const EmbeddedFile kEmbeddedHeaders[];
extern const unsigned kEmbeddedHeaderCount;
}  // namespace mslsim
