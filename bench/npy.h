// Minimal .npy reading and writing for the benchmark programs (opencl_host, reference_loops):
// little-endian, C-order arrays of 4-byte elements (<f4, <u4, <i4), which is all bench/run.py writes.
// The inputs come from numpy and the outputs go back to numpy, so every timed run can be verified.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace npy {

struct Array {
  std::string dtype;           // "<f4", "<u4" or "<i4"
  std::vector<size_t> shape;
  std::vector<uint32_t> data;  // raw 4-byte elements

  size_t count() const { return data.size(); }
  float* f32() { return reinterpret_cast<float*>(data.data()); }
  const float* f32() const { return reinterpret_cast<const float*>(data.data()); }
};

inline std::string field(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) throw std::runtime_error("npy header lacks " + key);
  return header.substr(header.find(':', at) + 1);
}

inline Array load(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  char magic[8];
  if (std::fread(magic, 1, 8, f) != 8 || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + " is not a .npy file");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {  // version 1: 2-byte header length, later versions: 4-byte
    uint16_t len16;
    if (std::fread(&len16, 2, 1, f) != 1) throw std::runtime_error("short read: " + path);
    headerLen = len16;
  } else if (std::fread(&headerLen, 4, 1, f) != 1) {
    throw std::runtime_error("short read: " + path);
  }
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f) != headerLen) throw std::runtime_error("short read: " + path);

  Array a;
  std::string descr = field(header, "descr");
  a.dtype = descr.substr(descr.find('\'') + 1, 3);
  if (a.dtype != "<f4" && a.dtype != "<u4" && a.dtype != "<i4")
    throw std::runtime_error(path + ": only <f4, <u4 and <i4 arrays are supported, not " + a.dtype);
  std::string order = field(header, "fortran_order");
  if (order.compare(order.find_first_not_of(' '), 4, "True") == 0)
    throw std::runtime_error(path + ": Fortran-order arrays are not supported");
  std::string shape = field(header, "shape");
  shape = shape.substr(shape.find('(') + 1, shape.find(')') - shape.find('(') - 1);
  size_t count = 1;
  for (const char* p = shape.c_str(); *p;) {
    char* end;
    size_t dim = std::strtoull(p, &end, 10);
    if (end == p) {
      ++p;
      continue;
    }
    a.shape.push_back(dim);
    count *= dim;
    p = end;
  }
  a.data.resize(count);
  if (std::fread(a.data.data(), 4, count, f) != count) throw std::runtime_error("short read: " + path);
  std::fclose(f);
  return a;
}

inline void save(const std::string& path, const std::string& dtype, const void* data, size_t count) {
  std::string header = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': (" + std::to_string(count) + ",), }";
  // Pad so that magic (6) + version (2) + length (2) + header + '\n' is a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  uint16_t len = uint16_t(header.size());
  std::fwrite("\x93NUMPY\x01\x00", 1, 8, f);
  std::fwrite(&len, 2, 1, f);
  std::fwrite(header.data(), 1, header.size(), f);
  std::fwrite(data, 4, count, f);
  std::fclose(f);
}

}  // namespace npy
