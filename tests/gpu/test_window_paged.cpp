// GPU tests of the sliding window (flash2's forward) and paged K/V (flash2's and flash3's forward,
// flashdecode and flashdecode-heads) against the double-precision CPU reference, outputs poisoned before each run
// (check_accuracy): every compiled variant of those kernels, fp16 and bf16, d = 64 and 128, on windows
// of one key, of every key (the causal mask alone), and between, whose edges cross tiles, with n ≠ n_kv
// both ways, grouped K/V heads; pages smaller than, equal to and larger than B_c, a sequence whose last
// page is partly filled, in token order and shuffled (the model's block table, sim/core/paging.h).
// Without a GPU the program says so and exits 77 (skipped).
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
constexpr std::uint64_t kPageSeed = 7;

struct Case {
  int batch, heads, kv_heads, n, n_kv;
  int window;     ///< 0: none (causal regardless)
  int page_size;  ///< 0: contiguous
  bool random;    ///< pages shuffled
};

/// flash2's forward: windows (causal) and pages.
const std::vector<Case> kFlash2Cases = {
    {1, 2, 0, 300, 300, 64, 0, false},     // a window crossing tiles, square
    {1, 2, 0, 200, 333, 100, 0, false},    // n < n_kv: the window starts past key 0 for every row
    {1, 2, 0, 333, 200, 50, 0, false},     // n > n_kv: rows 0 … 132 see no key
    {1, 2, 0, 256, 256, 1, 0, false},      // the diagonal alone
    {1, 2, 0, 257, 257, 257, 0, false},    // every key: the causal mask
    {2, 8, 2, 700, 700, 130, 0, false},    // grouped-query, two batches, several skipped tiles a block
    {1, 2, 0, 300, 300, 0, 16, false},     // pages of 16, in order, the last partly filled
    {1, 2, 0, 300, 300, 0, 64, true},      // pages of 64, shuffled
    {2, 4, 2, 200, 333, 0, 256, true},     // pages larger than B_c, shuffled, grouped
    {1, 4, 1, 500, 500, 96, 32, true},     // window and pages together, multi-query
};

/// flash3's forward (B_c = 128; its producer copies a paged tile by boxes of 16 rows, or whole where a
/// page holds whole tiles): pages of 16 (a tile of 8 pages; the last tile's boxes past the last page are
/// zero-filled by TMA), 32 and 64 (boxes), 128 (one page a tile) and 256, 1024 (a tile within a page:
/// whole copies), in order and shuffled; n and n_kv not multiples of the tile, n ≠ n_kv both ways,
/// grouped and multi-query K/V heads, a window with pages.
const std::vector<Case> kFlash3Cases = {
    {1, 2, 0, 300, 300, 0, 16, false},    // pages of 16 in order, the last of 19 partly filled
    {1, 2, 0, 300, 300, 0, 16, true},     // the same shuffled
    {1, 2, 0, 300, 300, 0, 64, true},     // pages of 64, shuffled
    {2, 4, 2, 200, 333, 0, 256, true},    // pages larger than B_c, shuffled, grouped, n < n_kv
    {1, 4, 4, 333, 200, 0, 128, true},    // a page a tile, n > n_kv (causal: rows 0 … 132 see no key)
    {2, 8, 2, 129, 1000, 0, 16, true},    // pages of 16, 63 a sequence, two batches, group 4
    {1, 2, 0, 700, 700, 0, 1024, false},  // one page longer than the sequence
    {1, 4, 1, 500, 500, 96, 32, true},    // window and pages together, multi-query
};

/// flashdecode(-heads): pages (no mask).
const std::vector<Case> kDecodeCases = {
    {1, 8, 2, 1, 1000, 0, 16, false},   // decode, group 4, pages of 16 in order
    {2, 8, 8, 1, 3000, 0, 64, true},    // decode, shuffled, two batches
    {1, 8, 1, 4, 777, 0, 128, true},    // 4 queries a head, multi-query
    {1, 4, 4, 1, 4100, 0, 256, true},   // pages of 256, the last of 4
    {1, 4, 2, 2, 600, 0, 1024, false},  // a page larger than the sequence
};

