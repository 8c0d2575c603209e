// Kernel families: how a kind of CUDA kernel turns a schedule's step into warp instructions — its
// warp layout, where its matrix operands come from, how its stages use shared memory, its register
// model and which of its work overlaps. Data, not code paths, beside the schedules: the schedules
// take their register estimate from it, the time model's SM model (sim/timing/sm_model.h) reads a
// family and the step profile and nothing else, so a new kind of kernel (a warp-specialised Hopper
// kernel, a Triton kernel) is a new description. A schedule's own kernels are described in its folder
// (sim/schedule/<name>/families.cpp, returned by its registry entry's `families`); the generic ones
// (element-wise, library, measured-rate) in kernel_family.cpp.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/schedule/kernel_source.h"

namespace iosim {

/// How the warps of a block share one matrix product's output (m × n).
enum class WarpSplit : std::uint8_t {
  rows,  ///< each warp owns m / warps whole rows and all n columns (FlashAttention-2's forward)
  grid,  ///< the warps tile m × n as a grid, as many along m as divide it (the backward's products)
};

/// Where a matrix product's operand comes from for the tensor cores.
enum class Operand : std::uint8_t {
  registers,  ///< already in registers (Q held across the loop, P reused from the S accumulators)
  shared,     ///< read from shared memory by ldmatrix, once per warp that needs it
};

struct MatmulRole {
  WarpSplit split = WarpSplit::rows;
  Operand a = Operand::shared;
  Operand b = Operand::shared;
  /// The warps write the product's output, packed to 16 bits, into shared memory for a later product of
  /// the step (P and dS of the backward), one 32-bit store per lane.
  bool output_staged = false;
};

/// The roles the families' products take: warps own rows with A from registers (Q held, P reused) or
/// from shared memory, or tile the output as a grid with both operands from shared memory.
inline constexpr MatmulRole kRowsRegShared{WarpSplit::rows, Operand::registers, Operand::shared};
inline constexpr MatmulRole kRowsSharedShared{WarpSplit::rows, Operand::shared, Operand::shared};
inline constexpr MatmulRole kGridShared{WarpSplit::grid, Operand::shared, Operand::shared};
/// A grid-split product whose output is staged in shared memory for a later product.
inline constexpr MatmulRole kGridSharedStaged{WarpSplit::grid, Operand::shared, Operand::shared, true};

/// What the model knows of a family's shared-memory layout, which decides whether it counts the
/// kernel's shared-memory wavefronts (sim/timing/smem_wavefronts.h) or leaves them to an estimate.
enum class SharedLayout : std::uint8_t {
  unknown,   ///< a library's or a compiler's layout (cuBLAS, PyTorch's, Triton's) or one the family does not
             ///< describe: the wavefronts are estimated from the bytes
  none,      ///< uses no shared memory (iosim's element-wise kernels): no wavefronts
  swizzled,  ///< iosim's kernels (cuda/kernels/common.cuh): 16-byte chunks XOR-swizzled, every ldmatrix and
             ///< fragment store conflict-free (static_assert'ed there)
  flashdecode,  ///< cuda/kernels/flashdecode.cuh's split kernel: swizzled tiles, and its own warp split and
                ///< merge, counted block by block (sim/timing/decode_wavefronts.h)
  flashdecode_combine,  ///< cuda/kernels/flashdecode.cuh's combine: each row's split weights staged in shared
                        ///< memory, counted block by block (sim/timing/decode_wavefronts.h)
};

/// The tensor-core instruction a family's products issue.
enum class MmaInstruction : std::uint8_t {
  mma_sync,  ///< mma.sync m16n8k16 per warp, shared-memory operands staged by ldmatrix (Ampere and later)
  wgmma,     ///< wgmma.mma_async m64nNk16 (N ≤ 256) per warpgroup of four warps (sm_90a): shared-memory
             ///< operands read by the tensor cores through a descriptor, once per warpgroup (no ldmatrix);
             ///< asynchronous: the warp issues on while the product runs
};

/// How a warp-specialised family reallocates registers between its warpgroups (setmaxnreg): with
/// `consumer_groups` consumer warpgroups, the producer's threads shrink to `producer` registers and
/// the consumers' grow to `consumer`.
struct RegisterSplit {
  std::uint32_t consumer_groups = 0;
  std::uint32_t producer = 0;
  std::uint32_t consumer = 0;
};

/// How the time of a family's kernels is found.
enum class FamilyModel : std::uint8_t {
  sm_steps,  ///< the SM model, step by step (sm_model.h)
  roofline,  ///< a library kernel whose inner structure iosim does not describe (cuBLAS): each resource
             ///< at its rate, the largest one binding
  /// A library kernel timed alone on the GPU (the config's kernel_rates): the bytes it reads
  /// and writes at the rate measured for rows of the problem's n_kv; the roofline where the config
  /// has no such measurement.
  measured_rate,
  compiled,  ///< the SM model, step by step, each step's instructions taken from the kernel's compiled
             ///< record (compiled_kernel.h, KernelRequest::compiled) instead of derived (compiled_step.h)
};

/// How the warps that share an SM sub-partition meet on its pipes.
enum class Overlap : std::uint8_t {
  queued,    ///< every resident warp runs the same step on its own (FlashAttention-2: the products, then the
             ///< softmax, then the products, on one pipe after another); warps of different blocks are
             ///< not held together, so each queues for a pipe behind whichever others are on it
             ///< (sm_model.h: mean-value analysis over the pipes)
  simulated, ///< as `queued`, with the block barriers: one SM's warps issued instruction by instruction
             ///< (sm_model.h, sm_sim.h), so that a block waits at each barrier for its slowest warp, which
             ///< the queueing's means cannot see
  staggered, ///< warpgroups are scheduled out of phase on purpose (FlashAttention-3's ping-pong, by named
             ///< barriers): one's softmax runs while another's products do, and a warp's products overlap
             ///< its own softmax; a step takes the larger of one chain and the pipes' work
  lockstep,  ///< warpgroups held in phase by a barrier of all consumers every step (FlashAttention-3's
             ///< backward: the dS barrier before dQ = dS K): all run their element-wise work at the same
             ///< time, so none of it hides behind another warpgroup's products; a step takes the pipes'
             ///< work with the part of one chain that is not products added to the tensor pipe's
};

/// Warp instructions a step issues beyond what the SM model derives from the schedule (integer and
/// address arithmetic, conversions, shared-memory staging, control): per warp and step,
///   per_step + per_score · m·n / lanes + per_row · m·k / lanes + per_column · n·k / lanes
///            + per_pipelined_step (a block of two or more K/V stages)
/// for the step's first product m × n × k (S = Q Kᵀ: B_r × B_c × d) and lanes = 32 × warps. Fitted
/// (non-negative least squares) to the instructions ncu counted in the family's compiled kernels
/// (scripts/fit-instructions.py over scripts/instruction-mix.py's files), not to their times. The
/// counts are whole kernels at n = 2048 divided by their warp-steps, so a block's prologue and
/// epilogue are spread over its steps (a little too much overhead per step at larger n).
struct StepOverhead {
  double per_step = 0;
  double per_score = 0;
  double per_row = 0;
  double per_column = 0;
  /// A loop that keeps tiles in flight (stages ≥ 2) issues the copies of tile j + stages − 1, waits
  /// by group count and computes each stage's addresses: what a one-stage loop does not.
  double per_pipelined_step = 0;
};

/// What a warp of the family waits on its own instructions' results, per instruction, measured by
/// Nsight Compute's warp-state counters on the family's compiled kernels (scripts/fit-stalls.py over
/// the files of scripts/gpu stalls: medians over the kernels of the tile menu). Both are properties of the
/// compiled code and of the latencies, not of how many warps share the SM, so the SM model adds them
/// to one warp's own time through a step (its serial bound); sharing (other warps' issue, the pipes'
/// throughput) it derives itself. Counted cycles, not fitted to kernel times.
struct DependencyWaits {
  double per_instruction = 0;  ///< fixed-latency waits ("wait": the stall counts the compiler encodes)
  double per_mio = 0;          ///< MIO results (short scoreboard) per ldmatrix, shuffle and ex2 the model counts
  /// The same where a warp owns two or more m16 tiles of a product's rows (0: per_mio for every warp):
  /// each K or V fragment it reads by ldmatrix then feeds one product per tile, whose issue hides the
  /// load's latency; with one tile the warp soon waits for its next fragment. Measured in the same way
  /// (fa2-fwd: 4.6 with 16 rows a warp, 1.4 with 32).
  double per_mio_multi_tile = 0;
  /// Issue cycles lost per instruction: the scheduler picked the warp but could not dispatch its
  /// instruction that cycle (ncu's dispatch_stall per instruction issued). Unlike the waits above it
  /// holds the sub-partition's issue slot, so other warps cannot fill it.
  double dispatch = 0;
  /// What the three above grow by where two or more warps share a sub-partition, for a family measured
  /// with one warp a sub-partition too (the figures above then that one warp's): a second warp's
  /// results and MIO traffic lengthen each warp's own waits. Zero where a family was measured only with
  /// its warps sharing, whose figures above include it.
  struct Shared {
    double per_instruction = 0, per_mio = 0, dispatch = 0;
  } shared = {};

