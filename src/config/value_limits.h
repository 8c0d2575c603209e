// The range every number of a hardware config must lie in: one table, checked as each key is read.
// The upper bounds of sm.count, sm.max_blocks_per_sm and l2.size_bytes are what the model allocates
// for (hardware_config.h); the others keep a value plausible for a GPU, so that no rate or size
// makes a time or a count absurd (a bandwidth of 1e-300 GB/s printed a 300-digit time).
#pragma once

#include <string>
#include <string_view>

namespace iosim::config {

struct ValueLimit {
  std::string_view key;  ///< as in the file: "hbm.bandwidth_gb_per_s"
  double min;
  double max;
  std::string_view unit;  ///< follows the bound in the message: "GB/s", "SMs are modelled"
  bool zero_allowed = false;  ///< 0 means "none" or "not known" (tensor_fp8_tflops, wgmma_latency)
};

/// The limit of `key_path` ("sm.count", "measured.hbm_gb_per_s"); nullptr for a key without one.
/// `measured.<pipeline key>` shares `pipeline.<pipeline key>`'s.
[[nodiscard]] const ValueLimit* value_limit(std::string_view key_path);

/// Why `v` is out of `limit`'s range ("at least 1 GB/s, got 1e-300"), or "" when it is in it.
[[nodiscard]] std::string value_limit_problem(const ValueLimit& limit, double v);

/// Every entry, for the documentation test.
[[nodiscard]] const ValueLimit* value_limits_begin();
[[nodiscard]] const ValueLimit* value_limits_end();

}  // namespace iosim::config
