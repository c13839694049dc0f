// mslsim's plain data types, shared by the public API (mslsim.h) and the library's internals:
// element types, dispatch geometry, source positions, diagnostics, checker findings, options.
// No LLVM or Clang types here.
#pragma once

#include <array>
#include <atomic>
#include <functional>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace mslsim {

// A user mistake (bad file, bad argument, unknown kernel): reported as one line, exit status 2.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class DType {
  Float32, Float16, BFloat16, Int8, Int16, Int32, Int64, UInt8, UInt16, UInt32, UInt64, Bool,
  Float64,    // MLX has it; Metal does not (kernels using it do not compile on a GPU)
  Complex64,  // two float32, real first (MLX's complex64_t)
};

const char* dtypeName(DType t);                  // "float32", ...
bool parseDType(const std::string& name, DType& out);
unsigned dtypeSize(DType t);
bool isFloating(DType t);
std::string allDTypeNames();                     // for error messages

using Size3 = std::array<uint32_t, 3>;

enum class DispatchMode {
  Threads,       // grid counts threads (dispatchThreads); edge threadgroups are smaller
  Threadgroups,  // grid counts threadgroups (dispatchThreadgroups)
};

struct SourcePosition {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
};

struct Diagnostic {
  enum class Severity { Note, Warning, Error };
  Severity severity = Severity::Error;
  SourcePosition where;     // file is empty when the diagnostic has no location
  std::string message;
  std::string sourceLine;   // the original (not rewritten) line, if known
};

// "file:line:col: error: message" followed by the source line and a caret.
std::string formatDiagnostic(const Diagnostic& diagnostic);

// One side of a finding: who did what where.
struct AccessRecord {
  std::string op;        // "read", "write", "atomic read-modify-write", "SIMD-group function call", ...
  SourcePosition where;  // the user's file:line:column
  Size3 threadgroup{0, 0, 0};
  Size3 thread{0, 0, 0};  // thread_position_in_threadgroup
  uint32_t lane = 0;      // thread_index_in_simdgroup
};

struct Finding {
  enum class Severity { Warning, Error };
  Severity severity = Severity::Error;
  std::string kind;  // "data-race", "out-of-bounds", "barrier-divergence", "timeout", ...
  std::string message;
  std::vector<SourcePosition> locations;  // the source lines involved
  // Memory findings: where, and the accesses involved (the first occurrence).
  std::string memorySpace;  // "threadgroup", "device", "constant"
  std::string memory;       // "threadgroup variable 'tile'[17]", "buffer 1 (argument 'out')[1000]"
  struct Location {
    int buffer = -1;          // [[buffer(n)]] / [[threadgroup(n)]] index
    std::string argument;     // the kernel argument's name
    std::string variable;     // a threadgroup variable's name
    int64_t element = 0;      // element index (in units of the element type, else of the access)
    int64_t byteOffset = 0;   // from the argument's pointer, or the variable's start
  } location;
  std::string hazard;       // races: "read-write", "write-read", "write-write"
  std::vector<AccessRecord> accesses;
  std::string hint;
  uint64_t count = 1;       // occurrences folded into this finding
};

// Which checks a dispatch runs (`--check races,bounds,uninit,sync,simd,align`).
struct CheckSet {
  bool races = false, bounds = true, uninit = false, sync = true, simd = false;
  bool reportUniformWrites = false;
  // Vector accesses at addresses their type is not aligned to (Apple GPUs execute them): opt-in,
  // not part of `all`.
  bool align = false;
  bool needsInstrumentation() const { return races || bounds || uninit || align; }
  static CheckSet none() { return {false, false, false, false, false, false, false}; }
  static CheckSet all() { return {true, true, true, true, true, false, false}; }
};
// Parses a `--check` list: "races,bounds,uninit,sync,simd,align", "all", "none" (throws Error).
CheckSet parseCheckList(const std::string& list);

// How kernels' code is made (docs/architecture.md, "Code tiers"). Every choice computes the
// same bytes and reports the same findings; they trade the time to a ready kernel against its speed.
enum class TierPolicy {
  Optimised,  // the fastest code, made at once: the CLI's and the C++ and Python APIs' default
  Quick,      // code made in a fraction of the time, which runs slower
  Adaptive,   // quick first; the optimised code once the kernel's dispatches are worth it (the
              // Metal API's default: programs make hundreds of pipelines and most run briefly)
};
// Parses "optimised", "quick" or "adaptive" (throws Error naming `what`, e.g. "--tier").
TierPolicy parseTierPolicy(const std::string& text, const std::string& what);

