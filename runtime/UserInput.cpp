#include "UserInput.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace mslsim {

CheckSet parseCheckList(const std::string& list) {
  if (list == "all") return CheckSet::all();
  CheckSet set = CheckSet::none();
  if (list == "none") return set;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "races") set.races = true;
    else if (item == "bounds") set.bounds = true;
    else if (item == "uninit") set.uninit = true;
    else if (item == "sync") set.sync = true;
    else if (item == "simd") set.simd = true;
    else if (item == "align") set.align = true;
    else if (item == "all") {
      bool align = set.align;  // `all,align`: every check and the opt-in one
      set = CheckSet::all();
      set.align = align;
    } else throw Error("--check: unknown check '" + item + "' (races, bounds, uninit, sync, simd, align, all, none)");
  }
  return set;
}

Schedule parseSchedule(const std::string& text) {
  Schedule s;
  if (text == "in-order") return s;
  if (text == "reverse") {
    s.order = Schedule::Order::Reverse;
    return s;
  }
  if (text == "random" || text.rfind("random:", 0) == 0) {
    s.order = Schedule::Order::Random;
    s.seed = 1;
    if (text.size() > 7) {
      try {
        size_t used = 0;
        s.seed = std::stoull(text.substr(7), &used);
        if (used != text.size() - 7) throw std::invalid_argument(text);
      } catch (const std::logic_error&) {
        throw Error("--schedule " + text + ": SEED must be a non-negative integer");
      }
    }
    return s;
  }
  throw Error("--schedule " + text + ": expected in-order, reverse, random or random:SEED");
}

TierPolicy parseTierPolicy(const std::string& text, const std::string& what) {
  if (text == "optimised") return TierPolicy::Optimised;
  if (text == "quick") return TierPolicy::Quick;
  if (text == "adaptive") return TierPolicy::Adaptive;
  throw Error(what + " '" + text + "': expected optimised, quick or adaptive");
}

std::string readTextFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) throw Error(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot open file (" + std::strerror(errno) + ")");
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, size_t(in.gcount()));
    if (text.size() > kMaxTextFileBytes)
      throw Error(path + ": larger than " + std::to_string(kMaxTextFileBytes >> 20) +
                  " MiB, the most mslsim reads from a source or spec file");
  }
  if (in.bad()) throw Error(path + ": cannot read file");
  return text;
}

std::map<unsigned, BufferView> readBufferSpecs(const std::map<unsigned, std::string>& specs,
                                               std::map<unsigned, HostArray>& storage, const std::string& baseDir,
                                               const std::string& what) {
  static const std::regex viewPattern(R"(@(\d+)(?:\+(\d+))?)");
  std::map<unsigned, BufferView> views;
  for (auto& [index, spec] : specs) {
    std::string label = what + " " + std::to_string(index) + "=" + spec;
    if (spec.empty()) throw Error(label + ": nothing after '=' (a FILE.npy, a generated buffer such as "
                                  "zeros:float32:1024, or @INDEX for a view of another buffer)");
    if (spec[0] != '@') {
      storage[index] = parseBufferSpec(spec, baseDir);
      continue;
    }
    std::smatch m;
    if (!std::regex_match(spec, m, viewPattern))
      throw Error(label + ": expected @INDEX or @INDEX+BYTES for a view of another buffer");
    try {
      views[index] = {unsigned(std::stoul(m[1].str())), m[2].matched ? uint64_t(std::stoull(m[2].str())) : 0};
    } catch (const std::out_of_range&) {
      throw Error(label + ": index or offset out of range");
    }
  }
  for (auto& [index, view] : views) {
    unsigned of = view.allocation;
    if (!storage.count(of) || !specs.count(of))
      throw Error(what + " " + std::to_string(index) + "=@" + std::to_string(of) + ": buffer " + std::to_string(of) +
                  " is " +
                  (views.count(of) ? std::string("itself a view (name the allocation's own index)")
                                   : "not given (add " + what + " " + std::to_string(of) + "=SPEC)"));
  }
  return views;
}

}  // namespace mslsim
