// GPU tests of flash3 through the backend (cuda/kernels/flash3/refusals.h, the registry's flash3 rows): the kernel as `iosim measure`
// and `validate` run it — its registry entry, AttentionBuffers' tensors — against the double reference,
// and the bytes TMA loads counted exactly, paged K/V too. Skipped (one message) where the GPU is not
// Hopper or the build has no flash3; the kernel's own harness (flash3_check) tests it more widely. The
// sliding window is tested here only (flash3_check has none).
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "cuda/backend.h"

namespace {

using namespace iosim::gpu;
using iosim::DType;

KernelSpec spec_of(int batch, int heads, int kv_heads, int n, int n_kv, bool causal, DType t = DType::fp16) {
  KernelSpec s;
  s.schedule = "flash3";
  s.pass = Direction::fwd;
  s.batch = batch;
  s.heads = heads;
  s.kv_heads = kv_heads;
  s.n = n;
  s.n_kv = n_kv;
  s.d = 128;
  s.dtype = t;
  s.causal = causal;
  const auto tiles = compiled_tiles("flash3", Direction::fwd, s.d, t);
  if (!tiles.empty()) {
    s.br = tiles.front().first;
    s.bc = tiles.front().second;
  }
  return s;
}

/// Why flash3 cannot run here, or empty.
std::string cannot_run() { return unsupported(spec_of(1, 1, 0, 128, 128, false)); }

}  // namespace

TEST_CASE("flash3 through the backend matches the double-precision reference") {
  if (const std::string why = cannot_run(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  const std::vector<KernelSpec> cases = {spec_of(1, 4, 0, 1024, 1024, false), spec_of(2, 3, 0, 1000, 777, false),
                                         spec_of(1, 4, 0, 1500, 1500, true),  spec_of(1, 4, 0, 1000, 1800, true),
                                         spec_of(2, 8, 2, 640, 640, false),   spec_of(1, 8, 4, 1500, 1500, true)};
  for (const KernelSpec& s : cases) {
    CAPTURE(s.batch);
    CAPTURE(s.heads);
    CAPTURE(s.kv_heads);
    CAPTURE(s.n);
    CAPTURE(s.n_kv);
    CAPTURE(s.causal);
    for (const Accuracy& a : check_accuracy(s, 12)) {
      CAPTURE(a.tensor);
      CAPTURE(a.rel_error);
      CHECK(a.unwritten == 0);
      CHECK(a.passed());
    }
  }
}

TEST_CASE("measure of flash3: the TMA counter sees Q once and K, V once per Q tile, exactly") {
  if (const std::string why = cannot_run(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  const KernelSpec s = spec_of(1, 4, 0, 1024, 1024, false);
  MeasureOptions opt;
  opt.runs = 3;
  opt.warmup = 1;
  const Measurement m = measure(s, opt);
  CHECK(m.tma_loads);
  if (!m.has_counters || !m.has_tma_counter) {
    MESSAGE("counters not collected: " << m.counters_error);
    return;
  }
  const std::uint64_t elem = 2, d = 128, n = 1024, heads = 4, q_tiles = n / static_cast<std::uint64_t>(s.br);
  const std::uint64_t bytes = heads * (n * d * elem + q_tiles * 2 * n * d * elem);
  MESSAGE("TMA read bytes " << m.counters.tma_read_bytes << ", lts read sectors x 32 " << m.counters.l2_read_sectors * 32);
  CHECK(m.counters.tma_read_bytes == static_cast<double>(bytes));
  // Paged (pages of 64 dividing n_kv, shuffled): the same bytes, by 16-row copies from the pages' slots.
  KernelSpec paged = s;
  paged.page_size = 64;
  paged.page_order = iosim::PageOrder::random;
  paged.page_seed = 5;
  REQUIRE(unsupported(paged).empty());
  const Measurement mp = measure(paged, opt);
  REQUIRE(mp.has_counters);
  REQUIRE(mp.has_tma_counter);
  MESSAGE("paged: TMA read bytes " << mp.counters.tma_read_bytes);
  CHECK(mp.counters.tma_read_bytes == static_cast<double>(bytes));
}

TEST_CASE("flash3 with a sliding window, forward and backward, matches the double-precision reference") {
  if (const std::string why = cannot_run(); !why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  struct Case {
    int batch, heads, kv_heads, n, n_kv, window;
  };
  // Windows crossing tiles (not multiples of B_r or B_c), one key, every key; n = n_kv ragged, n < n_kv
  // (the window starts past key 0 for every row), n > n_kv (rows 0 … 132 see no key: O = 0, their
  // gradients 0), grouped K/V heads.
  const std::vector<Case> cases = {{1, 2, 0, 1000, 1000, 300},  {1, 2, 0, 1000, 1000, 1},  {1, 2, 0, 777, 777, 777},
                                   {1, 2, 0, 600, 1700, 1000}, {1, 2, 0, 333, 200, 50},   {2, 8, 2, 1500, 1500, 130},
                                   {1, 4, 1, 1024, 1024, 128}};
  int run = 0;
  for (const Direction pass : {Direction::fwd, Direction::bwd}) {
    for (const DType t : {DType::fp16, DType::bf16}) {
      for (const Case& c : cases) {
        KernelSpec s = spec_of(c.batch, c.heads, c.kv_heads, c.n, c.n_kv, true, t);
        s.pass = pass;
        const auto tiles = compiled_tiles("flash3", pass, s.d, t);
        if (!tiles.empty()) {
          s.br = tiles.front().first;
          s.bc = tiles.front().second;
        }
        s.window = c.window;
        if (const std::string why = unsupported(s); !why.empty()) {
          MESSAGE("not run: " << why);
          continue;
        }
        ++run;
        const std::string what = std::string(pass == Direction::fwd ? "fwd " : "bwd ") + std::string(iosim::name(t));
        CAPTURE(what);
        CAPTURE(s.batch);
        CAPTURE(s.heads);
        CAPTURE(s.kv_heads);
        CAPTURE(s.n);
        CAPTURE(s.n_kv);
        CAPTURE(s.window);
        for (const Accuracy& a : check_accuracy(s, 12)) {
          CAPTURE(a.tensor);
          CAPTURE(a.rel_error);
          CHECK(a.unwritten == 0);
          CHECK(a.passed());
        }
      }
    }
  }
  CHECK(run > 0);
}
