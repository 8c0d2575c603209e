// Which metrics iosim collects on a chip: the Profiler Host API only (chip name and, optionally,
// the device's counter-availability image), so it runs without a GPU too.
#include <utility>

#include "cuda/profiler/cupti_util.h"
#include "cuda/profiler/range_profiler.h"

namespace iosim::gpu {
namespace {

using cupti::HostObject;

/// Tensor-op metrics for inputs of `dtype`, in order of preference; each alternative is a list of
/// metrics whose sum is the count. Names differ per chip, and on GH100 the fp16 total needs two
/// passes on its own with CUDA 13.0's CUPTI (checked with cuptiProfilerHostGetNumOfPasses), so the
/// last fp16 alternative counts mma.sync with fp32 accumulators plus every wgmma, one pass together
/// with the memory metrics.
std::vector<std::vector<std::string>> tensor_alternatives(DType dtype) {
  switch (dtype) {
    case DType::fp16:
      return {{"sm__ops_path_tensor_src_fp16_dst_fp32.sum"},  // GA100, AD10x, GB100
              {"sm__ops_path_tensor_src_fp16.sum"},           // GH100
              {"sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_fp16.sum"}};
    case DType::bf16:
      return {{"sm__ops_path_tensor_src_bf16_dst_fp32.sum"},
              {"sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum"}};
    case DType::fp8:
      return {{"sm__ops_path_tensor_src_fp8.sum"}};
    case DType::fp32:
      return {{"sm__ops_path_tensor_src_tf32_dst_fp32.sum"}};  // fp32 inputs reach tensor cores as tf32
    case DType::int32:
      return {};  // the block table's type: no product takes it
  }
  return {};
}

}  // namespace

ProfilerDevice current_profiler_device() {
  cupti::throw_if_disabled();
  const CUcontext ctx = cupti::current_context();
  cupti::ensure_profiler_initialized();
  ProfilerDevice d;
  d.ordinal = cupti::current_device();
  d.chip = cupti::chip_name(d.ordinal);
  d.counter_availability = cupti::read_counter_availability(ctx);
  return d;
}

std::size_t count_passes(const std::string& chip, const std::vector<std::string>& metrics,
                         std::span<const std::uint8_t> counter_availability) {
  if (metrics.empty()) {
    return 0;
  }
  const HostObject host(chip, counter_availability);
  for (const std::string& m : metrics) {
    if (!host.supports(m)) {
      throw ProfilerError("metric " + m + " is not supported on " + chip);
    }
  }
  std::vector<const char*> names = cupti::c_strings(metrics);
  cupti::AlignedBytes image = host.config_image(names);
  return cupti::passes_of(image);
}

MetricSet iosim_metric_set(const std::string& chip, DType dtype, std::span<const std::uint8_t> counter_availability,
                           bool tma_loads) {
  std::vector<std::string> memory_metrics = {
      metric::dram_read,       metric::dram_write,     metric::l2_read_sectors,    metric::l2_write_sectors,
      metric::l2_atom_sectors, metric::l2_red_sectors, metric::smem_ld_wavefronts, metric::smem_st_wavefronts};
  if (tma_loads) memory_metrics.insert(memory_metrics.begin() + 2, metric::tma_read_bytes);

  MetricSet set;
  set.chip = chip;
  const HostObject probe(chip, counter_availability);
  // A metric is kept when the set with it still needs one pass (a config image per trial: CUPTI
  // accumulates the metrics of a host object).
  const auto fits = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> trial = set.metrics;
    trial.insert(trial.end(), extra.begin(), extra.end());
    return count_passes(chip, trial, counter_availability) == 1;
  };

  for (const std::string& m : memory_metrics) {
    if (!probe.supports(m)) {
      set.dropped.push_back(m + ": not a metric of " + chip);
    } else if (!fits({m})) {
      set.dropped.push_back(m + ": would need a second pass with the metrics kept before it");
    } else {
      set.metrics.push_back(m);
    }
  }

  std::vector<std::string> tried;
  for (const std::vector<std::string>& alternative : tensor_alternatives(dtype)) {
    const std::string sum = cupti::joined(alternative, " + ");
    bool supported = true;
    for (const std::string& m : alternative) {
      supported = supported && probe.supports(m);
    }
    if (!supported) {
      tried.push_back(sum + " (not a metric of " + chip + ")");
    } else if (!fits(alternative)) {
      tried.push_back(sum + " (would need a second pass)");
    } else {
      set.metrics.insert(set.metrics.end(), alternative.begin(), alternative.end());
      set.tensor_metrics = alternative;
      break;
    }
  }
  if (set.tensor_metrics.empty()) {
    set.dropped.push_back("tensor ops for " + std::string(name(dtype)) + ": none fits; tried " +
                          cupti::joined(tried, ", "));
  }
  set.passes = count_passes(chip, set.metrics, counter_availability);
  return set;
}

}  // namespace iosim::gpu
