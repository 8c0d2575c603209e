// The CUDA backend as the rest of iosim sees it: plain C++, no CUDA types, so src/ and the tests
// include it whether or not this build has CUDA. Built from cuda/*.cu|cpp when nvcc is found, and
// from cuda/stub/backend_stub.cpp (every call reports "no CUDA backend in this build") otherwise.
//
// Tensors live on the GPU in [batch, heads, rows, d] order, contiguous, the layout sim/ models.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/core/hardware.h"
#include "sim/core/page_order.h"
#include "iosim_generated/kernel_menu.h"
#include "sim/schedule/cuda_kernels.h"

namespace iosim::gpu {

struct DeviceInfo {
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t smem_per_sm = 0;
  std::uint64_t smem_per_block_optin = 0;
  std::uint64_t global_bytes = 0;
};

/// Whether `dev` runs sm_90a code (TMA, wgmma: compute capability 9.0 exactly, as flash3's kernels and
/// calibrate's wgmma probes are built). The one test of it, for validate's schedule list and flash3's
/// refusal alike.
[[nodiscard]] inline bool runs_sm90a(const DeviceInfo& dev) { return dev.cc_major == 9 && dev.cc_minor == 0; }

/// True when this build has the backend and a CUDA GPU is visible; otherwise false and `why` says
/// which is missing (for the "skipped" line of GPU tests and for `iosim measure`'s error).
[[nodiscard]] bool available(std::string* why);

/// Properties of device 0. Only after available() returned true.
[[nodiscard]] DeviceInfo device_info();

using iosim::name;
enum class Direction : std::uint8_t { fwd, bwd };

/// The head dimensions the kernels are compiled for (naive's cuBLAS takes any d; the rest these): those
/// of the kernel menu's rows (cuda/kernels/menu.csv).
inline constexpr auto kHeadDims = kernel_menu::kHeadDims;
[[nodiscard]] constexpr bool compiled_head_dim(int d) {
  for (const int h : kHeadDims) {
    if (h == d) return true;
  }
  return false;
}

/// One kernel configuration: a schedule, a pass, a problem and the schedule's tile.
struct KernelSpec {
  /// The schedule whose kernels these are, by its registry name as the CLI spells it (sim/schedule/registry.h);
  /// its entry's CudaKernels (sim/schedule/cuda_kernels.h) says which kernels they are. Views the catalog's
  /// name (or a literal): the spec holds no string of its own.
  std::string_view schedule = "flash2";
  Direction pass = Direction::fwd;
  int batch = 1;
  int heads = 1;
  int n = 0;     ///< queries per head
  int n_kv = 0;  ///< keys per head
  int d = 0;     ///< 64 or 128
  DType dtype = DType::fp16;  ///< fp16 or bf16
  int br = 0;    ///< rows of Q per tile (ignored by naive)
  int bc = 0;    ///< rows of K/V per tile (ignored by naive)
  int warps = 0;   ///< warps per block of the main kernel; 0: the tile's default (ignored by naive)
  int stages = 0;  ///< K/V stages in shared memory; 0: the tile's default (ignored by naive)
  int kv_heads = 0;     ///< key/value heads, dividing heads (grouped-query attention); 0: = heads
  bool causal = false;  ///< query row r sees key c ≤ r + (n_kv − n) (sim/core/mask.h's alignment)
  int splits = 0;       ///< flashdecode: K/V splits; 0: flashdecode_splits() on this GPU, as the model picks
  /// A sliding window (needs causal): row r also requires c > r + (n_kv − n) − window, as sim/core/mask.h
  /// defines it. The kernels cuda/window_paging.h names; 0: none.
  int window = 0;
  /// Paged K/V (sim/core/paging.h): K and V in pages of page_size rows, a power of two dividing B_c or
  /// divided by it, addressed through an int32 block table (Tensor::BT). flash2's and flash3's forward
  /// (flash3: pages of at least 16 rows) and flashdecode only; 0: contiguous.
  int page_size = 0;
  PageOrder page_order = PageOrder::contiguous;  ///< where the pages lie, as the model's address map
  std::uint64_t page_seed = 0;                   ///< the shuffle's seed (page_order random)
};

/// What the registry entry of spec's schedule says of its CUDA kernels; a description with no tensors and
/// every property false where no entry of that name has CUDA kernels (unsupported_in_build refuses such a spec).
[[nodiscard]] inline const CudaKernels& described(const KernelSpec& s) {
  static constexpr CudaKernels kNone{};
  const CudaKernels* k = cuda_kernels(s.schedule);
  return k != nullptr ? *k : kNone;
}

/// Key/value heads of `s` (kv_heads, or heads where it is 0) and query heads per key/value head.
[[nodiscard]] constexpr int kv_head_count(const KernelSpec& s) { return s.kv_heads == 0 ? s.heads : s.kv_heads; }
[[nodiscard]] constexpr int group_size(const KernelSpec& s) { return s.heads / kv_head_count(s); }

/// The (B_r, B_c) tiles compiled into this build for a schedule, pass, head dim and type, each once;
/// the first is the default. Empty for naive (cuBLAS picks its own tiles).
[[nodiscard]] std::vector<std::pair<int, int>> compiled_tiles(std::string_view schedule, Direction pass, int d,
                                                              DType dtype);

/// One compiled kernel of a schedule's pass: its tile, warps per block and K/V stages.
struct KernelVariant {
  int br = 0;
  int bc = 0;
  int warps = 0;
  int stages = 0;
};

/// Every compiled variant of a schedule, pass, head dim and type (tile × warps × stages), the default
/// first; within a tile the tile's default (what warps = stages = 0 selects) first. Empty for naive.
[[nodiscard]] std::vector<KernelVariant> compiled_variants(std::string_view schedule, Direction pass, int d,
                                                           DType dtype);

/// How the kernel that runs `spec` is built: warps per block and K/V stages of its main kernel,
/// {0, 0} for naive (cuBLAS decides) or a spec this build cannot run. Needs no GPU.
struct KernelShape {
  int warps = 0;
  int stages = 0;
  int splits = 0;  ///< flashdecode: the K/V splits it runs (0 where that needs the GPU and none is visible)
};
[[nodiscard]] KernelShape kernel_shape(const KernelSpec& spec);

/// Empty if `spec` can run in this build on this GPU; otherwise one line saying why not.
[[nodiscard]] std::string unsupported(const KernelSpec& spec);

/// The part of unsupported() that needs no GPU: empty if this build has a kernel for `spec`; otherwise
/// one line saying why not (shape, type, head dim, tile; flash3's backward, which has no kernel).
[[nodiscard]] std::string unsupported_in_build(const KernelSpec& spec);

/// One output of a run against the CPU reference in double: ‖out − ref‖ / ‖ref‖.
struct Accuracy {
  std::string tensor;     ///< "O", "dQ", "dK", "dV"
  double rel_error = 0;
  double max_abs_error = 0;
  double tolerance = 0;   ///< 2e-3 for fp16, 1e-2 for bf16
  std::uint64_t unwritten = 0;  ///< elements still holding the poison written before the run
  [[nodiscard]] bool passed() const { return unwritten == 0 && rel_error <= tolerance; }
};

/// Runs `spec` once on fresh random inputs drawn from `seed` (outputs poisoned first) and compares
/// every output with the reference. Throws std::runtime_error on a CUDA error.
[[nodiscard]] std::vector<Accuracy> check_accuracy(const KernelSpec& spec, std::uint64_t seed);

/// Hardware counters over one measured range (all kernels of one schedule run), summed over the GPU.
struct Counters {
  double dram_read_bytes = 0;       ///< dram__bytes_read.sum
  /// dram__bytes_write.sum of the run, plus what the drain range wrote beyond a clean L2's drain
  double dram_write_bytes = 0;
  double l2_read_sectors = 0;       ///< lts__t_sectors_srcunit_tex_op_read.sum
  double l2_write_sectors = 0;      ///< lts__t_sectors_srcunit_tex_op_write.sum
  double l2_atom_sectors = 0;       ///< lts__t_sectors_srcunit_tex_op_atom.sum
  double l2_red_sectors = 0;        ///< lts__t_sectors_srcunit_tex_op_red.sum
  double smem_ld_wavefronts = 0;    ///< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  double smem_st_wavefronts = 0;    ///< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  double tensor_ops = 0;            ///< sm__ops_path_tensor_src_{fp16,bf16}… .sum for the run's type
  /// l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum: the bytes TMA loads from global memory
  /// (collected for kernels that load by TMA only, Measurement::tma_loads)
  double tma_read_bytes = 0;
  double drain_dram_write_bytes = 0;  ///< the part of dram_write_bytes written back during the drain
  double run_dram_write_bytes = 0;    ///< dram__bytes_write.sum of the run's range alone
  /// dram__bytes_write.sum of the drain's sweep on a clean L2 (right after the flush): subtracted from
  /// the drain's
  double clean_drain_dram_write_bytes = 0;
};

struct Timing {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  int runs = 0;
};

struct MeasureOptions {
  bool counters = true;  ///< collect Counters (needs CUPTI profiling rights; off under ncu)
  bool flush_l2 = true;  ///< sweep the L2 before the measured range (cold start)
  int warmup = 5;
  int runs = 20;         ///< timed runs, after warm-up, in a loop apart from the counters
};

struct Measurement {
  KernelSpec spec;
  std::string device;          ///< the GPU's name
  std::string chip;            ///< CUPTI's chip name, when counters ran
  Counters counters;
  bool has_counters = false;
  std::string counters_error;  ///< why counters are missing, when they are
  std::vector<std::string> dropped_metrics;  ///< metrics the chip could not collect in one pass
  /// The kernels load by TMA (flash3): their L2 reads are Counters::tma_read_bytes, since
  /// lts__t_sectors_srcunit_tex_op_read sees only part of TMA's reads (62% on an H200, docs/flash3.md).
  bool tma_loads = false;
  bool has_tma_counter = false;  ///< tma_read_bytes was collected
  Timing time;       ///< each run after an L2 sweep (cold)
  Timing time_warm;  ///< runs back to back (warm)
};

/// Runs `spec` on random inputs: once inside a profiled range (L2 flushed before, drained after),
/// then `runs` times under CUDA events, cold (the L2 swept before each, outside the events) and warm
/// (back to back). Throws std::runtime_error on a CUDA error or an unsupported spec.
[[nodiscard]] Measurement measure(const KernelSpec& spec, const MeasureOptions& opt);

/// What each resource of the time model reaches on this GPU (`iosim calibrate`): one small kernel per
/// resource, written with the instructions iosim's kernels use, timed with CUDA events
/// (cuda/ceilings/ceilings.cu says how). The fields match the `measured:` section of a config.
struct Ceilings {
  std::string device;
  int sm_count = 0;
  double max_sm_mhz = 0;             ///< the device's rated peak clock
  double hbm_gb_per_s = 0;           ///< a 1 GiB copy: (bytes read + written) / time
  double l2_gb_per_s = 0;            ///< ld.global.cg of a quarter of the L2, over and over
  double l2_red_gb_per_s = 0;        ///< fp32 atomicAdd (RED) into an L2-resident buffer: bytes added
  double sram_gb_per_s = 0;          ///< conflict-free ld.shared.v4, whole chip
  double tensor_fp16_tflops = 0;     ///< mma.sync m16n8k16 fp16, fp32 accumulate
  double tensor_bf16_tflops = 0;     ///< the same in bf16
  double exp2_g_per_s = 0;           ///< ex2.approx.ftz.f32 results
  double gemm_fp16_tflops = 0;       ///< cuBLAS 8192³ fp16 GEMM, for reference (not a model rate)
  PipelineSpec pipeline;             ///< latencies and issue figures, the `pipeline:` keys (measure_pipeline)
  /// Why pipeline.wgmma_latency and wgmma_interval are 0 ("no wgmma on this device: ..." or "... build:
  /// ..."); empty where they were measured.
  std::string wgmma_not_measured;
};

/// Runs the ceiling kernels and measure_pipeline() (a few seconds). Throws std::runtime_error on a CUDA
/// error.
[[nodiscard]] Ceilings measure_ceilings();

/// The latency microbenchmarks alone (cuda/ceilings/latency_*.cu): every figure of PipelineSpec, each the
/// median of several runs after a warm-up. Throws std::runtime_error on a CUDA error or when a figure
/// comes out non-positive or not finite (a broken microbenchmark). The wgmma figures stay 0 where
/// latency::wgmma_unavailable() (cuda/ceilings/latency.h) says why.
[[nodiscard]] PipelineSpec measure_pipeline();

}  // namespace iosim::gpu
