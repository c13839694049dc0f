#include <mslsim/mslsim.h>

namespace mslsim {

const BuildInfo& buildInfo() {
  static const BuildInfo info{MSLSIM_VERSION, MSLSIM_GIT_COMMIT, MSLSIM_LLVM_VERSION};
  return info;
}

std::string versionText() {
  const BuildInfo& b = buildInfo();
  return "mslsim " + b.version + " (commit " + b.commit + "), LLVM/Clang " + b.llvm;
}

}  // namespace mslsim
