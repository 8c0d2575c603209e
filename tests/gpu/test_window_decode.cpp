// GPU tests of the sliding window in the decoding kernels (cuda/kernels/flashdecode.cuh: flashdecode and
// flashdecode-heads, split and combine) against the double-precision CPU reference, outputs (O, L and
// the partials) poisoned before each run (check_accuracy): every compiled variant, fp16 and bf16, d = 64
// and 128, on windows of one key, of every key and between, not multiples of the tile, over an n_kv that
// is not one either; one query and several (per query head, more than one row tile: tiles skipped by
// the causal mask alone too), n > n_kv (rows that see no key: O = 0, L = −inf, no NaN), grouped K/V
// heads; contiguous K/V and pages of 16 and 64 shuffled; the heuristic's split count (with a window most
// splits hold no tile) and forced ones. Without a GPU the program says so and exits 77 (skipped).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "cuda/backend.h"

namespace {

using iosim::DType;
using iosim::PageOrder;
using iosim::gpu::Accuracy;
using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::KernelVariant;

constexpr std::uint64_t kSeed = 20261206;
constexpr std::uint64_t kPageSeed = 11;

struct Case {
  int batch, heads, kv_heads, n, n_kv;
  int window;     ///< 0: the causal mask alone
  int page_size;  ///< 0: contiguous
  bool random;    ///< pages shuffled
};

const std::vector<Case> kCases = {
    {1, 8, 2, 1, 1000, 100, 0, false},   // one query, group 4, a window crossing tiles of a ragged n_kv
    {1, 8, 2, 1, 1000, 1, 0, false},     // the last key alone
    {1, 8, 2, 1, 1000, 1000, 0, false},  // every key
    {2, 8, 8, 1, 3001, 700, 16, true},   // pages of 16 shuffled, two batches, group 1
    {1, 8, 1, 4, 777, 300, 64, true},    // 4 queries a head, multi-query, pages of 64 shuffled
    {1, 4, 2, 100, 900, 130, 64, true},  // 100 queries: two row tiles per query head, each its own run
    {1, 4, 4, 100, 900, 0, 0, false},    // the causal mask alone over two row tiles
    {1, 4, 2, 80, 60, 20, 0, false},     // n > n_kv: positions 0 … 19 see no key
    {1, 2, 1, 1, 1024, 257, 16, false},  // pages of 16 in order, a window one past a tile
};

std::string describe(const KernelSpec& s) {
  return std::string(s.schedule) + " " + std::string(iosim::name(s.dtype)) + " d=" +
         std::to_string(s.d) + " B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) +
         " KV=" + std::to_string(iosim::gpu::kv_head_count(s)) + " n=" + std::to_string(s.n) +
         " n_kv=" + std::to_string(s.n_kv) + " window=" + std::to_string(s.window) +
         " page=" + std::to_string(s.page_size) + (s.page_order == PageOrder::random ? " random" : "") +
         " splits=" + std::to_string(s.splits) + " tile " + std::to_string(s.br) + "x" + std::to_string(s.bc) +
         " stages " + std::to_string(s.stages);
}

std::string describe(const Accuracy& a) {
  return a.tensor + ": rel_error " + std::to_string(a.rel_error) + " (tolerance " + std::to_string(a.tolerance) +
         "), max_abs_error " + std::to_string(a.max_abs_error) + ", unwritten " + std::to_string(a.unwritten);
}

KernelSpec spec_of(std::string_view algo, const Case& c, int d, DType t, const KernelVariant& v, int splits) {
  KernelSpec s{algo, Direction::fwd, c.batch, c.heads, c.n, c.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
  s.kv_heads = c.kv_heads;
  s.causal = true;
  s.window = c.window;
  s.page_size = c.page_size;
  s.page_order = c.random ? PageOrder::random : PageOrder::contiguous;
  s.page_seed = c.random ? kPageSeed : 0;
  s.splits = splits;
  return s;
}

/// Checks one spec; false when it is refused (said why).
bool check(const KernelSpec& spec) {
  if (const std::string why = iosim::gpu::unsupported(spec); !why.empty()) {
    MESSAGE("not run: " << describe(spec) << ": " << why);
    return false;
  }
  for (const Accuracy& a : iosim::gpu::check_accuracy(spec, kSeed)) {
    CHECK_MESSAGE(a.passed(), describe(spec) << ": " << describe(a));
  }
  return true;
}

/// Runs every case on every compiled variant of `algo` with the heuristic's splits and with 3 (uneven
/// over most n_kv here); returns how many ran.
int run_cases(std::string_view algo) {
  int run = 0;
  for (const DType t : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      for (const KernelVariant& v : iosim::gpu::compiled_variants(algo, Direction::fwd, d, t)) {
        for (const Case& c : kCases) {
          for (const int splits : {0, 3}) run += check(spec_of(algo, c, d, t, v, splits)) ? 1 : 0;
        }
      }
    }
  }
  return run;
}

}  // namespace

TEST_CASE("flashdecode with a sliding window matches the double-precision reference") {
  CHECK(run_cases("flashdecode") > 0);
}

TEST_CASE("flashdecode-heads with a sliding window matches the double-precision reference") {
  CHECK(run_cases("flashdecode-heads") > 0);
}

TEST_CASE("a window over a long cache: splits that hold no tile leave no trace in O and L") {
  // n_kv 16384 in tiles of 256 or 128: the window's 4 to 9 tiles fall in one or two of many splits.
  for (const std::string_view algo : {"flashdecode", "flashdecode-heads"}) {
    for (const int d : {64, 128}) {
      const KernelVariant v = iosim::gpu::compiled_variants(algo, Direction::fwd, d, DType::fp16).front();
      for (const int splits : {0, 1, 7, 64}) {
        for (const Case& c : {Case{2, 8, 2, 1, 16384, 1024, 0, false}, Case{2, 8, 2, 1, 16384, 1000, 64, true}}) {
          CHECK(check(spec_of(algo, c, d, DType::fp16, v, splits)));
        }
      }
    }
  }
}

TEST_CASE("the window still needs the causal mask and at most n_kv keys, in one line") {
  const KernelVariant v = iosim::gpu::compiled_variants("flashdecode", Direction::fwd, 64, DType::fp16).front();
  KernelSpec s = spec_of("flashdecode", {1, 8, 2, 1, 1000, 100, 0, false}, 64, DType::fp16, v, 0);
  CHECK(iosim::gpu::unsupported(s).empty());
  s.causal = false;
  const std::string why = iosim::gpu::unsupported(s);
  CHECK(why.find("--window needs the causal mask") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
  s.causal = true;
  s.window = 1001;
  CHECK(iosim::gpu::unsupported(s).find("--window must be at most n_kv") != std::string::npos);
}
