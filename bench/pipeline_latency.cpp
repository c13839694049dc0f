// Replays a corpus of recorded pipelines (MSLSIM_METAL_RECORD, docs/performance.md) through the
// Metal API as the program that made them did: newLibrary from the source with its options,
// newFunction with its function constants, newComputePipelineState. Times each pipeline from the
// request to a ready pipeline state (the library's creation counted with the first pipeline made
// from it) and prints percentiles. Run it twice over one MSLSIM_CACHE_DIR: the first run empty
// ("cold"), the second from the cache.
//
//   pipeline_latency CORPUS_DIR [--limit N] [--json FILE] [--label TEXT]
//
// Each distinct request (source, kernel, constants, defines, math mode) is replayed once, in the
// order first recorded. A request that fails to compile is counted apart (MLX asks for some that
// Metal's compiler rejects too). Speed is measured here, never asserted: ctest runs it on a small
// corpus only to see that it replays every record.
#define NS_PRIVATE_IMPLEMENTATION
#define MTL_PRIVATE_IMPLEMENTATION
#include <Foundation/Foundation.hpp>
#include <Metal/Metal.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = size_t(p / 100.0 * double(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  std::string corpus, jsonPath, label = "run";
  size_t limit = SIZE_MAX;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--limit" && i + 1 < argc) limit = std::stoul(argv[++i]);
    else if (a == "--json" && i + 1 < argc) jsonPath = argv[++i];
    else if (a == "--label" && i + 1 < argc) label = argv[++i];
    else if (!a.empty() && a[0] != '-' && corpus.empty()) corpus = a;
    else {
      std::fprintf(stderr, "usage: pipeline_latency CORPUS_DIR [--limit N] [--json FILE] [--label TEXT]\n");
      return 2;
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: pipeline_latency CORPUS_DIR [--limit N] [--json FILE] [--label TEXT]\n");
    return 2;
  }
  std::vector<json> requests;
  std::set<std::string> seen;
  try {
    std::istringstream lines(readFile(corpus + "/pipelines.jsonl"));
    std::string line;
    while (std::getline(lines, line) && requests.size() < limit) {
      if (line.empty()) continue;
      json r = json::parse(line);
      std::string key = r.dump();
      if (seen.insert(key).second) requests.push_back(std::move(r));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pipeline_latency: %s: %s\n", corpus.c_str(), e.what());
    return 2;
  }

  NS::AutoreleasePool* pool = NS::AutoreleasePool::alloc()->init();
  MTL::Device* device = MTL::CreateSystemDefaultDevice();
  if (!device) return 2;
  std::ofstream out;
  if (!jsonPath.empty()) out.open(jsonPath, std::ios::app);
  // Libraries by source, name and options: made once, as the program did.
  std::map<std::string, MTL::Library*> libraries;
  std::vector<double> ready, jitReady;
  std::map<std::string, std::pair<double, std::string>> slowest;  // kernel -> ms, source
  size_t failed = 0;
  for (const json& r : requests) {
    std::string libraryKey = r["source"].get<std::string>() + '\0' + r["name"].get<std::string>() + '\0' +
                             r["defines"].dump() + r["include_dirs"].dump() + (r["fast_math"].get<bool>() ? "f" : "");
    std::string kernel = r["kernel"];
    bool jit = r["name"] == "program_source";
    auto start = Clock::now();
    NS::Error* error = nullptr;
    MTL::Library*& library = libraries[libraryKey];
    std::string failure;
    if (!library) {
      if (jit) {
        MTL::CompileOptions* options = MTL::CompileOptions::alloc()->init();
        options->setFastMathEnabled(r["fast_math"].get<bool>());
        std::string text = readFile(corpus + "/" + r["source"].get<std::string>());
        library = device->newLibrary(NS::String::string(text.c_str(), NS::UTF8StringEncoding), options, &error);
        options->release();
      } else {
        // A file of a library manifest (MLX's default library): a manifest of that file alone,
        // with the recorded include directories, macros and math mode.
        std::string manifest = jsonPath.empty() ? "/tmp/pipeline_latency.metallib" : jsonPath + ".metallib";
        {
          std::ofstream m(manifest);
          m << "#!mslsim-library\n" << (r["fast_math"].get<bool>() ? "-ffast-math\n" : "-fno-fast-math\n");
          for (auto& dir : r["include_dirs"]) m << "-I " << dir.get<std::string>() << "\n";
          for (auto& define : r["defines"]) m << "-D" << define.get<std::string>() << "\n";
          m << r["name"].get<std::string>() << "\n";
        }
        library = device->newLibrary(NS::String::string(manifest.c_str(), NS::UTF8StringEncoding), &error);
      }
      if (!library) failure = error ? error->localizedDescription()->utf8String() : "no library";
    }
    MTL::ComputePipelineState* pipeline = nullptr;
    if (library) {
      MTL::FunctionConstantValues* constants = MTL::FunctionConstantValues::alloc()->init();
      for (auto& c : r["constants"]) {
        // Recorded as numbers; replayed as the widest type of their kind (mslsim keeps a double).
        double v = c[1];
        if (v == double(int64_t(v))) {
          int64_t i = int64_t(v);
          constants->setConstantValue(&i, MTL::DataTypeLong, c[0].get<unsigned>());
        } else {
          float f = float(v);
          constants->setConstantValue(&f, MTL::DataTypeFloat, c[0].get<unsigned>());
        }
      }
      MTL::Function* function =
          library->newFunction(NS::String::string(kernel.c_str(), NS::UTF8StringEncoding), constants, &error);
      if (function) {
        pipeline = device->newComputePipelineState(function, &error);
        function->release();
      }
      constants->release();
      if (!pipeline) failure = error ? error->localizedDescription()->utf8String() : "no pipeline";
    }
    double ms = msSince(start);
    if (pipeline) {
      pipeline->release();
      ready.push_back(ms);
      if (jit) jitReady.push_back(ms);
      auto& s = slowest[kernel];
      if (ms > s.first) s = {ms, r["source"]};
    } else {
      ++failed;
    }
    if (out) {
      json line = {{"label", label}, {"source", r["source"]}, {"kernel", kernel}, {"jit", jit},
                   {"ms", ms}, {"ok", bool(pipeline)}};
      if (!pipeline) line["error"] = failure.substr(0, 300);
      out << line.dump() << std::endl;  // a run stopped early keeps what it measured
    }
  }
  for (auto& [key, library] : libraries)
    if (library) library->release();

  std::printf("| %s | pipelines | failed | p50 ms | p90 ms | p99 ms | max ms | total s |\n", label.c_str());
  std::printf("|---|---|---|---|---|---|---|---|\n");
  auto row = [&](const char* what, const std::vector<double>& v) {
    double total = 0;
    for (double x : v) total += x;
    std::printf("| %s | %zu | %s | %.1f | %.1f | %.1f | %.1f | %.1f |\n", what, v.size(),
                what == std::string("all") ? std::to_string(failed).c_str() : "", percentile(v, 50),
                percentile(v, 90), percentile(v, 99), v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()),
                total / 1000);
  };
  row("all", ready);
  row("JIT libraries", jitReady);
  std::vector<std::pair<double, std::string>> worst;
  for (auto& [kernel, s] : slowest) worst.push_back({s.first, kernel});
  std::sort(worst.rbegin(), worst.rend());
  std::printf("\nslowest: ");
  for (size_t i = 0; i < worst.size() && i < 8; ++i) std::printf("%s%s %.0f ms", i ? ", " : "", worst[i].second.c_str(), worst[i].first);
  std::printf("\n");
  pool->release();
  return 0;
}
