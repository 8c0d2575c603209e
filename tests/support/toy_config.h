// A small valid hardware config, as text, for tests that write variants of it to files.
#pragma once

#include <string>

namespace iosim::test {

inline const std::string kToyConfig = R"(name: toy
arch: sm_00
sm:
  count: 2
  sram_per_sm_bytes: 2048
  sram_per_block_bytes: 1024
  registers_per_sm: 65536
  max_registers_per_thread: 255
  max_threads_per_sm: 2048
  max_threads_per_block: 1024
  max_blocks_per_sm: 32
  sram_bytes_per_clock: 128
  sfu_ops_per_clock: 16
l2:
  size_bytes: 65536
  line_bytes: 128
  sector_bytes: 32
  ways: 16
  bytes_per_clock: 512
  partitions: 1
hbm:
  bandwidth_gb_per_s: 100
clocks:
  sm_mhz: 1000
peak:
  tensor_fp16_tflops: 1
  tensor_bf16_tflops: 1
  tensor_fp8_tflops: 0
  fp32_tflops: 0.5
launch_overhead_us: 4
pipeline:
  clock_mhz: 1000
  mma_latency: 32
  ldmatrix_latency: 30
  lds_latency: 29
  cp_async_latency: 300
  ex2_latency: 20
  fma_latency: 4
  shfl_latency: 25
  shfl_interval: 4
  bar_latency: 20
  l2_hit_latency: 260
  dram_latency: 600
  launch_us: 4
)";

}  // namespace iosim::test
