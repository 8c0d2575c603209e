#include "sim/timing/compiled_step.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "sim/schedule/flash2_step.h"
#include "sim/schedule/flash2/triton_bwd_kernels.h"

namespace iosim {

namespace {

constexpr double kMmaMacs = 16.0 * 8 * 16;  ///< one m16n8k16
constexpr double kOperandBytes = 2;         ///< 16-bit operands
constexpr std::uint64_t kWgmmaRows = 64;    ///< a warpgroup's product tile: m64
constexpr std::uint64_t kWarpsPerGroup = 4;

CompiledCode& operator+=(CompiledCode& a, const CompiledCode& b) {
  const PipeCounts& p = b.pipes;
  a.pipes.tensor += p.tensor;
  a.pipes.mufu += p.mufu;
  a.pipes.alu += p.alu;
  a.pipes.uniform += p.uniform;
  a.pipes.shared += p.shared;
  a.pipes.global += p.global;
  a.pipes.shuffle += p.shuffle;
  a.pipes.barrier += p.barrier;
  a.pipes.other += p.other;
  a.mma_per_warp += b.mma_per_warp;
  a.block_barriers += b.block_barriers;
  a.local_loads += b.local_loads;
  a.local_stores += b.local_stores;
  a.local_bytes += b.local_bytes;
  if (b.pipes.tensor > 0) a.warpgroup_mma = b.warpgroup_mma;
  return a;
}

/// The products' m16n8k16s per warp, from the segment's shapes.
double derived_mma_per_warp(const Segment& s, std::uint32_t warps) {
  double macs = 0;
  for (const MatmulShape& m : s.matmuls) macs += static_cast<double>(m.m * m.n * m.k);
  return macs / kMmaMacs / std::max(1u, warps);
}

}  // namespace

CompiledCode compiled_code_of(const Segment& s, bool first, const CompiledKernel& k) {
  CompiledCode c;
  if (first) c += k.prologue;
  if (s.matmuls.empty()) {
    c += k.epilogue;
    return c;
  }
  const MatmulShape& qk = s.matmuls.front();
  // The backward's loop kernels emit their steps as triton_bwd_kernels.h does, the forward as flash2_step.h.
  const bool backward = k.kernel == "attn_bwd_dkdv" || k.kernel == "attn_bwd_dq";
  const bool masked = k.has_masked && (backward ? triton_bwd_step_masked(qk.m, qk.n, s.vector_flops)
                                                : flash2_forward_step_masked(qk.m, qk.n, k.head_dim, s.vector_flops));
  CompiledCode loop = masked ? k.masked : k.unmasked;
  if (loop.mma_per_warp <= 0 && loop.pipes.tensor > 0) loop.mma_per_warp = derived_mma_per_warp(s, k.warps);
  c += loop;
  return c;
}

StepCost compiled_step_cost(const Segment& s, bool first, const CompiledKernel& k, const BlockShape& shape,
                            const SmRates& r) {
  StepCost c;
  const CompiledCode code = compiled_code_of(s, first, k);
  const PipeCounts& p = code.pipes;
  const std::uint32_t warps = std::max(1u, shape.warps);
  const auto w = static_cast<double>(warps);
  const double mma_interval = code.warpgroup_mma ? r.wgmma_interval : r.mma_interval;
  const double tensor = code.mma_per_warp * mma_interval;
  const double sfu = p.mufu * r.ex2_interval;
  const double fp32 = p.alu * r.fp32_interval;
  const double shfl = p.shuffle * r.shfl_interval;
  const double instructions = p.total();
  const double rest = instructions - p.tensor - p.mufu - p.alu - p.shuffle;

  // One warp alone: each product (in proportion to its FLOPs) its tensor time or one latency, the rest
  // of the step after it.
  const double mma_latency = code.warpgroup_mma && r.lat.wgmma_latency > 0 ? r.lat.wgmma_latency : r.lat.mma_latency;
  if (tensor > 0) {
    double macs = 0;
    for (const MatmulShape& m : s.matmuls) macs += static_cast<double>(m.m * m.n * m.k);
    for (const MatmulShape& m : s.matmuls) {
      const double share = macs > 0 ? static_cast<double>(m.m * m.n * m.k) / macs : 0;
      c.chain += std::max(share * tensor, mma_latency);
    }
    if (s.matmuls.empty()) c.chain += std::max(tensor, mma_latency);
  }
  if (sfu > 0) c.chain += sfu + r.lat.ex2_latency;
  if (fp32 > 0) c.chain += fp32 + r.lat.fma_latency;
  if (shfl > 0) c.chain += shfl + r.lat.shfl_latency;
  c.chain += rest + code.block_barriers * r.lat.bar_latency;
  // Spilled registers reloaded: at least one local load's round trip through the L1 before its use.
  if (code.local_loads > 0) c.chain += r.lat.lds_latency;
  c.chain = std::max(c.chain, instructions + code.block_barriers * r.lat.bar_latency);
  c.chain_busy = tensor + sfu + fp32 + shfl + rest;

  // Shared memory: the loads landing, and the tensor cores reading their operands. For HGMMA each
  // warpgroup reads a product's B operand (K_j, V_j: n × k) once per m64 tile it owns, and the first
  // product's A operand (Q_i: m64 × k) from shared memory; P, the second's A, is in registers.
  // Local memory (spills) is cached in the L1, the same SRAM and datapath as shared memory: each warp's
  // LDL and STL bytes take its bandwidth too.
  double smem_bytes = s.load_bytes + s.store_bytes + code.local_bytes * w;
  if (code.warpgroup_mma && p.tensor > 0) {
    const std::uint64_t groups = std::max<std::uint64_t>(1, warps / kWarpsPerGroup);
    for (std::size_t i = 0; i < s.matmuls.size(); ++i) {
      const MatmulShape& m = s.matmuls[i];
      const std::uint64_t tiles = std::max<std::uint64_t>(1, (m.m + groups * kWgmmaRows - 1) / (groups * kWgmmaRows));
      const double b = static_cast<double>(groups * tiles * m.n * m.k);
      const double a = i == 0 ? static_cast<double>(groups * tiles * kWgmmaRows * m.k) : 0;
      smem_bytes += (a + b) * kOperandBytes;
    }
  }
  if (s.load_bytes > 0) {
    const double miss = 1 - std::clamp(shape.l2_hit_rate, 0.0, 1.0);
    // The round trip, then the transfer at the SM's share of the L2, which every resident block's loads
    // of the same step divide (step_time multiplies by them).
    c.memory = r.lat.cp_async_latency + miss * std::max(0.0, r.lat.dram_latency - r.lat.l2_hit_latency);
    c.memory_per_block = r.l2_bytes_per_cycle > 0 ? s.load_bytes / r.l2_bytes_per_cycle : 0;
    // Triton's software pipeline (cp.async) issues a tile's copies after the products of the step
    // before the one that waits for them, and each step first waits until at most stages − 2 steps'
    // copy groups are outstanding (its SASS: the loop's LDGSTS and LDGDEPBAR after its last HGMMA and a
    // block barrier, DEPBAR.LE SB0 at its top): stages − 2 steps cover a load's round trip, not
    // stages − 1 (at 2 stages, none).
    c.lead = !first && shape.stages >= 3 ? shape.stages - 2 : 0;
    c.pipelined = c.lead > 0;
  }

  c.mix.mma = p.tensor;
  c.mix.ex2 = p.mufu;
  c.mix.fp32 = p.alu;
  c.mix.shuffle = p.shuffle;
  c.mix.barrier = p.barrier;
  c.mix.load = p.global;
  c.mix.ldmatrix = p.shared;
  c.mix.other = p.uniform + p.other;

  const std::pair<double, const char*> pipes[] = {
      {tensor, "tensor"}, {sfu, "exp"}, {fp32, "fp32"}, {shfl, "shuffle"}, {instructions, "issue"}};
  const auto* busiest = std::max_element(std::begin(pipes), std::end(pipes),
                                         [](const auto& a, const auto& b) { return a.first < b.first; });
  c.pipe_tensor = tensor;
  c.pipe_sfu = sfu;
  c.pipe_fp32 = fp32;
  c.pipe_shfl = shfl;
  c.pipe_issue = std::max(0.0, rest);
  c.issue_all = instructions;  // a compiled family has no measured dispatch stalls
  c.warp_issue = busiest->first;
  c.pipe = busiest->second;
  c.block_smem = r.smem_bytes_per_cycle > 0 ? smem_bytes / r.smem_bytes_per_cycle : 0;

  // The simulation issues the HGMMAs at their own cycles each (m16n8k16s per instruction × the rate),
  // the other pipes' instructions at theirs, the rest one a cycle.
  WarpStep& sim = c.sim;
  sim.mma = p.tensor;
  sim.mma_interval = p.tensor > 0 ? tensor / p.tensor : 0;
  sim.fp32 = p.alu;
  sim.ex2 = p.mufu;
  sim.shuffle = p.shuffle;
  sim.load = p.global;
  sim.other = std::max(0.0, rest - p.global - code.block_barriers);
  sim.barriers = code.block_barriers;
  sim.fp32_interval = r.fp32_interval;
  sim.ex2_interval = r.ex2_interval;
  sim.shfl_interval = r.shfl_interval;
  sim.smem_cycles = c.block_smem / w;
  sim.bar_latency = r.lat.bar_latency;
  sim.memory = c.memory;
  sim.lead = c.lead;
  return c;
}

}  // namespace iosim
