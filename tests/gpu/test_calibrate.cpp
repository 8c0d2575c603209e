// GPU tests of iosim calibrate's latency microbenchmarks (cuda/ceilings/latency_*.cu): each figure must
// fall in the range published microbenchmarks of Ampere and Hopper put it in (docs/configs.md, the
// configs' pipeline: sources), so that a broken microbenchmark (a chain the compiler cut, a chase that
// hits the wrong level) fails loudly instead of reaching a config. Every figure is printed (MESSAGE).
// Without a GPU the program says so and exits 77 (skipped; gpu_main.cpp). The wgmma figures only on a
// compute capability 9.0 device of a build with the probe (IOSIM_WGMMA_PROBE); elsewhere they must be 0
// (not measured), and the probe's own test says why it skips.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include "cuda/backend.h"
#include "sim/core/hardware.h"
#if IOSIM_WGMMA_PROBE
#include "cuda/ceilings/latency.h"
#endif

namespace {

using iosim::PipelineSpec;

struct Range {
  const char* key;
  double PipelineSpec::*field;
  double low, high;
  const char* unit;
};

// Wide enough for an A100, an H100 and an H200 (their configs' defaults and the published figures
// behind them all fall inside), narrow enough that a chain measuring the wrong thing falls outside:
// a cut chain gives ~0-2 cycles a link, a chase served by the L1 ~30-40, one served by the L2 where
// DRAM was meant ~250-300. The memory bounds leave room above the published figures (L2 261-281,
// DRAM 466-690 cycles) for the H200's far L2 partition and page walks, which a chase may meet.
constexpr Range kRanges[] = {
    {"clock_mhz", &PipelineSpec::clock_mhz, 900, 2100, "MHz"},
    {"mma_latency", &PipelineSpec::mma_latency, 15, 40, "cycles"},
    {"ldmatrix_latency", &PipelineSpec::ldmatrix_latency, 15, 50, "cycles"},
    {"lds_latency", &PipelineSpec::lds_latency, 15, 45, "cycles"},
    {"cp_async_latency", &PipelineSpec::cp_async_latency, 150, 900, "cycles"},
    {"ex2_latency", &PipelineSpec::ex2_latency, 8, 45, "cycles"},
    {"fma_latency", &PipelineSpec::fma_latency, 3, 8, "cycles"},
    {"shfl_latency", &PipelineSpec::shfl_latency, 10, 45, "cycles"},
    {"shfl_interval", &PipelineSpec::shfl_interval, 1, 16, "cycles"},
    {"bar_latency", &PipelineSpec::bar_latency, 5, 80, "cycles"},
    {"l2_hit_latency", &PipelineSpec::l2_hit_latency, 200, 450, "cycles"},
    {"dram_latency", &PipelineSpec::dram_latency, 450, 1200, "cycles"},
    {"launch_us", &PipelineSpec::launch_us, 1, 6, "us"},
    // wgmma (Hopper): no published figure to centre on, so wide: a dependent m64n128k16 cannot take
    // less than its own 64 cycles of an SM's tensor cores at the GH100's dense fp16 rate (4096 FLOPs a
    // cycle), nor thousands; the rate per SM is near those 64 cycles (a cut loop gives ~0-10, a
    // serialised one several hundred).
    {"wgmma_latency", &PipelineSpec::wgmma_latency, 40, 2000, "cycles"},
    {"wgmma_interval", &PipelineSpec::wgmma_interval, 48, 256, "cycles"},
    // Not measured by calibrate (PipelineField::calibrated): 0.
    {"tma_copy_cycles", &PipelineSpec::tma_copy_cycles, 0, 0, "cycles"},
};

/// True when this build and device measure the wgmma figures (else they are 0, not measured).
bool measures_wgmma(const iosim::gpu::DeviceInfo& info) {
#if IOSIM_WGMMA_PROBE
  return iosim::gpu::latency::wgmma_unavailable(info.cc_major, info.cc_minor).empty();
#else
  (void)info;
  return false;
#endif
}

}  // namespace

