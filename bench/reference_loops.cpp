// Plain single-threaded C++ loops, compiled -O2: the reference mslsim's kernels are measured against.
// Usage: reference_loops softcap N | gemm N   -> prints "median_ms=F min_ms=F checksum=F"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

template <class F>
void timeIt(F&& f, int repeats, double checksum) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("median_ms=%.3f min_ms=%.3f checksum=%.6g\n", ms[ms.size() / 2], ms[0], checksum);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: reference_loops softcap|gemm N\n");
    return 2;
  }
  std::string which = argv[1];
  long n = std::atol(argv[2]);
  if (which == "softcap") {
    std::vector<float> x(n), y(n);
    for (long i = 0; i < n; ++i) x[i] = float((i * 7919) % 2001 - 1000) * 0.01f;
    const float cap = 5.0f;
    auto run = [&] {
      for (long i = 0; i < n; ++i) y[i] = cap * std::tanh(x[i] / cap);
    };
    run();
    double sum = 0;
    for (float v : y) sum += v;
    timeIt(run, 3, sum);
  } else if (which == "gemm") {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (long i = 0; i < n * n; ++i) {
      a[i] = float(i % 17) * 0.25f;
      b[i] = float(i % 13) * 0.5f;
    }
    auto run = [&] {
      std::fill(c.begin(), c.end(), 0.0f);
      for (long i = 0; i < n; ++i)
        for (long k = 0; k < n; ++k) {
          float aik = a[i * n + k];
          for (long j = 0; j < n; ++j) c[i * n + j] += aik * b[k * n + j];
        }
    };
    run();
    double sum = 0;
    for (float v : c) sum += v;
    timeIt(run, 3, sum);
  } else {
    std::fprintf(stderr, "unknown benchmark %s\n", which.c_str());
    return 2;
  }
  return 0;
}