// The findings of one dispatch, by kernel name.
struct KernelFindings {
  std::string kernel;
  std::vector<Finding> findings;
};
// Findings of one or more dispatches as one SARIF 2.1.0 log (one run; a result per finding, its
// message naming the kernel): what `mslsim run --report-sarif` and MSLSIM_METAL_REPORT_SARIF write.
std::string findingsToSarif(const std::vector<KernelFindings>& dispatches);

// Findings judged and set aside: a known bug in a library a program uses (MLX's kernels) need not
// stop the program, nor hide the findings in the program's own code (docs/checks.md,
// "Suppressions"). A suppressions file holds one rule a line, `#` to the end of a line a comment:
//   KIND [kernel=GLOB] [at=FILE[:LINE]]   # why
// KIND is a finding's kind (out-of-bounds, data-race, ...) or *; GLOB matches the kernel's name
// (fnmatch: * ? [...]); FILE matches the end of one of the finding's source paths at a directory
// boundary, LINE its line. Safe to share between threads and dispatches.
class Suppressions {
 public:
  // Throws Error naming the file and line of a rule it cannot read.
  static std::shared_ptr<Suppressions> fromFile(const std::string& path);
  static std::shared_ptr<Suppressions> fromText(const std::string& text, const std::string& fileName);
  // Whether a rule matches; the first that does counts the use.
  bool suppresses(const std::string& kernel, const Finding& finding) const;
  struct Rule {
    std::string kind, kernel, file;
    unsigned line = 0;     // 0: any line
    std::string source;    // "FILE:LINE" of the rule, for messages
    std::string text;      // the rule as written, without its comment
  };
  const std::vector<Rule>& rules() const { return rules_; }
  uint64_t uses(size_t rule) const { return uses_[rule].load(); }
  // One line per rule that matched nothing so far: "unused suppression FILE:LINE: RULE".
  std::vector<std::string> unusedRules() const;
  uint64_t suppressedCount() const;
  // What a front door says at the end: "N findings suppressed by PATH" (when any were), then the
  // unused rules.
  std::vector<std::string> summary(const std::string& path) const;

 private:
  std::vector<Rule> rules_;
  std::unique_ptr<std::atomic<uint64_t>[]> uses_;
};

// The order in which threads of a threadgroup run between synchronisation points, and in which
// threadgroups are taken (`--schedule`). Order-dependent results (a race the checks were not asked
// to find) show up as different outputs under different schedules.
struct Schedule {
  enum class Order { InOrder, Reverse, Random };
  Order order = Order::InOrder;
  uint64_t seed = 0;
};

// How to run a dispatch beyond its geometry.
struct DispatchOptions {
  double timeoutSeconds = 60;
  unsigned workers = 0;  // threads running threadgroups at once; 0: one per core (one when races or
                        // uninit are checked, so that reports name the same threads every run)
  CheckSet checks;       // default: bounds, sync
  Schedule schedule;
  // Kernels with barriers or SIMD-group functions run each SIMD-group's lanes as vector lanes when
  // the JIT could vectorise them (`--simd-lanes vector`, the default), unchecked or under checks
  // whose answer depends on the access alone (bounds, sync), in the default order; false runs
  // every thread on its own (`--simd-lanes threads`), the path the other checks and schedules take.
  bool vectorLanes = true;
  std::string watch;      // `--watch` element, printed through `log`
  std::string traceFile;  // `--trace` output
  std::function<void(const std::string&)> log;
  unsigned maxErrors = 0;
  // Findings these rules match are dropped from the dispatch's result (they still count toward
  // maxErrors and the progress line's findings while it runs).
  std::shared_ptr<const Suppressions> suppressions;
  // Record which thread last wrote each element of every buffer (checked builds; one worker), so
  // a wrong output can be traced to the thread that produced it.
  bool trackWriters = false;
  // Called on the dispatching thread about every 100 ms while the dispatch runs, and once when it
  // ends, with the threadgroups finished, their total and the distinct findings reported so far
  // (the CLI's progress line, Python's progress=).
  std::function<void(uint64_t done, uint64_t total, uint64_t findings)> progress;
};

// The thread that last wrote an element of a buffer (DispatchOptions::trackWriters).
struct ElementWriter {
  bool written = false;
  Size3 threadgroup{0, 0, 0};
  Size3 thread{0, 0, 0};  // thread_position_in_threadgroup
};

}  // namespace mslsim