TEST_CASE("every latency microbenchmark gives a figure in its plausible range") {
  const PipelineSpec p = iosim::gpu::measure_pipeline();
  const iosim::gpu::DeviceInfo info = iosim::gpu::device_info();
  MESSAGE("device: " << info.name << ", " << info.sm_count << " SMs, L2 " << info.l2_bytes << " B");
  const bool wgmma = measures_wgmma(info);
  for (std::size_t i = 0; i < std::size(kRanges); ++i) {
    const Range& r = kRanges[i];
    const double v = p.*(r.field);
    if (!iosim::kPipelineFields[i].calibrated) {
      MESSAGE(r.key << " not a calibrate figure (fitted by a script)");
      CHECK_MESSAGE(v == 0, r.key);
      continue;
    }
    if (iosim::kPipelineFields[i].optional && !wgmma) {
      MESSAGE(r.key << " not measured (no wgmma on this device or build)");
      CHECK_MESSAGE(v == 0, r.key);
      continue;
    }
    MESSAGE(r.key << " = " << v << " " << r.unit << " (plausible " << r.low << " to " << r.high << ")");
    CHECK_MESSAGE(std::isfinite(v), r.key);
    CHECK_MESSAGE(v >= r.low, r.key);
    CHECK_MESSAGE(v <= r.high, r.key);
  }
  static_assert(std::size(kRanges) == std::size(iosim::kPipelineFields), "a range for every figure");
  for (std::size_t i = 0; i < std::size(kRanges); ++i) CHECK(kRanges[i].field == iosim::kPipelineFields[i].field);
  // Orderings no GPU breaks: a DRAM access costs more than an L2 hit, which costs more than shared memory.
  CHECK(p.dram_latency > p.l2_hit_latency);
  CHECK(p.l2_hit_latency > 3 * p.lds_latency);
  CHECK(p.cp_async_latency > p.lds_latency);
  CHECK(p.fma_latency < p.mma_latency);
}

TEST_CASE("the figures are repeatable: two calibrations agree within 15% (launches, timed by the host's pace: 50%)") {
  const PipelineSpec a = iosim::gpu::measure_pipeline();
  const PipelineSpec b = iosim::gpu::measure_pipeline();
  for (const iosim::PipelineField& f : iosim::kPipelineFields) {
    const double x = a.*(f.field), y = b.*(f.field);
    const double tolerance = f.field == &PipelineSpec::launch_us ? 0.5 : 0.15;
    MESSAGE(f.key << ": " << x << " then " << y);
    CHECK_MESSAGE(std::abs(x - y) <= tolerance * std::max(x, y), f.key);
  }
}

#if IOSIM_WGMMA_PROBE
TEST_CASE("the wgmma probes on Hopper: a chain's latency, the rate per SM at one and two warpgroups") {
  const iosim::gpu::DeviceInfo info = iosim::gpu::device_info();
  const std::string why = iosim::gpu::latency::wgmma_unavailable(info.cc_major, info.cc_minor);
  if (!why.empty()) {
    MESSAGE("skipped: " << why);
    return;
  }
  namespace lat = iosim::gpu::latency;
  const double latency = lat::wgmma_latency();
  const double one = lat::wgmma_interval(1, info.sm_count, info.smem_per_block_optin);
  const double two = lat::wgmma_interval(2, info.sm_count, info.smem_per_block_optin);
  MESSAGE("wgmma m64n128k16 SS: latency " << latency << " cycles; per SM " << one << " cycles (1 warpgroup), "
                                          << two << " cycles (2 warpgroups)");
  for (const double v : {latency, one, two}) {
    CHECK(std::isfinite(v));
    CHECK(v > 0);
  }
  CHECK(latency >= 40);
  CHECK(latency <= 2000);
  CHECK(one >= 48);
  CHECK(one <= 512);  // one warpgroup may leave the tensor cores idle between its wgmmas, within reason
  CHECK(two >= 48);
  CHECK(two <= 256);
  // A dependent wgmma cannot come sooner than the tensor cores take for one.
  CHECK(latency >= 0.5 * std::min(one, two));
  // measure_pipeline keeps the faster.
  const PipelineSpec p = iosim::gpu::measure_pipeline();
  CHECK(p.wgmma_interval == doctest::Approx(std::min(one, two)).epsilon(0.15));
}
#endif
