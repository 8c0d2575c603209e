#include "sim/timing/sm_model.h"

#include <algorithm>
#include <cmath>

#include "sim/schedule/flash2_step.h"
#include "sim/timing/compiled_step.h"
#include "sim/timing/decode_wavefronts.h"
#include "sim/timing/mva.h"
#include "sim/timing/sm_sim.h"
#include "sim/timing/time_model.h"

namespace iosim {

namespace {

constexpr double kWarpLanes = 32;
constexpr double kMmaFlops = 2.0 * 16 * 8 * 16;  ///< one m16n8k16
constexpr double kLdmatrixBytes = 512;           ///< one ldmatrix.x4: four 8 × 8 matrices of 16-bit elements
constexpr double kCpAsyncBytes = 16;             ///< one cp.async per lane
constexpr double kStoreBytes = 16;               ///< one 16-byte store per lane
constexpr double kReduceBytes = 4;               ///< one fp32 atomic add (RED) per lane

double either(double measured, double datasheet) { return measured > 0 ? measured : datasheet; }

std::uint64_t ceil_div_u(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// How many of `warps` go along m when they tile an m × n product as a grid: as many as divide both
/// the warps and m's 16-row tiles (cuda/kernels/common.cuh, warp_grid).
std::uint64_t warps_along_m(std::uint64_t m, std::uint64_t warps) {
  std::uint64_t wm = std::max<std::uint64_t>(1, std::min(ceil_div_u(m, 16), warps));
  while (wm > 1 && (warps % wm != 0 || ceil_div_u(m, 16) % wm != 0)) --wm;
  return wm;
}

/// wgmma: a warpgroup's instruction is m64 × N × k16 with N ≤ 256 (PTX ISA, "wgmma.mma_async").
constexpr std::uint64_t kWgmmaRows = 64;
constexpr std::uint64_t kWgmmaMaxN = 256;
constexpr std::uint64_t kWarpsPerGroup = 4;
constexpr double kOperandBytes = 2;  ///< 16-bit operands, as kLdmatrixBytes assumes

/// One warp's share of a product issued as wgmma by `warps / 4` warpgroups: its instructions, its
/// tensor work in m16n8k16 equivalents (each warp computes 16 rows of every m64 tile), the rows it
/// holds, and the shared-memory bytes the block's tensor cores read for its operands.
struct WgmmaShare {
  double instructions = 0, mma_equivalents = 0, smem_bytes = 0;
  std::uint64_t rows_per_warp = 0;
};

WgmmaShare wgmma_share_as(const MatmulShape& mm, const MatmulRole& role, std::uint64_t warps) {
  const std::uint64_t groups = std::max<std::uint64_t>(1, warps / kWarpsPerGroup);
  std::uint64_t mg = ceil_div_u(mm.m, groups), ng = mm.n;
  if (role.split == WarpSplit::grid) {
    std::uint64_t gm = std::max<std::uint64_t>(1, std::min(ceil_div_u(mm.m, kWgmmaRows), groups));
    while (gm > 1 && (groups % gm != 0 || ceil_div_u(mm.m, kWgmmaRows) % gm != 0)) --gm;
    mg = ceil_div_u(mm.m, gm);
    ng = ceil_div_u(mm.n, groups / gm);
  }
  const std::uint64_t mt = std::max<std::uint64_t>(1, ceil_div_u(mg, kWgmmaRows));
  const std::uint64_t nchunks = std::max<std::uint64_t>(1, ceil_div_u(ng, kWgmmaMaxN));
  const std::uint64_t kt = std::max<std::uint64_t>(1, ceil_div_u(mm.k, 16));
  WgmmaShare w;
  w.instructions = static_cast<double>(mt * nchunks * kt);
  w.mma_equivalents = static_cast<double>(mt * std::max<std::uint64_t>(1, ceil_div_u(ng, 8)) * kt);
  w.rows_per_warp = mt * 16;
  // Per warpgroup: A (m64 × k16) once per instruction, B (N × k16) once per instruction.
  const double a = role.a == Operand::shared ? static_cast<double>(mt * nchunks * kt * kWgmmaRows * 16) : 0;
  const double b = role.b == Operand::shared ? static_cast<double>(mt * ng * kt * 16) : 0;
  w.smem_bytes = static_cast<double>(groups) * (a + b) * kOperandBytes;
  return w;
}

/// A grid-split product may be computed transposed (Cᵀ = Bᵀ Aᵀ: FlashAttention-3's backward's swapAB
/// choices) so that fewer of its rows pad an m64 tile; the kernel takes the cheaper orientation.
WgmmaShare wgmma_share(const MatmulShape& mm, const MatmulRole& role, std::uint64_t warps) {
  const WgmmaShare straight = wgmma_share_as(mm, role, warps);
  if (role.split != WarpSplit::grid) return straight;
  WgmmaShare swapped = wgmma_share_as({mm.n, mm.m, mm.k}, {role.split, role.b, role.a}, warps);
  swapped.rows_per_warp = straight.rows_per_warp;
  return swapped.mma_equivalents < straight.mma_equivalents ? swapped : straight;
}

struct WarpTiles {
  std::uint64_t mt = 0, nt = 0, kt = 0;  ///< m16, n8 and k16 tiles of one warp's share
};

WarpTiles warp_tiles(const MatmulShape& mm, const MatmulRole& role, std::uint64_t warps) {
  std::uint64_t mw = mm.m, nw = mm.n;
  if (role.split == WarpSplit::rows) {
    mw = ceil_div_u(mm.m, warps);
  } else {
    const std::uint64_t wm = warps_along_m(mm.m, warps);
    mw = ceil_div_u(mm.m, wm);
    nw = ceil_div_u(mm.n, warps / wm);
  }
  return {std::max<std::uint64_t>(1, ceil_div_u(mw, 16)), std::max<std::uint64_t>(1, ceil_div_u(nw, 8)),
          std::max<std::uint64_t>(1, ceil_div_u(mm.k, 16))};
}

}  // namespace

double wgmma_interval_per_smsp(double cycles_per_m64n128k16_per_sm) {
  return cycles_per_m64n128k16_per_sm * kSchedulersPerSm / kMmaPerM64n128k16;
}

SmRates sm_rates(const HardwareSpec& hw, DType t, bool wgmma_family) {
  SmRates r;
  r.lat = hw.pipeline;
  for (const PipelineField& f : kPipelineFields) r.lat.*(f.field) = pipeline_figure(hw, f.field);
  r.clock_hz = either(r.lat.clock_mhz, hw.clock.sm_mhz) * 1e6;
  const double smsps = static_cast<double>(hw.sm.count) * kSchedulersPerSm;
  const double per_smsp_cycle = smsps * r.clock_hz;
  const double tensor = tensor_rate(hw, t);
  r.mma_interval = tensor > 0 ? kMmaFlops / (tensor / per_smsp_cycle) : 0;
  const double fp16_peak = hw.peak.tensor_fp16_tflops;
  const double gemm_share = hw.measured.gemm_fp16_tflops > 0 && fp16_peak > 0 && t != DType::fp32
                                ? hw.measured.gemm_fp16_tflops / fp16_peak
                                : 1.0;
  const double wgmma = tensor_peak(hw, t) * gemm_share;
  r.wgmma_interval = wgmma > 0 ? kMmaFlops / (wgmma / per_smsp_cycle) : 0;
  const double type_peak = tensor_peak(hw, t);
  if (r.lat.wgmma_interval > 0 && t != DType::fp32 && fp16_peak > 0 && type_peak > 0) {
    // Measured in fp16; the other types at the datasheet's ratio of their peaks (the same tensor cores).
    r.wgmma_interval = wgmma_interval_per_smsp(r.lat.wgmma_interval) * (fp16_peak * 1e12 / type_peak);
  }
  const double sfu = either(hw.measured.exp2_g_per_s * 1e9, hw.sm.sfu_ops_per_clock * hw.clock.sm_mhz * 1e6 * hw.sm.count);
  r.ex2_interval = sfu > 0 ? kWarpLanes / (sfu / per_smsp_cycle) : 0;
  // The FP32 peak counts an FMA as two FLOPs; the softmax's operations are one instruction each.
  const double fp32_lanes = hw.peak.fp32_tflops * 1e12 / 2;
  r.fp32_interval = fp32_lanes > 0 ? kWarpLanes / (fp32_lanes / per_smsp_cycle) : 0;
  r.shfl_interval = r.lat.shfl_interval;
  const double sms = hw.sm.count;
  r.smem_bytes_per_cycle = hw.measured.sram_gb_per_s > 0 ? hw.measured.sram_gb_per_s * 1e9 / sms / r.clock_hz
                                                         : hw.sm.sram_bytes_per_clock;
  const double l2 = either(hw.measured.l2_gb_per_s * 1e9, hw.l2.bytes_per_clock * hw.clock.sm_mhz * 1e6);
  r.l2_bytes_per_cycle = l2 / sms / r.clock_hz;
  r.red_bytes_per_cycle = hw.measured.l2_red_gb_per_s * 1e9 / sms / r.clock_hz;
  if (wgmma_family && hw.measured.wgmma_clock_mhz > 0) {
    // The SM's cycles at the clock measured under a wgmma-bound kernel: what the SM does per cycle
    // (latencies, the FP32, SFU, shuffle and shared-memory pipes) stays per cycle; the rates of the
    // L2 and of the tensor cores at the cuBLAS GEMM's FLOP/s (itself measured under the power limit)
    // stay per second, so each of their cycles does more.
    const double k = hw.measured.wgmma_clock_mhz * 1e6 / r.clock_hz;
    if (r.lat.wgmma_interval <= 0) r.wgmma_interval *= k;
    r.l2_bytes_per_cycle /= k;
    r.red_bytes_per_cycle /= k;
    r.clock_hz = hw.measured.wgmma_clock_mhz * 1e6;
    r.lat.clock_mhz = hw.measured.wgmma_clock_mhz;
  }
  return r;
}

StepCost step_cost(const Segment& s, bool first, bool last, const KernelFamily& f, const BlockShape& shape,
                   const SmRates& r) {
  StepCost c;
  const std::uint64_t warps = std::max<std::uint32_t>(1, shape.warps);
  const auto w = static_cast<double>(warps);
  double tensor = 0, sfu = 0, fp32 = 0, shfl = 0, instructions = 0, smem_bytes = 0;
  std::uint64_t rows_per_warp = 0;
  constexpr MatmulRole kDefault{WarpSplit::grid, Operand::shared, Operand::shared};
  double product_chain = 0;  // the products' part of the chain (overlapped with the rest: overlap_products)
  double first_product_chain = 0;  // the first product's (S_j: the rest waits for it under overlap_products)
  double last_product_chain = 0;   // the last product's (P V: the drain after a pipelined block's last step)
  for (std::size_t i = 0; i < s.matmuls.size(); ++i) {
    MatmulRole role = f.matmuls.empty() ? kDefault : f.matmuls[std::min(i, f.matmuls.size() - 1)];
    if (f.columns_below_rows > 0 && s.matmuls.front().m <= f.columns_below_rows) role.split = WarpSplit::grid;
    if (f.hopper.mma == MmaInstruction::wgmma) {
      // Issued back to back and waited for once (wgmma.wait_group): one latency a product, wgmma's
      // where iosim calibrate measured it (or the config gives it), else mma.sync's in its place.
      const WgmmaShare g = wgmma_share(s.matmuls[i], role, warps);
      if (i == 0) rows_per_warp = g.rows_per_warp;
      tensor += g.mma_equivalents * r.wgmma_interval;
      instructions += g.instructions;
      c.mix.mma += g.instructions;
      smem_bytes += g.smem_bytes;
      const double busy = g.mma_equivalents * r.wgmma_interval;
      const double phase = std::max(busy, r.lat.wgmma_latency > 0 ? r.lat.wgmma_latency : r.lat.mma_latency);
      product_chain += phase;
      if (i == 0) first_product_chain = phase;
      last_product_chain = phase;
      c.chain_busy += busy;
      continue;
    }
    const WarpTiles t = warp_tiles(s.matmuls[i], role, warps);
    if (i == 0) rows_per_warp = t.mt * 16;
    const auto mma = static_cast<double>(t.mt * t.nt * t.kt);
    const auto ldsm = static_cast<double>((role.a == Operand::shared ? t.mt * t.kt : 0) +
                                          (role.b == Operand::shared ? ceil_div_u(t.nt, 2) * t.kt : 0));
    tensor += mma * r.mma_interval;
    instructions += mma + ldsm;
    c.mix.mma += mma;
    c.mix.ldmatrix += ldsm;
    smem_bytes += w * ldsm * kLdmatrixBytes;
    const double busy = mma * r.mma_interval;
    const double phase = std::max(busy, static_cast<double>(t.kt) * r.lat.mma_latency);
    product_chain += phase + (ldsm > 0 ? r.lat.ldmatrix_latency : 0);
    c.chain_busy += busy;
  }
  if (!f.hopper.overlap_products) c.chain = product_chain;  // the rest of the step follows the products
  // Element-wise work on one pipe: `ops` lane operations a block, at `interval` cycles a warp instruction.
  const auto elementwise = [&](double ops, double interval, double latency, double& pipe, double& count) {
    if (ops <= 0) return;
    const double n = ops / (w * kWarpLanes);
    pipe += n * interval;
    instructions += n;
    count += n;
    c.chain += n * interval + latency;
    c.chain_busy += n * interval;
  };
  elementwise(s.vector_flops, r.fp32_interval, r.lat.fma_latency, fp32, c.mix.fp32);
  elementwise(s.special_ops, r.ex2_interval, r.lat.ex2_latency, sfu, c.mix.ex2);
  if (!last && f.shuffle_rounds_per_step > 0 && rows_per_warp > 0) {
    // Each lane holds two rows of every m16 tile: one shuffle per row pair, tile and round.
    const double n = static_cast<double>(f.shuffle_rounds_per_step) * 2.0 * static_cast<double>(rows_per_warp / 16);
    shfl += n * r.shfl_interval;
    instructions += n;
    c.mix.shuffle += n;
    c.chain += static_cast<double>(f.shuffle_rounds_per_step) * r.lat.shfl_latency;
  }
  if (!s.matmuls.empty() && shape.sass_step_instructions <= 0) {
    // The instructions the schedule does not name, at the issue rate of one a cycle.
    const MatmulShape& mm = s.matmuls.front();
    const double lanes = w * kWarpLanes;
    const StepOverhead& o = f.overhead;
    c.mix.other = o.per_step + (shape.stages >= 2 ? o.per_pipelined_step : 0) +
                  (o.per_score * static_cast<double>(mm.m * mm.n) +
                                o.per_row * static_cast<double>(mm.m * mm.k) +
                                o.per_column * static_cast<double>(mm.n * mm.k)) / lanes;
    instructions += c.mix.other;
    c.chain += c.mix.other;
    c.chain_busy += c.mix.other;
  }
  if (!last) {
    instructions += f.barriers_per_step;
    c.mix.barrier += f.barriers_per_step;
    c.chain += f.barriers_per_step * r.lat.bar_latency;
  }
  if (s.load_bytes > 0) {
    // TMA: no per-lane instruction, the same round trip through the L2 into shared memory.
    c.mix.load = f.hopper.tma_loads ? 0 : s.load_bytes / (kCpAsyncBytes * kWarpLanes * w);
    if (f.hopper.tma_loads && shape.tma_copy_bytes > 0) {
      // The SM's TMA unit works through the step's copies one after another (HopperTraits::tma_loads).
      c.block_tma = s.load_bytes / shape.tma_copy_bytes * r.lat.tma_copy_cycles;
    }
    instructions += c.mix.load;
    smem_bytes += s.load_bytes;
    const double miss = 1 - std::clamp(shape.l2_hit_rate, 0.0, 1.0);
    c.memory = r.lat.cp_async_latency + miss * std::max(0.0, r.lat.dram_latency - r.lat.l2_hit_latency) +
               (r.l2_bytes_per_cycle > 0 ? s.load_bytes / r.l2_bytes_per_cycle : 0);
    c.pipelined = f.loads_pipelined && shape.stages >= 2 && !first;
    c.lead = c.pipelined ? shape.stages - 1 : 0;
  }
  if (s.store_bytes > 0) {
    c.mix.store = s.store_bytes / (kStoreBytes * kWarpLanes * w);
    instructions += c.mix.store;
    smem_bytes += s.store_bytes;
  }
  if (s.reduce_bytes > 0) {
    c.mix.reduce = s.reduce_bytes / (kReduceBytes * kWarpLanes * w);
    instructions += c.mix.reduce;
    c.block_reduce = r.red_bytes_per_cycle > 0 ? s.reduce_bytes / r.red_bytes_per_cycle : 0;
    c.reductions_overlapped = f.reductions_overlapped;
  }
  if (!s.matmuls.empty() && shape.sass_step_instructions > 0) {
    // The compiled kernel's step (its SASS): what the schedule does not name is the rest of its count,
    // at the issue rate of one a cycle. A masked step runs the masking block: its own count.
    const MatmulShape& qk = s.matmuls.front();
    const bool masked = shape.sass_masked_step_instructions > 0 &&
                        flash2_forward_step_masked(qk.m, qk.n, qk.k, s.vector_flops);
    const double sass = masked ? shape.sass_masked_step_instructions : shape.sass_step_instructions;
    c.mix.other = std::max(0.0, sass - instructions);
    instructions += c.mix.other;
    c.chain += c.mix.other;
    c.chain_busy += c.mix.other;
  }
  // One warp alone through the step (its serial bound): each instruction issued, the fixed-latency and
  // MIO waits on its own results the family's compiled code has (kernel_family.h's DependencyWaits), and
  // the barriers. The chain above is the other bound: the named dependences, queued behind the warps in
  // phase. The step cannot be shorter than either.
  const double mio = c.mix.ldmatrix + c.mix.shuffle + c.mix.ex2;
  const double wait_mio = f.waits.mio(rows_per_warp);
  const double serial = instructions * (1 + f.waits.dispatch + f.waits.per_instruction) + mio * wait_mio +
                        (last ? 0 : f.barriers_per_step * r.lat.bar_latency);
  c.chain = std::max(c.chain, serial);
  c.shared_waits = instructions * (f.waits.shared.dispatch + f.waits.shared.per_instruction) +
                   mio * f.waits.shared.per_mio;
  c.reads_beside_products = f.reads_beside_products;
  c.issue_all = instructions * (1 + f.waits.dispatch);
  c.product_chain = product_chain;
  // Intra-warpgroup overlap: the products and the rest of the step side by side, the rest after the
  // first product (the softmax of S_j waits for S_j; P_{j−1} V_{j−1} runs beside it).
  if (f.hopper.overlap_products) {
    c.first_product_chain = first_product_chain;
    c.last_product_chain = last_product_chain;
    c.chain = std::max(product_chain, first_product_chain + c.chain);
  }
  const std::pair<double, const char*> pipes[] = {
      {tensor, "tensor"}, {sfu, "exp"}, {fp32, "fp32"}, {shfl, "shuffle"}, {instructions * (1 + f.waits.dispatch), "issue"}};
  const auto* busiest = std::max_element(std::begin(pipes), std::end(pipes),
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
  c.pipe_tensor = tensor;
  c.pipe_sfu = sfu;
  c.pipe_fp32 = fp32;
  c.pipe_shfl = shfl;
  c.pipe_issue = std::max(0.0, instructions - c.mix.mma - c.mix.fp32 - c.mix.ex2 - c.mix.shuffle);
  c.warp_issue = busiest->first;
  c.pipe = busiest->second;
  c.block_smem = r.smem_bytes_per_cycle > 0 ? smem_bytes / r.smem_bytes_per_cycle : 0;
  WarpStep& sim = c.sim;
  sim.mma = c.mix.mma;
  sim.ldmatrix = c.mix.ldmatrix;
  sim.fp32 = c.mix.fp32;
  sim.ex2 = c.mix.ex2;
  sim.shuffle = c.mix.shuffle;
  sim.load = c.mix.load;
  sim.store = c.mix.store;
  sim.reduce = c.mix.reduce;
  sim.other = c.mix.other;
  sim.barriers = c.mix.barrier;
  sim.mma_interval = r.mma_interval;
  sim.fp32_interval = r.fp32_interval;
  sim.ex2_interval = r.ex2_interval;
  sim.shfl_interval = r.shfl_interval;
  sim.smem_cycles = c.block_smem / w;
  sim.reduce_cycles = c.block_reduce / w;
  sim.wait = f.waits.per_instruction;
  sim.wait_mio = wait_mio;
  sim.dispatch = f.waits.dispatch;
  sim.bar_latency = r.lat.bar_latency;
  sim.memory = c.memory;
  sim.lead = c.lead;
  return c;
}

StepTime step_time(const StepCost& c, const BlockShape& shape, std::uint32_t blocks, Overlap overlap) {
  const std::uint64_t warps = std::max<std::uint32_t>(1, shape.warps);
  const std::uint64_t resident = ceil_div_u(std::uint64_t{blocks} * warps, kSchedulersPerSm);  // per sub-partition
  const auto per_smsp = static_cast<double>(resident);
  // The resident blocks' loads at the SM's share of the L2's bandwidth bound the step's throughput like
  // its pipes; a load's wait is its round trip (`memory`), its bytes arriving while other SMs compute.
  const double issue =
      std::max({per_smsp * c.warp_issue, static_cast<double>(blocks) * c.block_smem,
                static_cast<double>(blocks) * c.block_reduce, static_cast<double>(blocks) * c.memory_per_block,
                static_cast<double>(blocks) * c.block_tma});
  // The steps between a load and its use cover its round trip; each at least the larger bound (for a
  // queued family its queued time is longer, so this covers a little less than it could).
  const double covered = c.pipelined ? static_cast<double>(c.lead) * std::max(c.chain, issue) : 0;
  const double latency = c.chain + std::max(0.0, c.memory - covered);
  if (overlap == Overlap::simulated) {
    // The simulation's period, bounded below by the pipes' work and by one warp's own chain (the named
    // dependences, which the simulation's per-instruction waits average out).
    const double cycles = std::max({issue, simulate_sm(c.sim, shape.warps, blocks), latency});
    const double busy = std::min(cycles, issue);
    return {cycles, cycles - busy > busy, busy};
  }
  if (overlap == Overlap::queued) {
    // One sub-partition's warps: the SM-wide shared memory and reductions as stations of a quarter of
    // their rate each (the four sub-partitions' warps share them), the rest of the chain as the delay.
    // Reductions a product follows are no station (KernelFamily::reductions_overlapped): a RED returns
    // nothing, so its warp goes on once it is issued (its issue slot is in pipe_issue) while the L2
    // applies it; their rate still bounds the step's throughput (`issue`).
    const double sm_share = per_smsp > 0 ? static_cast<double>(blocks) / per_smsp : 0;  // = 4 / warps
    const double reduce = c.reductions_overlapped ? 0 : sm_share * c.block_reduce;
    const double smem = sm_share * c.block_smem;
    const double all[] = {c.pipe_tensor, c.pipe_sfu, c.pipe_fp32, c.pipe_shfl, c.pipe_issue, smem, reduce};
    // Where reads run beside products, every instruction queues at one issue slot (the sub-partition's
    // dispatch, which all of a warp's instructions share) in place of FP32, shuffle and other issue
    // stations that each queued only with itself.
    const double one_issue[] = {c.pipe_tensor, c.pipe_sfu, c.issue_all, smem, reduce};
    const std::span<const double> demands = c.reads_beside_products ? std::span<const double>(one_issue)
                                                                    : std::span<const double>(all);
    double work = 0;
    for (double d : demands) work += d;
    // One warp alone takes its chain, or its stations' work where that is longer: all of it one after
    // another, or with the tensor pipe's and the shared memory's side by side where its reads run beside
    // its products (the delay is then negative by their overlap; the others' queues still add both).
    const double alone_work = c.reads_beside_products ? work - std::min(c.pipe_tensor, smem) : work;
    const double chain = latency + (resident > 1 ? c.shared_waits : 0);
    const double delay = std::max(chain, alone_work) - work;
    const double cycles = std::max(issue, mva_cycle_time(demands, delay, static_cast<std::uint32_t>(resident)));
    const double busy = std::min(cycles, issue);
    return {cycles, cycles - busy > busy, busy};
  }
  if (overlap == Overlap::lockstep) {
    // The products of every resident warp, then what of one warp's chain is not products.
    const double together = per_smsp * c.pipe_tensor + std::max(0.0, c.chain - c.product_chain);
    const double cycles = std::max({issue, latency, together});
    const double busy = std::min(cycles, issue);
    return {cycles, cycles - busy > busy, busy};
  }
  if (latency < issue) return {issue, false, issue};
  return {latency, true, std::min(c.chain_busy, latency)};
}

BlockTime block_time(const BlockProfile& p, const KernelFamily& f, const BlockShape& shape, const SmRates& r,
                     std::uint32_t blocks, const CompiledKernel* compiled) {
  BlockTime out;
  std::uint64_t segments = 0;
  for (const SegmentRun& run : p.runs) segments += run.count;
  const bool has_epilogue = segments > p.steps;
  double longest_issue = -1;
  // A simulated family's steps that run once (the first, the epilogue) are priced by the queueing:
  // the simulation measures a steady state of repeated steps, which one step has not.
  const auto overlap_of = [&](std::uint64_t repeats) {
    return f.overlap == Overlap::simulated && repeats < 2 ? Overlap::queued : f.overlap;
  };
  // A compiled family's steps from its record; the others' derived from the schedule.
  const auto cost = [&](const Segment& s, bool first, bool last) {
    if (compiled == nullptr) return step_cost(s, first, last, f, shape, r);
    StepCost c = compiled_step_cost(s, first, *compiled, shape, r);
    c.reads_beside_products = f.reads_beside_products;
    return c;
  };
  StepCost last_step;  // the last step before the epilogue (overlap_products: the loop's drain)
  for (std::size_t i = 0; i < p.runs.size(); ++i) {
    const SegmentRun& run = p.runs[i];
    const bool last = has_epilogue && i + 1 == p.runs.size();
    std::uint64_t rest = run.count;
    if (i == 0) {
      const StepCost c = cost(run.segment, true, last && run.count == 1);
      const StepTime t = step_time(c, shape, blocks, overlap_of(1));
      out.cycles += t.cycles;
      out.latency_cycles += t.cycles - t.busy;
      out.instructions.add(c.mix, static_cast<double>(shape.warps));
      out.wavefronts.add(step_wavefronts(run.segment, true, f, c.mix, shape.warps));
      if (!last) last_step = c;
      --rest;
    }
    if (rest == 0) continue;
    const StepCost c = cost(run.segment, false, last);
    const StepTime t = step_time(c, shape, blocks, overlap_of(rest));
    const double cycles = t.cycles * static_cast<double>(rest);
    out.cycles += cycles;
    out.latency_cycles += (t.cycles - t.busy) * static_cast<double>(rest);
    out.instructions.add(c.mix, static_cast<double>(shape.warps) * static_cast<double>(rest));
    out.wavefronts.add(step_wavefronts(run.segment, false, f, c.mix, shape.warps), static_cast<double>(rest));
    if (!last) last_step = c;
    if (t.busy * static_cast<double>(rest) > longest_issue) {
      longest_issue = t.busy * static_cast<double>(rest);
      out.pipe = c.pipe;
    }
  }
  // The decode kernel's wavefronts follow its own warp split and merge, not the steps' instruction mix.
  if (f.smem_layout == SharedLayout::flashdecode) {
    out.wavefronts = decode_split_wavefronts(p, shape.head_dim, shape.tile_cols);
  } else if (f.smem_layout == SharedLayout::flashdecode_combine) {
    out.wavefronts = decode_combine_wavefronts(p, shape.head_dim, shape.output_element_bytes);
  }
  if (f.hopper.overlap_products && compiled == nullptr) {
    // A software-pipelined loop of n iterations at period P takes its start, (n − 1)·P and the latency
    // L of one iteration. The steps above price the first (its loads, S_0 and the softmax: no product
    // queued before them) and n − 1 periods; L adds what the last iteration runs after its softmax:
    // the other consumer warpgroups' S, queued on the tensor cores ahead of the last one's, and the
    // last O += P V, which no later softmax overlaps.
    const double groups = std::max(1.0, static_cast<double>(shape.warps) / static_cast<double>(kWarpsPerGroup));
    const double drain = (groups - 1) * last_step.first_product_chain + last_step.last_product_chain;
    out.cycles += drain;
    out.latency_cycles += drain;
  }
  return out;
}

}  // namespace iosim
