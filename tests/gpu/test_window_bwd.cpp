// GPU tests of the sliding window in naive's forward and backward (cuBLAS and the softmax kernels, which
// mask it), flash1's forward and flash1's and flash2's backward against the
// double-precision CPU reference, outputs poisoned before each run (check_accuracy): every compiled
// variant, fp16 and bf16, d = 64 and 128, on windows of one key, of one tile, of every key (the causal
// mask alone) and between, whose edges cross tiles, with n not a multiple of the tile, n ≠ n_kv both
// ways (keys before every row's window, rows that see no key), a window wider than n, grouped K/V
// heads. The backward's statistics come from the same schedule's forward, run with the window too.
// Without a GPU the program says so and exits 77 (skipped).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "cuda/backend.h"

namespace {

using iosim::DType;
using iosim::gpu::Accuracy;
using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::KernelVariant;

constexpr std::uint64_t kSeed = 20261207;

struct Case {
  int batch, heads, kv_heads, n, n_kv;
  int window;
};

const std::vector<Case> kCases = {
    {1, 2, 0, 300, 300, 97},    // square, n and W not multiples of the tile: both edges cross tiles
    {1, 2, 0, 333, 333, 64},    // a window of one tile
    {1, 2, 0, 256, 256, 1},     // the diagonal alone
    {1, 2, 0, 257, 257, 257},   // every key: the causal mask
    {1, 2, 0, 200, 500, 97},    // n < n_kv: keys 0 … 203 before every row's window, their K/V tiles skipped
    {1, 2, 0, 100, 400, 300},   // a window wider than n
    {1, 2, 0, 333, 200, 50},    // n > n_kv: rows 0 … 132 see no key
    {2, 8, 2, 520, 600, 130},   // grouped-query, two batches, n < n_kv, several skipped tiles a block
    {1, 4, 1, 520, 520, 200},   // multi-query, a window of three tiles and a bit
};

std::string describe(const KernelSpec& s) {
  return std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd " : " bwd ") +
         std::string(iosim::name(s.dtype)) + " d=" + std::to_string(s.d) + " B=" + std::to_string(s.batch) +
         " H=" + std::to_string(s.heads) + " KV=" + std::to_string(iosim::gpu::kv_head_count(s)) +
         " n=" + std::to_string(s.n) + " n_kv=" + std::to_string(s.n_kv) + " window=" + std::to_string(s.window) +
         " tile " + std::to_string(s.br) + "x" + std::to_string(s.bc) + " warps " + std::to_string(s.warps) +
         " stages " + std::to_string(s.stages);
}

std::string describe(const Accuracy& a) {
  return a.tensor + ": rel_error " + std::to_string(a.rel_error) + " (tolerance " + std::to_string(a.tolerance) +
         "), max_abs_error " + std::to_string(a.max_abs_error) + ", unwritten " + std::to_string(a.unwritten);
}

KernelSpec spec_of(std::string_view algo, Direction pass, const Case& c, int d, DType t, const KernelVariant& v) {
  KernelSpec s{algo, pass, c.batch, c.heads, c.n, c.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
  s.kv_heads = c.kv_heads;
  s.causal = true;
  s.window = c.window;
  return s;
}

/// Runs every case on every compiled variant of `algo`'s `pass` (naive: its one, cuBLAS's); returns how
/// many ran. A variant that refuses a case fails the test: every one of these kernels takes a window.
int run_cases(std::string_view algo, Direction pass) {
  int run = 0;
  for (const DType t : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      const std::vector<KernelVariant> variants =
          iosim::cuda_kernels(algo)->library ? std::vector<KernelVariant>{KernelVariant{}}
                              : iosim::gpu::compiled_variants(algo, pass, d, t);
      for (const KernelVariant& v : variants) {
        for (const Case& c : kCases) {
          const KernelSpec spec = spec_of(algo, pass, c, d, t, v);
          const std::string why = iosim::gpu::unsupported(spec);
          CHECK_MESSAGE(why.empty(), describe(spec) << ": " << why);
          if (!why.empty()) continue;
          ++run;
          for (const Accuracy& a : iosim::gpu::check_accuracy(spec, kSeed)) {
            CHECK_MESSAGE(a.passed(), describe(spec) << ": " << describe(a));
          }
        }
      }
    }
  }
  return run;
}

}  // namespace

TEST_CASE("naive forward and backward with a sliding window match the double-precision reference") {
  CHECK(run_cases("naive", Direction::fwd) > 0);
  CHECK(run_cases("naive", Direction::bwd) > 0);
}

TEST_CASE("flash1 forward with a sliding window matches the double-precision reference") {
  CHECK(run_cases("flash1", Direction::fwd) > 0);
}

TEST_CASE("flash1 backward with a sliding window matches the double-precision reference") {
  CHECK(run_cases("flash1", Direction::bwd) > 0);
}

TEST_CASE("flash2 backward with a sliding window matches the double-precision reference") {
  CHECK(run_cases("flash2", Direction::bwd) > 0);
}
