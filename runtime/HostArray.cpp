// The .npy reader/writer is hand-written: Debian ships no C++ NumPy-format library (cnpy is not
// packaged), and the format is a short header plus raw little-endian data.
#include <mslsim/host_array.h>

#include <cmath>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace mslsim {

namespace {
struct DTypeRow {
  DType type;
  const char* name;
  unsigned size;
  const char* descr;  // NumPy descr written for this dtype
};
constexpr DTypeRow kDTypes[] = {
    {DType::Float32, "float32", 4, "<f4"}, {DType::Float16, "float16", 2, "<f2"},
    {DType::BFloat16, "bfloat16", 2, "<u2"}, {DType::Int8, "int8", 1, "|i1"},
    {DType::Int16, "int16", 2, "<i2"},     {DType::Int32, "int32", 4, "<i4"},
    {DType::Int64, "int64", 8, "<i8"},     {DType::UInt8, "uint8", 1, "|u1"},
    {DType::UInt16, "uint16", 2, "<u2"},   {DType::UInt32, "uint32", 4, "<u4"},
    {DType::UInt64, "uint64", 8, "<u8"},   {DType::Bool, "bool", 1, "|b1"},
    {DType::Float64, "float64", 8, "<f8"}, {DType::Complex64, "complex64", 8, "<c8"},
};
const DTypeRow& row(DType t) {
  for (auto& r : kDTypes)
    if (r.type == t) return r;
  return kDTypes[0];
}

float halfToFloat(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return float(h);
}
uint16_t floatToHalf(float f) {
  _Float16 h = _Float16(f);
  uint16_t bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
float bfloatToFloat(uint16_t bits) {
  uint32_t u = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint16_t floatToBfloat(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);  // keep it a (quiet) NaN
  u += 0x7FFF + ((u >> 16) & 1);                         // round to nearest, ties to even
  return uint16_t(u >> 16);
}
// A double as an integer element, without the undefined behaviour of a cast out of range:
// truncated toward zero, then wrapped modulo 2^bits as an integer cast wraps (iota:uint8:300 counts
// 0..255 then 0..43, as numpy's arange(300).astype(uint8)); NaN is 0, and values beyond the 64-bit
// range saturate.
template <class I> I toInteger(double value) {
  if (std::isnan(value)) return 0;
  if (value >= 0x1p64) return std::numeric_limits<I>::max();
  if (value < -0x1p63) return std::numeric_limits<I>::min();
  uint64_t bits = value < 0 ? uint64_t(int64_t(value)) : uint64_t(value);  // exact: in [-2^63, 2^64)
  return I(bits);
}
}  // namespace

bfloat16::bfloat16(float value) : bits(floatToBfloat(value)) {}
bfloat16::operator float() const { return bfloatToFloat(bits); }

const char* dtypeName(DType t) { return row(t).name; }
unsigned dtypeSize(DType t) { return row(t).size; }
bool isFloating(DType t) {
  return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64 ||
         t == DType::Complex64;
}

bool parseDType(const std::string& name, DType& out) {
  for (auto& r : kDTypes)
    if (name == r.name) {
      out = r.type;
      return true;
    }
  return false;
}

std::string allDTypeNames() {
  std::string s;
  for (auto& r : kDTypes) s += (s.empty() ? "" : " ") + std::string(r.name);
  return s;
}

double HostArray::valueAt(uint64_t i) const {
  const uint8_t* p = bytes.data() + i * dtypeSize(dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (dtype) {
    case DType::Float32: return load(float());
    case DType::Float16: return halfToFloat(load(uint16_t()));
    case DType::BFloat16: return bfloatToFloat(load(uint16_t()));
    case DType::Int8: return load(int8_t());
    case DType::Int16: return load(int16_t());
    case DType::Int32: return load(int32_t());
    case DType::Int64: return double(load(int64_t()));
    case DType::UInt8: return load(uint8_t());
    case DType::UInt16: return load(uint16_t());
    case DType::UInt32: return load(uint32_t());
    case DType::UInt64: return double(load(uint64_t()));
    case DType::Bool: return load(uint8_t()) != 0;
    case DType::Float64: return load(double());
    case DType::Complex64: return load(float());
  }
  return 0;
}

void HostArray::setValue(uint64_t i, double value) {
  uint8_t* p = bytes.data() + i * dtypeSize(dtype);
  auto store = [p](auto v) { std::memcpy(p, &v, sizeof(v)); };
  switch (dtype) {
    case DType::Float32: store(float(value)); break;
    case DType::Float16: store(floatToHalf(float(value))); break;
    case DType::BFloat16: store(floatToBfloat(float(value))); break;
    case DType::Int8: store(toInteger<int8_t>(value)); break;
    case DType::Int16: store(toInteger<int16_t>(value)); break;
    case DType::Int32: store(toInteger<int32_t>(value)); break;
    case DType::Int64: store(toInteger<int64_t>(value)); break;
    case DType::UInt8: store(toInteger<uint8_t>(value)); break;
    case DType::UInt16: store(toInteger<uint16_t>(value)); break;
    case DType::UInt32: store(toInteger<uint32_t>(value)); break;
    case DType::UInt64: store(toInteger<uint64_t>(value)); break;
    case DType::Bool: store(uint8_t(value != 0)); break;
    case DType::Float64: store(value); break;
    case DType::Complex64: {
      float parts[2] = {float(value), 0.0f};
      std::memcpy(p, parts, 8);
      break;
    }
  }
}

uint64_t maxBufferBytes() {
  uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
  return std::min(memory, uint64_t(1) << 36);
}

HostArray HostArray::filled(DType dtype, uint64_t count, double value) {
  HostArray a;
  a.dtype = dtype;
  a.shape = {count};
  a.bytes.assign(count * dtypeSize(dtype), 0);
  if (value != 0)
    for (uint64_t i = 0; i < count; ++i) a.setValue(i, value);
  return a;
}

namespace {
// The one .npy parser, over a source of bytes: `read(p, n)` fills p with the source's next n bytes
// or returns false. `available`, when known, is how many bytes the source holds in all: the data a
// header asks for must be there before it is allocated (a damaged header must not ask for
// terabytes); from a pipe, the read finds out. `name` (a path) begins every message.
template <class Read>
HostArray parseNpyFrom(Read&& read, std::optional<uint64_t> available, const std::string& name) {
  auto bad = [&](const std::string& why) { return Error(name + ": not a valid .npy file: " + why); };
  char magic[8];
  if (!read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) throw bad("missing NUMPY magic");
  uint32_t headerLength = 0;
  uint64_t dataStart = 8;
  if (magic[6] == 1) {
    uint8_t l[2];
    if (!read(reinterpret_cast<char*>(l), 2)) throw bad("truncated header");
    headerLength = l[0] | (l[1] << 8);
    dataStart += 2;
  } else if (magic[6] == 2 || magic[6] == 3) {
    uint8_t l[4];
    if (!read(reinterpret_cast<char*>(l), 4)) throw bad("truncated header");
    headerLength = l[0] | (l[1] << 8) | (l[2] << 16) | (uint32_t(l[3]) << 24);
    dataStart += 4;
  } else {
    throw bad("unsupported format version " + std::to_string(int(magic[6])));
  }
  // numpy writes headers of a few hundred bytes; a length in the gigabytes is a damaged file.
  if (headerLength > (1u << 20)) throw bad("header length " + std::to_string(headerLength) + " is over 1 MiB");
  std::string header(headerLength, '\0');
  if (!read(header.data(), headerLength)) throw bad("truncated header");
  dataStart += headerLength;

  auto field = [&](const std::string& key) -> std::string {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw bad("header has no '" + key + "'");
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw bad("malformed header");
    size_t start = header.find_first_not_of(' ', colon + 1);
    if (start == std::string::npos) throw bad("malformed header");
    if (header[start] == '\'') {
      size_t end = header.find('\'', start + 1);
      if (end == std::string::npos) throw bad("malformed header");
      return header.substr(start + 1, end - start - 1);
    }
    if (header[start] == '(') {
      size_t end = header.find(')', start);
      if (end == std::string::npos) throw bad("malformed header");
      return header.substr(start + 1, end - start - 1);
    }
    size_t end = header.find_first_of(",}", start);
    return header.substr(start, end - start);
  };
  std::string descr = field("descr");
  if (field("fortran_order").find("True") != std::string::npos)
    throw bad("Fortran-ordered arrays are not supported (save with np.ascontiguousarray)");
  HostArray a;
  bool known = false;
  std::string d = descr;
  if (!d.empty() && d[0] == '=') d[0] = '<';
  if (d == "<u2") {
    a.dtype = DType::UInt16;
    known = true;
  } else {
    for (auto& r : kDTypes)
      if (d == r.descr || (d.size() == 3 && d[0] == '<' && r.descr[0] == '|' && d.substr(1) == r.descr + 1)) {
        a.dtype = r.type;
        known = true;
        break;
      }
  }
  if (!known) throw bad("unsupported dtype '" + descr + "' (supported: " + allDTypeNames() + ")");
  std::string shape = field("shape");
  uint64_t count = 1;
  std::stringstream ss(shape);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t s = item.find_first_not_of(' ');
    if (s == std::string::npos) continue;
    std::string digits = item.substr(s, item.find_last_not_of(' ') + 1 - s);
    if (digits.empty() || digits.size() > 19 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw bad("malformed shape (" + shape + ")");
    uint64_t dim = std::stoull(digits);
    a.shape.push_back(dim);
    if (__builtin_mul_overflow(count, dim, &count)) throw bad("shape (" + shape + ") has more than 2^64 elements");
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, uint64_t(dtypeSize(a.dtype)), &bytes))
    throw bad("shape (" + shape + ") needs more than 2^64 bytes");
  if (available && (dataStart > *available || bytes > *available - dataStart))
    throw bad("data is shorter than its shape (" + shape + ") says: " + std::to_string(bytes) + " bytes of " +
              dtypeName(a.dtype) + " expected, " +
              std::to_string(dataStart > *available ? 0 : *available - dataStart) + " in the file");
  try {
    a.bytes.resize(bytes);
  } catch (const std::bad_alloc&) {
    throw Error(name + ": cannot allocate " + std::to_string(bytes) + " bytes for its data");
  }
  if (!read(reinterpret_cast<char*>(a.bytes.data()), a.bytes.size()))
    throw bad("data is shorter than its shape (" + shape + ") says");
  return a;
}

}  // namespace

HostArray parseNpy(const std::string& bytes, const std::string& name) {
  size_t offset = 0;
  auto read = [&](char* p, uint64_t n) {
    if (n > bytes.size() - offset) return false;
    if (n) std::memcpy(p, bytes.data() + offset, n);  // p is null for an empty array
    offset += n;
    return true;
  };
  return parseNpyFrom(read, uint64_t(bytes.size()), name);
}

HostArray readNpy(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + ": is a directory, not a .npy file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file");
  // A regular file's size is known (the data is checked against it before it is allocated); a
  // pipe's is not. The file is read as the parser goes: only as much of a pipe or device as the
  // header says, never the whole of /dev/zero.
  std::optional<uint64_t> size;
  if (std::filesystem::is_regular_file(path, error)) {
    uint64_t bytes = std::filesystem::file_size(path, error);
    if (!error) size = bytes;
  }
  auto read = [&](char* p, uint64_t n) { return bool(in.read(p, std::streamsize(n))); };
  return parseNpyFrom(read, size, path);
}

