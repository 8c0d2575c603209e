// measure_pipeline(): every figure of PipelineSpec from its microbenchmark (cuda/ceilings/latency.h),
// each checked: a figure that is not a positive finite number means a broken microbenchmark, and
// stops calibrate rather than reaching a config. The wgmma figures only where wgmma_unavailable() is
// empty; elsewhere they stay 0 (not measured) and calibrate says why.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "cuda/backend.h"
#include "cuda/ceilings/latency.h"

namespace iosim::gpu {

namespace {

double checked(const char* key, double value) {
  if (!std::isfinite(value) || value <= 0) {
    throw std::runtime_error(std::string("calibrate: the ") + key + " microbenchmark gave " + std::to_string(value) +
                             ", not a positive figure");
  }
  return value;
}

}  // namespace

namespace latency {

std::string wgmma_unavailable(int cc_major, int cc_minor) {
#if IOSIM_WGMMA_PROBE
  if (runs_sm90a(DeviceInfo{"", cc_major, cc_minor})) return "";
  return "no wgmma on this device (compute capability " + std::to_string(cc_major) + "." +
         std::to_string(cc_minor) + "; the probe is sm_90a code, which runs on 9.0 alone)";
#else
  (void)cc_major;
  (void)cc_minor;
  return "no wgmma on this build (nvcc could not target sm_90a: cuda/ceilings/wgmma.cmake)";
#endif
}

}  // namespace latency

PipelineSpec measure_pipeline() {
  const DeviceInfo info = device_info();
  PipelineSpec p;
  p.clock_mhz = checked("clock_mhz", latency::clock_mhz(info.sm_count));
  p.mma_latency = checked("mma_latency", latency::mma_latency());
  p.ldmatrix_latency = checked("ldmatrix_latency", latency::ldmatrix_latency());
  p.lds_latency = checked("lds_latency", latency::lds_latency());
  p.cp_async_latency = checked("cp_async_latency", latency::cp_async_latency());
  p.ex2_latency = checked("ex2_latency", latency::ex2_latency());
  p.fma_latency = checked("fma_latency", latency::fma_latency());
  p.shfl_latency = checked("shfl_latency", latency::shfl_latency());
  p.shfl_interval = checked("shfl_interval", latency::shfl_interval());
  p.bar_latency = checked("bar_latency", latency::bar_latency());
  p.l2_hit_latency = checked("l2_hit_latency", latency::l2_hit_latency(info.l2_bytes));
  p.dram_latency = checked("dram_latency", latency::dram_latency(info.l2_bytes));
  p.launch_us = checked("launch_us", latency::launch_us());
#if IOSIM_WGMMA_PROBE
  if (latency::wgmma_unavailable(info.cc_major, info.cc_minor).empty()) {
    p.wgmma_latency = checked("wgmma_latency", latency::wgmma_latency());
    const auto rate = [&](int groups) {
      return checked("wgmma_interval", latency::wgmma_interval(groups, info.sm_count, info.smem_per_block_optin));
    };
    // The SM's rate: the faster of one and two warpgroups per SM.
    p.wgmma_interval = std::min(rate(1), rate(2));
  }
#endif
  return p;
}

}  // namespace iosim::gpu
