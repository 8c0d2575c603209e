// The measured error of the model's predictions by kind of kernel, as plain data: what
// configs/validated-error.csv holds (scripts/validated-error.py re-predicts the committed GPU runs with
// today's model; src/config/validated_error.h reads it; src/report/measured_error.h prints it beside
// a prediction).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace iosim {

/// One counter's error over the kernels of one kind: |measured − predicted| ÷ measured, in percent.
struct CounterError {
  std::string counter;  ///< l2_read, l2_write, dram_read, dram_write, time_cold
  std::uint32_t kernels = 0;
  double median_pct = 0;
  double max_pct = 0;
};

/// The kernels of one kind that ran on a config's GPU: one schedule, pass, mask and paging.
struct ValidatedKind {
  std::string schedule;
  std::string pass;  ///< fwd, bwd
  std::string mask;  ///< none, causal, window
  bool paged = false;
  std::uint64_t n_min = 0, n_max = 0;  ///< the context lengths measured
  std::string sources;                 ///< the committed runs (tests/data/<source>.json), space-separated
  std::vector<CounterError> counters;
};

}  // namespace iosim
