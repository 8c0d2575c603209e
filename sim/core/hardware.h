// A GPU as the model sees it: plain figures, filled from a YAML file by the program (src/config) or
// written directly in code by tests. Sizes in bytes, rates in their own units.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/core/units.h"

namespace iosim {

struct SmSpec {
  std::uint32_t count = 0;                  ///< streaming multiprocessors
  Bytes sram_per_sm;                        ///< shared memory per SM at the largest carve-out
  Bytes sram_per_block;                     ///< the most shared memory one thread block may use
  std::uint32_t registers_per_sm = 0;       ///< 32-bit registers
  std::uint32_t max_registers_per_thread = 0;
  std::uint32_t max_threads_per_sm = 0;
  std::uint32_t max_threads_per_block = 0;
  std::uint32_t max_blocks_per_sm = 0;
  std::uint32_t sram_bytes_per_clock = 0;   ///< shared-memory bandwidth of one SM
  std::uint32_t sfu_ops_per_clock = 0;      ///< special-function results (exp2, log2) per clock of one SM
};

struct L2Spec {
  Bytes capacity;
  std::uint32_t line_bytes = 0;
  std::uint32_t sector_bytes = 0;
  std::uint32_t ways = 0;                   ///< set associativity
  std::uint32_t bytes_per_clock = 0;        ///< bandwidth SMs ↔ L2, whole chip, per SM clock
  std::uint32_t partitions = 1;             ///< 1, or 2 (sim/memory/partitioned_l2.h)
};

struct HbmSpec {
  double bandwidth_gb_per_s = 0;            ///< 10^9 bytes per second
};

struct ClockSpec {
  double sm_mhz = 0;                        ///< SM boost clock
};

struct PeakSpec {
  double tensor_fp16_tflops = 0;            ///< dense, fp32 accumulate
  double tensor_bf16_tflops = 0;
  double tensor_fp8_tflops = 0;             ///< 0 where the chip has no fp8 tensor cores
  double fp32_tflops = 0;                   ///< non-tensor fp32
};

/// Latencies and issue figures of one SM's pipes, the inputs of the time model's SM model
/// (sim/timing). Cycles are SM clock cycles at `clock_mhz`. 0 = not known.
struct PipelineSpec {
  double clock_mhz = 0;          ///< SM clock while a kernel runs (measured: clock64() over event time)
  double mma_latency = 0;        ///< mma.sync m16n8k16 (fp16 in, fp32 acc): issue to dependent issue
  double ldmatrix_latency = 0;   ///< ldmatrix.sync.x4 of conflict-free rows: issue to first use
  double lds_latency = 0;        ///< ld.shared.b32: issue to use
  double cp_async_latency = 0;   ///< cp.async.cg 16 B of L2-resident data: issue to cp.async.wait_group 0 done
  double ex2_latency = 0;        ///< ex2.approx.ftz.f32 (MUFU.EX2): issue to dependent issue
  double fma_latency = 0;        ///< fma.rn.f32 dependent chain
  double shfl_latency = 0;       ///< shfl.sync.bfly.b32: issue to dependent issue
  double shfl_interval = 0;      ///< cycles between independent warp shuffles of one SM sub-partition
  double bar_latency = 0;        ///< bar.sync of a 128-thread block whose warps arrive together
  double l2_hit_latency = 0;     ///< ld.global.cg pointer chase within a buffer far below the L2's size
  double dram_latency = 0;       ///< the same pointer chase over a buffer 4× the L2
  double launch_us = 0;          ///< microseconds per kernel of back-to-back empty launches in one stream
  /// wgmma.mma_async m64n128k16 f32.f16.f16, both operands in shared memory (SS), the accumulator
  /// chained: issue to the dependent wgmma's issue, each one committed and waited for
  /// (wgmma.commit_group + wait_group 0). Hopper only; 0 = not known: the wgmma families' chain takes
  /// mma_latency in its place.
  double wgmma_latency = 0;
  /// Cycles of one SM (its four sub-partitions together) per m64n128k16 f32.f16.f16 SS wgmma, issued
  /// back to back into one accumulator per warpgroup (one warpgroup per SM, and two: the faster).
  /// Hopper only; 0 = not known: the model derives wgmma's rate from the cuBLAS GEMM
  /// (`measured: gemm_fp16_tflops`, sm_model.h's SmRates::wgmma_interval).
  double wgmma_interval = 0;
  /// Cycles of one SM's TMA unit per copy instruction (cp.async.bulk.tensor, a box of rows of up to
  /// 128 bytes), however few rows the box holds. Hopper only; 0 = not known: TMA copies bound nothing.
  /// Not a calibrate microbenchmark: fitted to a TMA-bound kernel (scripts/fit-tma-copy.py).
  double tma_copy_cycles = 0;
};

/// One figure of PipelineSpec: its YAML key (in `pipeline:` and `measured:`) and its member.
struct PipelineField {
  const char* key;
  double PipelineSpec::*field;
  /// A figure of an instruction only some chips have (wgmma: Hopper): optional in `pipeline:`, where
  /// it may also be 0; absent or 0 means not known, and the model falls back (PipelineSpec says how).
  bool optional = false;
  /// `iosim calibrate` measures it (a microbenchmark of cuda/calibrate); false: a figure fitted to a
  /// kernel's run by a script, which calibrate leaves at 0.
  bool calibrated = true;
};

/// Every figure of PipelineSpec, in the order of the struct (and of the configs).
inline constexpr PipelineField kPipelineFields[] = {
    {"clock_mhz", &PipelineSpec::clock_mhz},
    {"mma_latency", &PipelineSpec::mma_latency},
    {"ldmatrix_latency", &PipelineSpec::ldmatrix_latency},
    {"lds_latency", &PipelineSpec::lds_latency},
    {"cp_async_latency", &PipelineSpec::cp_async_latency},
    {"ex2_latency", &PipelineSpec::ex2_latency},
    {"fma_latency", &PipelineSpec::fma_latency},
    {"shfl_latency", &PipelineSpec::shfl_latency},
    {"shfl_interval", &PipelineSpec::shfl_interval},
    {"bar_latency", &PipelineSpec::bar_latency},
    {"l2_hit_latency", &PipelineSpec::l2_hit_latency},
    {"dram_latency", &PipelineSpec::dram_latency},
    {"launch_us", &PipelineSpec::launch_us},
    {"wgmma_latency", &PipelineSpec::wgmma_latency, true},
    {"wgmma_interval", &PipelineSpec::wgmma_interval, true},
    {"tma_copy_cycles", &PipelineSpec::tma_copy_cycles, true, false},
};

/// The rate a library kernel reaches, measured alone (a config's kernel_rates; docs/configs.md):
/// bytes of the tensors it reads and writes per second, by the length of the rows it works on. The
/// time model prices the kernels of a FamilyModel::measured_rate family (kernel_family.h) at it.
struct KernelRate {
  std::string family;                      ///< the kernel family it prices (kernel_family.cpp)
  std::vector<std::uint64_t> row_lengths;  ///< increasing; empty: one rate for every row length
  std::vector<double> gb_per_s;            ///< one a row length (one in all when row_lengths is empty)
  std::string source;                      ///< the run it comes from
};

/// The rate of `r` at rows of `row_length`: a measured row length's own; between two, linear in
/// log2(row length); outside them, the nearest one's.
[[nodiscard]] double rate_at(const KernelRate& r, std::uint64_t row_length);

/// Ceilings measured on a real GPU of this kind (`iosim calibrate`); 0 where not measured. The time
/// model uses them in place of the datasheet's peaks when present.
struct MeasuredSpec {
  double hbm_gb_per_s = 0;        ///< a large device-to-device copy: (bytes read + written) / time
  double l2_gb_per_s = 0;         ///< reads of a buffer that fits the L2, whole chip
  double l2_red_gb_per_s = 0;     ///< fp32 atomic adds (RED) into L2-resident data: bytes added, whole chip
  double sram_gb_per_s = 0;       ///< shared-memory loads and stores, whole chip
  double tensor_fp16_tflops = 0;  ///< mma.sync m16n8k16, fp32 accumulate
  double tensor_bf16_tflops = 0;
  /// A cuBLAS 8192³ fp16 GEMM, which issues wgmma on Hopper: the tensor rate a warpgroup-MMA kernel
  /// reaches (the time model's rate for wgmma families, kernel_family.h)
  double gemm_fp16_tflops = 0;
  /// The SM clock (MHz) while a wgmma-bound attention kernel runs (iosim's flash3 forward, d = 128):
  /// Nsight Compute's sm__cycles_elapsed.avg over gpu__time_duration. Busy tensor cores hold the chip
  /// at its power limit below `clock_mhz` (calibrate's mma.sync kernel), so the SM model prices the
  /// wgmma families' cycles at this clock where known (sm_model.h, sm_rates); 0 = not measured.
  double wgmma_clock_mhz = 0;
  double exp2_g_per_s = 0;        ///< ex2.approx.f32 results per second, whole chip
  PipelineSpec pipeline;          ///< latencies `iosim calibrate` measured (same keys as `pipeline:`); 0 = not
  std::string date;               ///< when they were measured (YYYY-MM-DD); empty when not said
};

/// A figure of MeasuredSpec that the config's own measured: section lacks, filled from calibrated
/// GPUs of its architecture (its corrected_by: configs; sim/core/peer_correction.h).
struct CorrectedFigure {
  std::string key;                 ///< as in `measured:` (hbm_gb_per_s, clock_mhz …)
  double datasheet = 0;            ///< the config's own datasheet (or `pipeline:` default) figure
  double share = 0;                ///< the mean over the peers of measured ÷ their own datasheet figure
  double value = 0;                ///< datasheet × share: what the model uses (in `measured`)
  std::vector<std::string> peers;  ///< the GPUs (HardwareSpec::name) whose measurements gave the share
};

struct HardwareSpec {
  std::string name;
  std::string arch;                         ///< e.g. sm_80
  SmSpec sm;
  L2Spec l2;
  HbmSpec hbm;
  ClockSpec clock;
  PeakSpec peak;
  double launch_overhead_us = 0;            ///< fixed cost of one kernel launch
  PipelineSpec pipeline;                    ///< documented defaults of the SM model's figures (cited)
  MeasuredSpec measured;
  /// Library kernels timed alone on the GPU (PyTorch's eager kernels: scripts/torch-kernels-bench.py),
  /// beside `measured:`, which `iosim calibrate --write` rewrites.
  std::vector<KernelRate> kernel_rates;
  /// The figures of `measured` that came from peers, not from this GPU (empty: none).
  std::vector<CorrectedFigure> corrected;
};

/// The measured rate of `family`'s kernels, or nullptr where the config has none.
[[nodiscard]] const KernelRate* kernel_rate(const HardwareSpec& hw, std::string_view family);

/// The figure the time model uses: measured where the config has it, else the `pipeline:` default.
[[nodiscard]] double pipeline_figure(const HardwareSpec& hw, double PipelineSpec::*field);
/// Names (as the YAML keys) of pipeline figures that come from defaults, not from `measured:`.
[[nodiscard]] std::vector<std::string> unmeasured_pipeline_figures(const HardwareSpec& hw);

/// M of the FlashAttention paper: the SRAM one thread block may use, in elements of `t`.
[[nodiscard]] inline std::uint64_t sram_elements(const HardwareSpec& hw, DType t) {
  return hw.sm.sram_per_block.value / size_bytes(t);
}

}  // namespace iosim