  /// The MIO wait of a warp that owns `rows` rows of the step's first product.
  [[nodiscard]] double mio(std::uint64_t rows) const {
    return rows > 16 && per_mio_multi_tile > 0 ? per_mio_multi_tile : per_mio;
  }
};

/// How a Hopper-native (sm_90a) family differs from an mma.sync one: all defaults for the others.
struct HopperTraits {
  MmaInstruction mma = MmaInstruction::mma_sync;
  /// Warps of a block that only load (a warp-specialised kernel's producer warpgroup): they issue no
  /// products and no element-wise work, so the SM model prices the other warps' steps.
  std::uint32_t producer_warps = 0;
  /// Loads are issued by the tensor memory accelerator (TMA, cp.async.bulk.tensor): one instruction a
  /// box (LaunchShape::tma_box_rows rows of up to 128 bytes) from one thread of the producer, none per
  /// lane; they land in shared memory as cp.async's do. The SM's TMA unit takes
  /// pipeline.tma_copy_cycles per copy: a throughput bound of the step (many small boxes: paged K/V).
  bool tma_loads = false;
  /// Intra-warpgroup overlap (FlashAttention-3's forward): step j issues S_j = Q K_jᵀ and
  /// O += P_{j−1} V_{j−1} together, waits for S_j only, and runs the softmax of S_j while the second
  /// product is on the tensor cores. So a step's chain is the longer of its products' chain and the
  /// first product followed by the rest (the softmax needs S_j); and a block pays once what the
  /// pipelined loop cannot overlap: its first step's loads, S_0 and softmax before any product is
  /// queued, and after the last step the last softmax and the last product (block_time's drain).
  /// Needs MmaInstruction::wgmma.
  bool overlap_products = false;
  /// Register reallocation by consumer warpgroups (warp-specialised families; empty otherwise).
  std::vector<RegisterSplit> register_splits;
};

/// Which masks a compiled kernel's measured spills hold for (the kernels are compiled per mask).
enum class SpillMask : std::uint8_t {
  any,     ///< the unmasked and the causal kernel alike (measured so, or measured together)
  none,    ///< the unmasked kernel only
  causal,  ///< the causal kernel only (no window)
};

/// A compiled kernel's register spills: its local-memory stores, which reach the L2 as writes on top of
/// the global stores the schedule emits, per block and per step of its innermost loop (a step as the
/// schedule's kernel emits it), at one head dimension the kernel is compiled for. Counted by Nsight
/// Compute (local store sectors), not derived; exact integers, whole sectors.
struct SpillStores {
  std::string_view kernel;  ///< Kernel::name() of the schedule's kernel that the family runs
  std::uint64_t head_dim = 0;
  SpillMask mask = SpillMask::any;
  std::uint64_t per_block = 0;  ///< bytes
  std::uint64_t per_step = 0;   ///< bytes
};

struct KernelFamily {
  std::string_view name;
  std::string_view source;  ///< where the description comes from (the kernel's own file)
  FamilyModel model = FamilyModel::sm_steps;
  /// The products of one step, in the order the schedule emits them; a step with more products
  /// than roles repeats the last role.
  std::vector<MatmulRole> matmuls = {};
  /// Rounds of warp shuffles per row of a step: the row reductions across the four lanes of a quad
  /// that hold one row of an m16n8 accumulator (two rounds per reduction, xor 1 and xor 2).
  std::uint32_t shuffle_rounds_per_step = 0;
  /// Block barriers (__syncthreads) per step.
  std::uint32_t barriers_per_step = 0;
  /// The loads of step j + 1 are issued before step j computes (a cp.async ring of `stages` copies):
  /// with s stages, s − 1 steps of compute cover a load's latency. False: every step waits for its
  /// own loads (the latency of a round trip to the L2 or DRAM is on the critical path).
  bool loads_pipelined = false;
  /// True: the step's dQ reductions (RED, which returns nothing) are followed by a product before the
  /// next barrier, so a queued warp goes on while the L2 applies them and only their rate bounds the
  /// step (PyTorch's FlashAttention-2: atomicAdd from the accumulators, then dK += dSᵀ Q). False: the
  /// warps queue for the SM's share of the reduction rate as at a pipe (iosim's flash2 backward issues
  /// them in a loop of their own between two barriers).
  bool reductions_overlapped = false;
  /// True: a warp's shared-memory reads run beside its products (its ldmatrix of the next k-slice
  /// while the current slice's mma.sync run), so a `queued` warp alone takes the longer of its tensor
  /// pipe and shared-memory work, not their sum; other warps still queue at each.
  bool reads_beside_products = false;
  /// Registers per thread = base + per_fragment × the fragment registers the thread holds across a
  /// step (its share of the fp32 accumulators and of operands kept in registers, as the schedule
  /// counts them): the rest is addresses, indices, B fragments in flight and softmax temporaries,
  /// which grow with the tile. Both fitted by least squares to ptxas -v of the family's compiled
  /// kernels (scripts/fit-registers.py, results/ptxas-registers-sm90-cuda13.0.json); a straight line
  /// through them, so base may fall below 0 where the largest tiles reach ptxas's cap. 0: no model.
  /// The menu's compiled variants are priced from their own registers instead (kernel_registers.h).
  double base_registers = 0;
  double per_fragment = 1;
  Overlap overlap = Overlap::queued;
  StepOverhead overhead = {};
  DependencyWaits waits = {};
  /// What a Hopper-native kernel does beyond an Ampere-style one ({} for the others).
  HopperTraits hopper = {};
  /// Where a step's rows are at most this many (one m16 tile), the warps split the K/V tile's columns
  /// instead of the rows, each taking its share of S and of P V for every row (the decode kernel's
  /// column mode, cuda/kernels/flashdecode.cuh): the products are priced as tiled by the warps as a
  /// grid. 0: the roles above whatever the rows.
  std::uint32_t columns_below_rows = 0;
  /// The stages of its load pipeline where the kernel fixes them whatever copies of K/V the schedule
  /// keeps (0: the schedule's stages).
  std::uint32_t load_stages = 0;
  /// Register spills measured in the family's compiled kernels (empty: none, or none measured).
  std::vector<SpillStores> spills = {};
  /// Its shared-memory layout, as far as the model knows it.
  SharedLayout smem_layout = SharedLayout::unknown;
  /// Its outputs reach HBM through shared memory: the warps write their fragments there and read them
  /// back for the global stores (iosim's kernels' store_rows) or atomic adds (the backward's dQ).
  bool output_staged = false;
  /// 16-bit tiles the size of a step's first product's A (m × k: B_r × d) that the step reads from shared
  /// memory by 32-bit loads beyond its products' operands: an output accumulated in place there (read
  /// before each update) and element-wise operands (FlashAttention's O_i and dO_i for D_i = rowsum(dO ∘ O)).
  std::uint32_t shared_tile_reads = 0;
  /// Row statistics a backward step keeps in shared memory beside its tiles, 4 bytes a row of Q_i each
  /// (iosim's kernels: the exponent's offset and factor from L_i, or m_i and l_i, and D_i).
  struct RowStats {
    /// Written by one thread a row: 32 rows a warp instruction, one store wavefront each.
    std::uint32_t stored = 0;
    /// Written by one lane a row after a warp's reduction (flash1's D_i): one store wavefront a row.
    std::uint32_t stored_by_lane = 0;
    /// Read by every warp of the step's first product for its fragments' rows: one load per statistic
    /// and half m16 tile (8 rows, a quad of lanes a row on the same word), one wavefront each.
    std::uint32_t read = 0;
  };
  RowStats row_stats = {};
};

/// The spills of `family`'s kernel `kernel_name` at compiled head dimension `head_dim`, under the causal
/// mask or none; nullptr where none were measured.
[[nodiscard]] const SpillStores* spill_stores(const KernelFamily& family, std::string_view kernel_name,
                                              std::uint64_t head_dim, bool causal);

/// The register split of `family` with `consumer_groups` consumer warpgroups; nullptr where it has none.
[[nodiscard]] const RegisterSplit* register_split(const KernelFamily& family, std::uint32_t consumer_groups);

/// A thread's registers in a kernel of `family` holding `fragment_registers` (see KernelFamily): the
/// family's line, and never fewer than the fragments themselves (below its fitted tiles a line with a
/// negative base would otherwise fall under them, or under zero).
[[nodiscard]] std::uint32_t family_registers(const KernelFamily& family, double fragment_registers);

/// The family of a kernel, by the kernel's name (Kernel::name()) and whose compiled kernel runs it
/// (the registry's kernels, pytorch_kernels or triton_kernels); the roofline family for a name no family describes.
[[nodiscard]] const KernelFamily& family_of(std::string_view kernel_name, KernelSource source = KernelSource::iosim);

/// Every family, for tests and docs: each schedule's own (its entry's `families`, in the catalog's
/// order), then the generic ones. Names are unique, so a lookup by name does not depend on the order.
[[nodiscard]] const std::vector<KernelFamily>& kernel_families();

}  // namespace iosim
