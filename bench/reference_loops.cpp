// Plain single-threaded C++ loops, compiled -O2: the native reference the benchmark kernels are
// measured against. They read the same .npy inputs as the kernels and write their result as .npy,
// so bench/run.py verifies them against numpy like every other run.
//
// Usage: reference_loops KERNEL REPEATS OUT.npy IN.npy...   -> prints "median_ms=F min_ms=F"
//   add OUT A B | softcap OUT X (cap 5) | gemm OUT A B (square) | reduce OUT X (sums of 256)
//   | depthwise OUT X[B][C][L] K[C][3] | scan OUT X (exclusive scans of 256)
//   | softmax OUT X[R][W] (per row) | rmsnorm OUT X[R][W] W[W] (per row, eps 1e-5)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "npy.h"

namespace {

constexpr size_t kGroup = 256;  // the kernels' threadgroup size: reduce and scan work per group

void timeIt(const std::function<void()>& f, int repeats) {
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("median_ms=%.3f min_ms=%.3f\n", ms[ms.size() / 2], ms[0]);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: reference_loops add|softcap|gemm|reduce|depthwise|scan|softmax|rmsnorm REPEATS OUT.npy IN.npy...\n");
    return 2;
  }
  std::string which = argv[1];
  int repeats = std::atoi(argv[2]);
  std::string outPath = argv[3];
  std::vector<npy::Array> in;
  for (int i = 4; i < argc; ++i) in.push_back(npy::load(argv[i]));
  const float* x = in[0].f32();
  const size_t n = in[0].count();
  std::vector<float> out;

  std::function<void()> run;  // captures the branch's locals by value: they go out of scope
  if (which == "add") {
    const float* b = in.at(1).f32();
    out.resize(n);
    run = [=, &out] {
      for (size_t i = 0; i < n; ++i) out[i] = x[i] + b[i];
    };
  } else if (which == "softcap") {
    const float cap = 5.0f;
    out.resize(n);
    run = [=, &out] {
      for (size_t i = 0; i < n; ++i) out[i] = cap * std::tanh(x[i] / cap);
    };
  } else if (which == "gemm") {
    // i-k-j order: the inner loop runs along rows of B and C, which -O2 vectorises.
    const size_t m = in[0].shape.at(0);
    const float* b = in.at(1).f32();
    out.resize(m * m);
    run = [=, &out] {
      std::fill(out.begin(), out.end(), 0.0f);
      for (size_t i = 0; i < m; ++i)
        for (size_t k = 0; k < m; ++k) {
          float aik = x[i * m + k];
          for (size_t j = 0; j < m; ++j) out[i * m + j] += aik * b[k * m + j];
        }
    };
  } else if (which == "reduce") {
    out.resize(n / kGroup);
    run = [=, &out] {
      for (size_t g = 0; g < n / kGroup; ++g) {
        float sum = 0.0f;
        for (size_t i = 0; i < kGroup; ++i) sum += x[g * kGroup + i];
        out[g] = sum;
      }
    };
  } else if (which == "depthwise") {
    const size_t C = in[0].shape.at(1), L = in[0].shape.at(2);
    const float* k = in.at(1).f32();
    out.resize(n);
    run = [=, &out] {
      for (size_t row = 0; row < n / L; ++row) {
        const float* k3 = k + (row % C) * 3;
        const float* xr = x + row * L;
        float* yr = out.data() + row * L;
        for (size_t t = 0; t < L; ++t) {
          float v0 = t >= 1 ? xr[t - 1] : 0.0f;
          float v2 = t + 1 < L ? xr[t + 1] : 0.0f;
          yr[t] = v0 * k3[0] + xr[t] * k3[1] + v2 * k3[2];  // libm's fma() would be a call
        }
      }
    };
  } else if (which == "scan") {
    out.resize(n);
    run = [=, &out] {
      for (size_t g = 0; g < n / kGroup; ++g) {
        float running = 0.0f;
        for (size_t i = g * kGroup; i < (g + 1) * kGroup; ++i) {
          out[i] = running;
          running += x[i];
        }
      }
    };
  } else if (which == "softmax") {
    // Three passes over each row, as the kernel makes them: its maximum, the sum of exponentials,
    // the normalised exponentials.
    const size_t width = in[0].shape.at(1);
    out.resize(n);
    run = [=, &out] {
      for (size_t r = 0; r < n / width; ++r) {
        const float* xr = x + r * width;
        float* yr = out.data() + r * width;
        float m = -INFINITY;
        for (size_t i = 0; i < width; ++i) m = std::max(m, xr[i]);
        float sum = 0.0f;
        for (size_t i = 0; i < width; ++i) sum += std::exp(xr[i] - m);
        const float inv = 1.0f / sum;
        for (size_t i = 0; i < width; ++i) yr[i] = std::exp(xr[i] - m) * inv;
      }
    };
  } else if (which == "rmsnorm") {
    const size_t width = in[0].shape.at(1);
    const float* w = in.at(1).f32();
    out.resize(n);
    run = [=, &out] {
      for (size_t r = 0; r < n / width; ++r) {
        const float* xr = x + r * width;
        float* yr = out.data() + r * width;
        float squares = 0.0f;
        for (size_t i = 0; i < width; ++i) squares += xr[i] * xr[i];
        const float scale = 1.0f / std::sqrt(squares / float(width) + 1e-5f);
        for (size_t i = 0; i < width; ++i) yr[i] = xr[i] * scale * w[i];
      }
    };
  } else {
    std::fprintf(stderr, "unknown benchmark %s\n", which.c_str());
    return 2;
  }
  run();  // warm-up: page in the output
  timeIt(run, repeats);
  npy::save(outPath, "<f4", out.data(), out.size());
  return 0;
}