void writeNpy(const std::string& path, const HostArray& a) {
  std::string shape;
  for (auto d : a.shape) shape += std::to_string(d) + ", ";
  if (a.shape.size() > 1) shape.erase(shape.size() - 2);
  else if (a.shape.size() == 1) shape.erase(shape.size() - 1);
  std::string header = "{'descr': '" + std::string(row(a.dtype).descr) +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // Format 1.0 has a 16-bit header length; a longer header (tens of thousands of dimensions) needs
  // 2.0 and its 32-bit one, as numpy does.
  bool version2 = 10 + header.size() + 1 + 63 > 0xFFFF;
  size_t preamble = version2 ? 12 : 10;
  size_t total = preamble + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(path + ": cannot write file");
  out.write(version2 ? "\x93NUMPY\x02\x00" : "\x93NUMPY\x01\x00", 8);
  uint32_t len = uint32_t(header.size());
  char l[4] = {char(len & 0xFF), char((len >> 8) & 0xFF), char((len >> 16) & 0xFF), char(len >> 24)};
  out.write(l, std::streamsize(preamble - 8));
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(a.bytes.data()), std::streamsize(a.bytes.size()));
  if (!out) throw Error(path + ": write failed");
}

HostArray parseBufferSpec(const std::string& spec, const std::string& baseDir) {
  std::vector<std::string> parts;
  std::stringstream ss(spec);
  std::string part;
  while (std::getline(ss, part, ':')) parts.push_back(part);
  static const char* const kKinds[] = {"zeros", "fill", "scalar", "iota"};
  bool generated = false;
  for (auto* k : kKinds) generated |= !parts.empty() && parts[0] == k;
  if (spec.empty())
    throw Error("empty buffer spec: expected FILE.npy, zeros:DTYPE:COUNT, fill:DTYPE:COUNT:VALUE, "
                "iota:DTYPE:COUNT or scalar:DTYPE:VALUE");
  if (!generated) {
    std::string path = spec;
    if (!baseDir.empty() && !path.empty() && path[0] != '/') path = baseDir + "/" + path;
    return readNpy(path);
  }
  const std::string& kind = parts[0];
  size_t expected = kind == "fill" ? 4 : 3;
  if (parts.size() != expected)
    throw Error("buffer spec '" + spec + "': expected " +
                     (kind == "fill" ? "fill:DTYPE:COUNT:VALUE"
                      : kind == "scalar" ? "scalar:DTYPE:VALUE"
                                         : kind + ":DTYPE:COUNT"));
  DType dtype;
  if (!parseDType(parts[1], dtype))
    throw Error("buffer spec '" + spec + "': unknown dtype '" + parts[1] + "' (one of " +
                     allDTypeNames() + ")");
  auto number = [&](const std::string& text, const char* what) {
    try {
      size_t used = 0;
      double v = std::stod(text, &used);
      if (used != text.size()) throw std::invalid_argument(text);
      return v;
    } catch (...) {
      throw Error("buffer spec '" + spec + "': " + what + " '" + text + "' is not a number");
    }
  };
  auto countOf = [&](const std::string& text) {
    double c = number(text, "count");
    if (c < 0 || c != std::floor(c)) throw Error("buffer spec '" + spec + "': bad count '" + text + "'");
    // More than the machine has is refused with the numbers, not met with std::bad_alloc.
    uint64_t memory = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    if (c * dtypeSize(dtype) > double(memory))
      throw Error("buffer spec '" + spec + "': " + text + " elements of " + dtypeName(dtype) + " take " +
                  [&] {
                    std::ostringstream bytes;
                    bytes.precision(0);
                    bytes << std::fixed << c * dtypeSize(dtype);
                    return bytes.str();
                  }() + " bytes, more than this machine's memory (" +
                  std::to_string(memory) + " bytes)");
    return uint64_t(c);
  };
  if (kind == "zeros") return HostArray::filled(dtype, countOf(parts[2]), 0);
  if (kind == "fill") return HostArray::filled(dtype, countOf(parts[2]), number(parts[3], "value"));
  if (kind == "scalar") {
    HostArray a = HostArray::filled(dtype, 1, number(parts[2], "value"));
    a.shape.clear();
    return a;
  }
  HostArray a = HostArray::filled(dtype, countOf(parts[2]), 0);
  for (uint64_t i = 0; i < a.count(); ++i) a.setValue(i, double(i));
  return a;
}

}  // namespace mslsim