std::string describe(const KernelSpec& s) {
  return std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd " : " bwd ") +
         std::string(iosim::name(s.dtype)) + " d=" + std::to_string(s.d) + " B=" + std::to_string(s.batch) +
         " H=" + std::to_string(s.heads) + " KV=" + std::to_string(iosim::gpu::kv_head_count(s)) +
         " n=" + std::to_string(s.n) + " n_kv=" + std::to_string(s.n_kv) + (s.causal ? " causal" : "") +
         " window=" + std::to_string(s.window) + " page=" + std::to_string(s.page_size) +
         (s.page_order == PageOrder::random ? " random" : "") + " tile " + std::to_string(s.br) + "x" +
         std::to_string(s.bc) + " warps " + std::to_string(s.warps) + " stages " + std::to_string(s.stages);
}

std::string describe(const Accuracy& a) {
  return a.tensor + ": rel_error " + std::to_string(a.rel_error) + " (tolerance " + std::to_string(a.tolerance) +
         "), max_abs_error " + std::to_string(a.max_abs_error) + ", unwritten " + std::to_string(a.unwritten);
}

KernelSpec spec_of(std::string_view algo, const Case& c, int d, DType t, const KernelVariant& v, bool causal) {
  KernelSpec s{algo, Direction::fwd, c.batch, c.heads, c.n, c.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
  s.kv_heads = c.kv_heads;
  s.causal = causal;
  s.window = c.window;
  s.page_size = c.page_size;
  s.page_order = c.random ? PageOrder::random : PageOrder::contiguous;
  s.page_seed = c.random ? kPageSeed : 0;
  return s;
}

/// Runs every case on every compiled variant of `algo`; returns how many ran.
int run_cases(std::string_view algo, const std::vector<Case>& cases, bool causal) {
  int run = 0;
  for (const DType t : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      for (const KernelVariant& v : iosim::gpu::compiled_variants(algo, Direction::fwd, d, t)) {
        for (const Case& c : cases) {
          const KernelSpec spec = spec_of(algo, c, d, t, v, causal || c.window > 0);
          if (const std::string why = iosim::gpu::unsupported(spec); !why.empty()) {
            MESSAGE("not run: " << describe(spec) << ": " << why);
            continue;
          }
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

TEST_CASE("flash2 forward with a sliding window or paged K/V matches the double-precision reference") {
  CHECK(run_cases("flash2", kFlash2Cases, false) > 0);
}

TEST_CASE("flash2 forward, causal and paged, matches the reference") {
  std::vector<Case> causal_paged;
  for (Case c : kFlash2Cases) {
    if (c.page_size > 0 && c.window == 0) causal_paged.push_back(c);
  }
  CHECK(run_cases("flash2", causal_paged, true) > 0);
}

TEST_CASE("flash3 forward over paged K/V, causal or not, matches the double-precision reference") {
  // A Hopper GPU and a build with flash3 run the first compiled tile of fp16 at d = 128.
  const auto tiles = iosim::gpu::compiled_tiles("flash3", Direction::fwd, 128, DType::fp16);
  const KernelSpec probe{"flash3", Direction::fwd, 1, 1, 128, 128, 128, DType::fp16,
                         tiles.empty() ? 0 : tiles.front().first, tiles.empty() ? 0 : tiles.front().second};
  if (const std::string why = iosim::gpu::unsupported(probe); !why.empty()) {
    MESSAGE("skipped: " << why);  // not a Hopper GPU, or a build without flash3
    return;
  }
  CHECK(run_cases("flash3", kFlash3Cases, false) > 0);  // the window case is causal regardless
  CHECK(run_cases("flash3", kFlash3Cases, true) > 0);
}

TEST_CASE("flashdecode and flashdecode-heads over paged K/V match the double-precision reference") {
  CHECK(run_cases("flashdecode", kDecodeCases, false) > 0);
  CHECK(run_cases("flashdecode-heads", kDecodeCases, false) > 0);
}

TEST_CASE("kernels without pages refuse them in one line") {
  KernelSpec s = spec_of("naive", {1, 2, 0, 256, 256, 0, 16, false}, 64, DType::fp16, KernelVariant{}, true);
  const std::string why = iosim::gpu::unsupported(s);
  CHECK(why.find("no paged K/V") != std::string::npos);
  CHECK(why.find('\n') == std::string::npos);
}
