#include "CompileCache.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/SHA256.h>
#include <nlohmann/json.hpp>

namespace mslsim {

namespace {

using json = nlohmann::json;

constexpr int kFormat = 15;  // bump when the entry layout changes

// The object's digest as its description records it: SHA-256, which a test checks independently.
std::string objectDigest(llvm::StringRef bytes) {
  auto digest = llvm::SHA256::hash(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

// "4G", "512M", "100K", "1000000": bytes.
std::optional<uint64_t> parseSize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  uint64_t value = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  if (unit.empty() || unit == "B") return value;
  if (unit == "K" || unit == "k") return value << 10;
  if (unit == "M" || unit == "m") return value << 20;
  if (unit == "G" || unit == "g") return value << 30;
  return std::nullopt;
}

std::string readFile(const std::string& path, bool& ok) {
  std::ifstream in(path, std::ios::binary);
  ok = bool(in);
  std::stringstream ss;
  if (ok) ss << in.rdbuf();
  return ss.str();
}

std::string hashText(const std::string& text) {
  // 128 bits of BLAKE3 (LLVM's): plenty against accidental collisions (the cache is not a security
  // boundary), and fast enough to hash MLX's 75-195 KB library sources at every lookup (an FNV-1a
  // loop a byte at a time was a tenth of a cached pipeline's time).
  auto digest = llvm::BLAKE3::hash<16>(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

json position(const SourcePosition& p) { return {p.file, p.line, p.column}; }
SourcePosition position(const json& j) { return {j[0].get<std::string>(), j[1].get<unsigned>(), j[2].get<unsigned>()}; }

json regionLoopToJson(const std::optional<RegionLoopLayout>& r) {
  if (!r) return nullptr;
  json barriers = json::array();
  for (auto& b : r->barriers) barriers.push_back({b.file, b.line, b.column, b.flags});
  return json{r->indexOffset, r->indexBytes, r->indexMask, r->recordsThreads, barriers,
              r->startIndex ? json(*r->startIndex) : json(nullptr)};
}

std::optional<RegionLoopLayout> regionLoopFromJson(const json& r) {
  if (r.is_null()) return std::nullopt;
  RegionLoopLayout layout{r[0].get<uint64_t>(), r[1].get<unsigned>(), r[2].get<uint32_t>(), r[3].get<bool>(), {}, {}};
  for (auto& b : r[4]) layout.barriers.push_back({b[0], b[1], b[2], b[3]});
  if (!r[5].is_null()) layout.startIndex = r[5].get<uint32_t>();
  return layout;
}

json argumentToJson(const ArgumentInfo& a) {
  return {{"name", a.name}, {"position", a.position}, {"role", int(a.role)}, {"binding", a.binding},
          {"explicit", a.explicitBinding}, {"space", int(a.space)}, {"const", a.isConst},
          {"reference", a.isReference}, {"type", a.typeSpelling}, {"pointee", a.pointeeType},
          {"pointee_size", a.pointeeSize}, {"pointee_align", a.pointeeAlign}, {"builtin", int(a.builtin)}, {"components", a.components},
          {"component_size", a.componentSize}, {"location", position(a.location)},
          {"function_constant", a.functionConstant}, {"enabled", a.enabled}, {"used", a.used}};
}

ArgumentInfo argumentFromJson(const json& j) {
  ArgumentInfo a;
  a.name = j["name"];
  a.position = j["position"];
  a.role = ArgumentRole(j["role"].get<int>());
  a.binding = j["binding"];
  a.explicitBinding = j["explicit"];
  a.space = AddressSpace(j["space"].get<int>());
  a.isConst = j["const"];
  a.isReference = j["reference"];
  a.typeSpelling = j["type"];
  a.pointeeType = j["pointee"];
  a.pointeeSize = j["pointee_size"];
  a.pointeeAlign = j.value("pointee_align", uint64_t(0));
  a.builtin = BuiltinValue(j["builtin"].get<int>());
  a.components = j["components"];
  a.componentSize = j["component_size"];
  a.location = position(j["location"]);
  a.functionConstant = j.value("function_constant", std::string());
  a.enabled = j.value("enabled", true);
  a.used = j.value("used", true);
  return a;
}

}  // namespace

CompileCache::CompileCache() {
  const char* configured = std::getenv("MSLSIM_CACHE_DIR");
  if (configured) {
    dir_ = configured;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir_ = std::string(xdg) + "/mslsim";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir_ = std::string(home) + "/.cache/mslsim";
  }
  if (dir_ == "off" || dir_.empty()) dir_.clear();
  if (const char* size = std::getenv("MSLSIM_CACHE_SIZE"); size && *size) {
    std::optional<uint64_t> bound = parseSize(size);
    if (!bound)
      throw Error(std::string("MSLSIM_CACHE_SIZE=") + size +
                  ": not a size (bytes, or a number with K, M or G, e.g. 4G): the compile cache's bound");
    bound_ = *bound;
  }
  writtenSinceTrim_ = bound_;  // the first store looks at the directory
}


CompileCache& CompileCache::instance() {
  static CompileCache cache;
  return cache;
}

// mslsim's own code (the file this function lives in: the CLI, libmslsim.so or the Python
// module), by path, size and modification time: a rebuilt mslsim never reuses an older build's code.
std::string buildIdentity() {
  Dl_info info{};
  struct stat st {};
  if (!dladdr(reinterpret_cast<void*>(&buildIdentity), &info) || !info.dli_fname || stat(info.dli_fname, &st) != 0)
    return "unknown-build";
  return std::string(info.dli_fname) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtime);
}

namespace {
// The front end keeps its precompiled standard library here too (one file per build), so that a
// new process's first compile does not build it again.
const bool kStdlibKeptInCache = (setPrecompiledStdlibPlace([] {
  return PrecompiledStdlibPlace{CompileCache::instance().directory(), buildIdentity()};
}), true);
}  // namespace

std::string CompileCache::key(const std::string& path, const std::string& source, const CompileOptions& options,
                              const std::string& variant, const std::string& fingerprint) {
  static const std::string build = buildIdentity();
  std::string text = build + '\0' + fingerprint + '\0' + path + '\0' + source + '\0' + describeOptions(options) + variant;
  return hashText(text);
}

std::optional<CachedCompilation> CompileCache::load(const std::string& key, const std::string& mainPath,
                                                   const std::string& mainSource) const {
  if (dir_.empty()) return std::nullopt;
  bool ok;
  std::string meta = readFile(dir_ + "/" + key + ".json", ok);
  if (!ok) return std::nullopt;
  std::string objectBytes = readFile(dir_ + "/" + key + ".o", ok);
  if (!ok) return std::nullopt;
  try {
    json j = json::parse(meta);
    if (j.value("format", 0) != kFormat) return std::nullopt;
    // Two files: the object must be the one this description was written with.
    if (j.value("object_sha256", std::string()) != objectDigest(objectBytes)) return std::nullopt;
    // Headers the program included must still say what they said.
    for (auto& dep : j["dependencies"]) {
      bool found;
      std::string text = readFile(dep["path"].get<std::string>(), found);
      if (!found || hashText(text) != dep["hash"].get<std::string>()) return std::nullopt;
    }
    CachedCompilation c;
    c.object.object.assign(objectBytes.begin(), objectBytes.end());
    auto sources = std::make_shared<SourceIndex>();
    for (auto& f : j["sources"]) {
      ColumnMap columns;
      for (auto& e : f["edits"]) columns.addEdit(e[0], e[1], e[2], e[3], e[4]);
      const std::string& path = f["path"].get_ref<const std::string&>();
      if (!f.contains("original") && path != mainPath) return std::nullopt;  // damaged: a miss
      sources->add(path, f.contains("original") ? f["original"].get<std::string>() : mainSource, columns,
                   f.value("presumed", false));
    }
    auto sites = std::make_shared<std::vector<AccessSite>>();
    for (auto& s : j["sites"]) {
      AccessSite site;
      site.op = AccessOp(s[0].get<int>());
      site.where = position(s[1]);
      site.param = s[2];
      site.threadgroupOffset = s[3];
      site.privateObject = s[4];
      site.privateBytes = s[5];
      site.privateElementSize = s[6];
      site.privateIsConstant = s[7];
      site.vectorAlign = s[8];
      site.vectorType = s[9];
      sites->push_back(site);
    }
    for (auto& k : j["kernels"]) {
      ExecutableKernel e;
      const json& info = k["info"];
      e.info.name = info["name"];
      e.info.entrySymbol = info["entry"];
      e.info.location = position(info["location"]);
      e.info.maxTotalThreadsPerThreadgroup = info["max_threads"];
      for (auto& c : info["required_constants"])
        e.info.requiredFunctionConstants.push_back({c[0], c[1], c[2], c[3], position(c[4])});
      for (auto& a : info["arguments"]) e.info.arguments.push_back(argumentFromJson(a));
      e.staticThreadgroupBytes = k["threadgroup_bytes"];
      e.scheduling = ThreadScheduling(k["scheduling"].get<int>());
      e.tier = CodeTier(k.value("tier", int(CodeTier::Optimised)));
      e.hasThreadLoop = k["thread_loop"];
      e.perThreadCode = k["per_thread_code"];
      e.regionLoopLayout = regionLoopFromJson(k["region_loop"]);
      if (!k["simd_group"].is_null())
        e.simdGroupFunction = SimdGroupFunction{k["simd_group"]["suspends"].get<bool>(),
                                                regionLoopFromJson(k["simd_group"]["region_loop"])};
      e.instrumented = k["instrumented"];
      for (auto& v : k["threadgroup_variables"]) e.threadgroupVariables.push_back({v[0], v[1], v[2], v[3]});
      e.sites = sites;
      e.sources = sources;
      c.object.kernels.push_back(std::move(e));
    }
    c.object.sources = sources;
    c.object.generationMs = j.value("generation_ms", 0.0);
    if (j.contains("declared")) c.declaredKernels = j["declared"].get<std::vector<std::string>>();
    for (auto& d : j["warnings"])
      c.warnings.push_back({Diagnostic::Severity(d[0].get<int>()), position(d[1]), d[2], d[3]});
    // Used now: the last to be removed when the directory is trimmed.
    ::utimensat(AT_FDCWD, (dir_ + "/" + key + ".json").c_str(), nullptr, 0);
    return c;
  } catch (const json::exception&) {
    return std::nullopt;  // a damaged entry is a miss; the next compile rewrites it
  }
}

void CompileCache::store(const std::string& key, const std::string& mainPath, const CompiledObject& object,
                         const std::vector<Diagnostic>& warnings,
                         const std::optional<std::vector<std::string>>& declaredKernels) const {
  if (dir_.empty()) return;
  json j;
  j["format"] = kFormat;
  j["object_sha256"] = objectDigest(llvm::StringRef(object.object.data(), object.object.size()));
  j["generation_ms"] = object.generationMs;
  if (declaredKernels) j["declared"] = *declaredKernels;
  j["dependencies"] = json::array();
  j["sources"] = json::array();
  if (object.sources)
    for (auto& [path, file] : object.sources->files()) {
      json edits = json::array();
      for (auto& e : file.columns.edits()) edits.push_back({e.line, e.outStart, e.outLength, e.inStart, e.inLength});
      json entry = {{"path", path}, {"edits", edits}, {"presumed", file.presumed}};
      if (path != mainPath || file.presumed) entry["original"] = file.original;  // the main file's is the key's
      j["sources"].push_back(std::move(entry));
      if (path != mainPath && !file.presumed)
        j["dependencies"].push_back({{"path", path}, {"hash", hashText(file.original)}});
    }
  j["sites"] = json::array();
  if (!object.kernels.empty() && object.kernels[0].sites)
    for (auto& s : *object.kernels[0].sites)
      j["sites"].push_back({int(s.op), position(s.where), s.param, s.threadgroupOffset, s.privateObject,
                            s.privateBytes, s.privateElementSize, s.privateIsConstant, s.vectorAlign, s.vectorType});
  j["kernels"] = json::array();
  for (auto& k : object.kernels) {
    json args = json::array();
    for (auto& a : k.info.arguments) args.push_back(argumentToJson(a));
    json required = json::array();
    for (auto& c : k.info.requiredFunctionConstants)
      required.push_back({c.name, c.index, c.type, c.canonicalType, position(c.location)});
    json vars = json::array();
    for (auto& v : k.threadgroupVariables) vars.push_back({v.name, v.offset, v.size, v.elementSize});
    json simdGroup;
    if (const auto& s = k.simdGroupFunction)
      simdGroup = json{{"suspends", s->suspends}, {"region_loop", regionLoopToJson(s->regionLoop)}};
    j["kernels"].push_back({{"info",
                             {{"name", k.info.name}, {"entry", k.info.entrySymbol},
                              {"location", position(k.info.location)},
                              {"max_threads", k.info.maxTotalThreadsPerThreadgroup}, {"arguments", args},
                              {"required_constants", required}}},
                            {"threadgroup_bytes", k.staticThreadgroupBytes},
                            {"scheduling", int(k.scheduling)},
                            {"tier", int(k.tier)},
                            {"thread_loop", k.hasThreadLoop},
                            {"per_thread_code", k.perThreadCode},
                            {"region_loop", regionLoopToJson(k.regionLoopLayout)},
                            {"simd_group", simdGroup},
                            {"instrumented", k.instrumented},
                            {"threadgroup_variables", vars}});
  }
  j["warnings"] = json::array();
  for (auto& d : warnings) j["warnings"].push_back({int(d.severity), position(d.where), d.message, d.sourceLine});

  // Entries are written under temporary names and renamed into place, so a concurrent reader sees
  // a whole entry or none; a failure to write only costs the next run a compile.
  std::string mkdir = dir_;
  for (size_t slash = 1; (slash = mkdir.find('/', slash)) != std::string::npos; ++slash)
    ::mkdir(mkdir.substr(0, slash).c_str(), 0755);
  ::mkdir(dir_.c_str(), 0755);
  // Named by process and thread: two writers never share a temporary file.
  std::string tmp = dir_ + "/." + key + "." + std::to_string(::getpid()) + "-" +
                    std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
  std::string description = j.dump();
  {
    std::ofstream o(tmp + ".o", std::ios::binary);
    o.write(object.object.data(), std::streamsize(object.object.size()));
    std::ofstream m(tmp + ".json");
    m << description;
    if (!o || !m) {
      o.close();
      m.close();
      std::remove((tmp + ".o").c_str());
      std::remove((tmp + ".json").c_str());
      return;
    }
  }
  // The object first: a description in place always finds its object (or, after a concurrent
  // trim, none: a miss).
  std::rename((tmp + ".o").c_str(), (dir_ + "/" + key + ".o").c_str());
  std::rename((tmp + ".json").c_str(), (dir_ + "/" + key + ".json").c_str());
  uint64_t written = object.object.size() + description.size();
  uint64_t before = writtenSinceTrim_.fetch_add(written);
  if (before + written >= bound_ / 16) {
    writtenSinceTrim_ = 0;
    // A process's first store looks at the directory (others may have filled it), unless another
    // process did within the last minute in a cache of 64 MiB or more: scanning a large cache's
    // tens of thousands of files takes about a second, which every short-lived process (a CLI
    // run, a test case) paid. Such a cache may go past its bound by what processes write in that
    // minute, each of which still trims once it has written a sixteenth of the bound itself.
    bool firstStore = before >= bound_;
    if (!(firstStore && trimmedRecently())) trim(bound_ / 4 * 3);
  }
}

bool CompileCache::trimmedRecently() const {
  struct stat st {};
  if (bound_ < (64ull << 20) || ::stat((dir_ + "/" + kLastTrim).c_str(), &st) != 0) return false;
  return std::time(nullptr) - st.st_mtime < 60;
}

void CompileCache::trim(uint64_t target) const {
  namespace fs = std::filesystem;
  if (dir_.empty()) return;
  // The cache's files: an entry is KEY.json and KEY.o (removed together), a precompiled header is
  // one file; a dot-file is a writer's temporary.
  struct Item {
    std::vector<fs::path> files;  // the description first: without it the entry is gone
    uint64_t bytes = 0;
    fs::file_time_type used = fs::file_time_type::min();
  };
  std::map<std::string, Item> items;
  uint64_t total = 0;
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code statError;
    if (!it->is_regular_file(statError)) continue;
    fs::path path = it->path();
    std::string name = path.filename().string();
    uint64_t bytes = it->file_size(statError);
    fs::file_time_type modified = it->last_write_time(statError);
    if (statError) continue;
    if (name[0] == '.') {
      if (now - modified > std::chrono::hours(1)) fs::remove(path, statError);
      continue;
    }
    std::string stem = path.stem().string(), extension = path.extension().string();
    bool entry = (extension == ".json" || extension == ".o") && stem.size() == 32 &&
                 stem.find_first_not_of("0123456789abcdef") == std::string::npos;
    bool header = extension == ".pch" && (stem.rfind("stdlib-", 0) == 0 || stem.rfind("prefix-", 0) == 0);
    if (!entry && !header) continue;
    Item& item = items[header ? name : stem];
    if (extension == ".json") item.files.insert(item.files.begin(), path);
    else item.files.push_back(path);
    item.bytes += bytes;
    item.used = std::max(item.used, modified);
    total += bytes;
  }
  // When it was last looked at (trimmedRecently); not an entry, so the scan above passes it by.
  std::ofstream(dir_ + "/" + kLastTrim, std::ios::trunc);
  if (total <= target) return;
  std::vector<const Item*> oldestFirst;
  for (auto& [name, item] : items) oldestFirst.push_back(&item);
  std::sort(oldestFirst.begin(), oldestFirst.end(), [](const Item* a, const Item* b) { return a->used < b->used; });
  for (const Item* item : oldestFirst) {
    if (total <= target) break;
    for (const fs::path& file : item->files) fs::remove(file, ec);  // another process may have removed it
    total -= item->bytes;
  }
}

}  // namespace mslsim
