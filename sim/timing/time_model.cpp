#include "sim/timing/time_model.h"

#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include "sim/core/error.h"
#include "sim/core/tensor.h"
#include "sim/timing/block_schedule.h"
#include "sim/schedule/compiled_of.h"
#include "sim/timing/compiled_launch.h"
#include "sim/schedule/kernel_family.h"
#include "sim/timing/sm_model.h"
#include "sim/timing/step_profile.h"

namespace iosim {

double tensor_peak(const HardwareSpec& hw, DType t) {
  switch (t) {
    case DType::fp16: return hw.peak.tensor_fp16_tflops * 1e12;
    case DType::bf16: return hw.peak.tensor_bf16_tflops * 1e12;
    case DType::fp8: return hw.peak.tensor_fp8_tflops * 1e12;
    case DType::fp32: return hw.peak.fp32_tflops * 1e12;
    case DType::int32: return 0;  // indices only: no product runs on them
  }
  return 0;
}

namespace {

/// A rate from the `measured:` section when the config has one, else the datasheet's.
double either(double measured, double datasheet) { return measured > 0 ? measured : datasheet; }

double launch_seconds(const HardwareSpec& hw) {
  return either(pipeline_figure(hw, &PipelineSpec::launch_us), hw.launch_overhead_us) * 1e-6;
}

/// The SM model's time for a kernel of a described family; `t` holds its roofline terms already.
void sm_time(KernelTime& t, const KernelProfile& prof, const KernelFamily& family, const KernelPrediction& k,
             const Prediction& p, const ScheduleContext& ctx, const HardwareSpec& hw) {
  const SmRates rates = sm_rates(hw, ctx.problem.dtype, family.hopper.mma == MmaInstruction::wgmma);
  BlockShape shape;
  // The warps that compute: a warp-specialised family's producer warps issue only its TMA loads.
  const std::uint32_t warps = k.launch.threads / 32;
  shape.warps = std::max(1u, warps > family.hopper.producer_warps ? warps - family.hopper.producer_warps : warps);
  shape.stages = std::max(1u, family.load_stages != 0 ? family.load_stages : k.launch.stages);
  const double l2_read_bytes = static_cast<double>(k.xbar_read_sectors()) * p.sector_bytes;  // merged too
  shape.l2_hit_rate = l2_read_bytes > 0 ? 1 - static_cast<double>(k.dram_read.value) / l2_read_bytes : 1;
  shape.head_dim = ctx.problem.d;
  shape.output_element_bytes = size_bytes(storage_type(Tensor::O, ctx.problem.dtype));
  shape.tile_cols = k.launch.bc;
  if (shape.tile_cols == 0) {
    // A kernel that does not name its tile (flashdecode's split): its widest K/V step, B_c wherever some
    // block has a whole tile (n_kv ≥ B_c); below that, n_kv.
    for (const BlockProfile& b : prof.distinct) {
      for (const SegmentRun& run : b.runs) {
        if (!run.segment.matmuls.empty()) shape.tile_cols = std::max(shape.tile_cols, run.segment.matmuls.front().n);
      }
    }
  }
  if (family.hopper.tma_loads) shape.tma_copy_bytes = static_cast<double>(k.launch.tma_box_rows) * kTmaRowBytes;
  // Blocks per SM: the occupancy with the compiled kernel's registers (ptxas) or the family's register
  // model (fitted to ptxas) where the kernel can hold them (kernel_registers.h); else the GPU model's
  // (the schedule's estimate).
  std::uint32_t per_sm = std::max(1u, k.occupancy.blocks_per_sm);
  t.limited_by = k.occupancy.limited_by;
  if (const KernelRegisters regs = kernel_registers(k.name, k.launch, family, ctx);
      regs.source != RegisterSource::none) {
    LaunchShape with = k.launch;
    with.registers_per_thread = regs.registers;
    const Occupancy o = occupancy(with, hw.sm);
    if (o.infeasible.empty()) {
      per_sm = o.blocks_per_sm;
      t.registers = with.registers_per_thread;
      t.registers_from = regs.source;
      t.limited_by = o.limited_by;
    }
  }
  const CompiledKernel* compiled =
      family.model == FamilyModel::compiled ? compiled_record_of(ctx.kernel, k.name) : nullptr;
  if (compiled != nullptr) {
    // The compiled kernel's own registers and shared memory decide its occupancy.
    const Occupancy o = occupancy(compiled_launch(*compiled), hw.sm);
    if (!o.infeasible.empty()) throw InputError(compiled->config + ": " + o.infeasible);
    per_sm = o.blocks_per_sm;
    t.registers = compiled->registers;
    t.registers_from = RegisterSource::compiled;
    t.limited_by = o.limited_by;
  }
  // A step's instructions: the compiled variant's SASS where the menu's table has it, else the fit.
  if (compiled == nullptr) {
    const KernelStepMix mix = kernel_step_mix(k.name, k.launch, ctx);
    shape.sass_step_instructions = mix.unmasked != nullptr ? mix.unmasked->total : 0;
    shape.sass_masked_step_instructions = mix.masked != nullptr ? mix.masked->total : 0;
    t.overhead_from = mix.unmasked != nullptr ? OverheadSource::sass : OverheadSource::fit;
  }
  t.blocks_per_sm = per_sm;
  t.smem_wavefronts_counted = counts_wavefronts(family);

  // Each distinct block's time at 1 … per_sm resident blocks.
  std::vector<std::vector<BlockTime>> table(prof.distinct.size());
  for (std::size_t i = 0; i < prof.distinct.size(); ++i) {
    for (std::uint32_t b = 1; b <= per_sm; ++b) {
      table[i].push_back(block_time(prof.distinct[i], family, shape, rates, b, compiled));
    }
  }
  const std::uint64_t xs = prof.profile_of_x.size();
  const std::uint64_t heads = prof.heads;
  const bool x_major = p.order == LaunchOrder::x_major;
  const auto profile_of = [&](std::uint64_t i) { return prof.profile_of_x[x_major ? i % xs : i / heads]; };
  // At least a cycle: a block with nothing to do still starts and ends (and the schedule divides by it).
  const auto time_of = [&](std::uint32_t profile, std::uint32_t b) {
    return std::max(1.0, table[profile][b - 1].cycles);
  };
  const GridTiming g = schedule_blocks(xs * heads, hw.sm.count, per_sm, profile_of, time_of);

  // The ideal (every SM full) splits as its blocks' steps do, into issue- and latency-bound.
  double all = 0, latency = 0;
  for (std::uint64_t x = 0; x < xs; ++x) {
    const BlockTime& bt = table[prof.profile_of_x[x]][per_sm - 1];
    all += bt.cycles;
    latency += bt.latency_cycles;
    t.instructions.add(bt.instructions, static_cast<double>(heads));
    t.smem_wavefronts.add(bt.wavefronts, static_cast<double>(heads));
    if (t.pipe.empty() && bt.pipe[0] != '\0') t.pipe = bt.pipe;
  }
  const double to_s = 1 / rates.clock_hz;
  const double ideal = g.ideal * to_s;
  const double share = all > 0 ? latency / all : 0;
  const double sm = std::max(g.makespan * to_s, ideal);
  t.latency_s = ideal * share;
  t.issue_s = ideal - t.latency_s;
  t.tail_s = sm - ideal;
  const double memory = std::max(t.dram_s, t.l2_s);
  t.memory_s = std::max(0.0, memory - sm);
  t.total_s = t.launch_s + std::max(sm, memory);
  if (t.memory_s > 0) {
    t.binding = t.dram_s >= t.l2_s ? "DRAM" : "L2";
  } else {
    const std::array<std::pair<double, const char*>, 4> terms{
        {{t.issue_s, "issue"}, {t.latency_s, "latency"}, {t.tail_s, "tail"}, {t.launch_s, "launch"}}};
    t.binding = std::max_element(terms.begin(), terms.end())->second;
  }
}

}  // namespace

double tensor_rate(const HardwareSpec& hw, DType t) {
  switch (t) {
    case DType::fp16: return either(hw.measured.tensor_fp16_tflops * 1e12, tensor_peak(hw, t));
    case DType::bf16: return either(hw.measured.tensor_bf16_tflops * 1e12, tensor_peak(hw, t));
    default: return tensor_peak(hw, t);
  }
}

KernelTime roofline_time(const KernelPrediction& k, double dram_bytes, std::uint32_t sector_bytes,
                         const HardwareSpec& hw, DType t) {
  KernelTime out;
  out.name = k.name;
  out.family = "library";
  const double clock = hw.clock.sm_mhz * 1e6;
  const double sms = hw.sm.count;
  const MeasuredSpec& m = hw.measured;
  out.dram_s = dram_bytes / (either(m.hbm_gb_per_s, hw.hbm.bandwidth_gb_per_s) * 1e9);
  // Every read sector crosses the crossbar to its SM, merged into another's lookup or not.
  const double l2_bytes =
      static_cast<double>(k.xbar_read_sectors() + k.l2_write_sectors + k.l2_red_sectors) * sector_bytes;
  out.l2_s = l2_bytes / (either(m.l2_gb_per_s * 1e9, hw.l2.bytes_per_clock * clock));
  out.sram_s = k.busiest.sram_bytes / (either(m.sram_gb_per_s * 1e9, hw.sm.sram_bytes_per_clock * clock * sms) / sms);
  const double tensor = tensor_rate(hw, t);
  out.tensor_s = tensor > 0 ? k.busiest.matmul_flops / (tensor / sms) : 0;
  out.special_s = k.busiest.special_ops / (either(m.exp2_g_per_s * 1e9, hw.sm.sfu_ops_per_clock * clock * sms) / sms);
  out.vector_s = k.busiest.vector_flops / (hw.peak.fp32_tflops * 1e12 / sms);
  out.launch_s = launch_seconds(hw);
  out.blocks_per_sm = k.occupancy.blocks_per_sm;
  out.limited_by = k.occupancy.limited_by;
  const double math = out.tensor_s + out.special_s + out.vector_s;
  const double memory = std::max(out.dram_s, out.l2_s);
  out.total_s = std::max({memory, out.sram_s, math}) + out.launch_s;
  const std::array<std::pair<double, const char*>, 3> math_parts{
      {{out.tensor_s, "tensor"}, {out.special_s, "exp"}, {out.vector_s, "vector"}}};
  const std::array<std::pair<double, const char*>, 5> terms{
      {{out.dram_s, "DRAM"},
       {out.l2_s, "L2"},
       {out.sram_s, "SRAM"},
       {math, std::max_element(math_parts.begin(), math_parts.end())->second},
       {out.launch_s, "launch"}}};
  out.binding = std::max_element(terms.begin(), terms.end())->second;
  // The roofline's terms as the breakdown: the binding resource is all of it.
  const double body = out.total_s - out.launch_s;
  if (out.binding == "DRAM" || out.binding == "L2") {
    out.memory_s = body;
  } else {
    out.issue_s = body;
  }
  return out;
}

namespace {

/// Adds `kt` to `out`, the longest kernel naming the binding.
void add_kernel(TimePrediction& out, KernelTime kt, double& longest) {
  out.total_s += kt.total_s;
  if (kt.total_s > longest) {
    longest = kt.total_s;
    out.binding = kt.binding;
  }
  out.kernels.push_back(std::move(kt));
}

double kernel_dram(const Prediction& p, std::size_t i) {
  const KernelPrediction& k = p.kernels[i];
  double dram = static_cast<double>((k.dram_read + k.dram_write).value);
  if (i + 1 == p.kernels.size()) dram += static_cast<double>(p.dirty_at_end.value);
  return dram;
}

}  // namespace

TimePrediction predict_roofline(const Prediction& p, const HardwareSpec& hw, DType t) {
  TimePrediction out;
  double longest = -1;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    add_kernel(out, roofline_time(p.kernels[i], kernel_dram(p, i), p.sector_bytes, hw, t), longest);
  }
  return out;
}

namespace {

/// A kernel of a measured_rate family: the bytes it reads and writes (its L2 requests: a streaming
/// kernel's tensors, as the rate was measured) at the config's rate for rows of n_kv, plus the launch;
/// `t` keeps its roofline where the config has no rate for the family.
void measured_rate_time(KernelTime& t, const KernelFamily& f, const KernelPrediction& k, const Prediction& p,
                        const ScheduleContext& ctx, const HardwareSpec& hw) {
  const KernelRate* rate = kernel_rate(hw, f.name);
  if (rate == nullptr) return;
  const double bytes = static_cast<double>(k.xbar_read_sectors() + k.l2_write_sectors) * p.sector_bytes;
  t.family = std::string(f.name);
  t.issue_s = 0;
  t.memory_s = bytes / (rate_at(*rate, ctx.problem.n_kv) * 1e9);
  t.total_s = t.launch_s + t.memory_s;
  t.binding = "measured";
}

/// predict_time() with each kernel's block profiles taken from `profiles` (profiled on first use).
TimePrediction predict_time_with(const std::vector<const Kernel*>& kernels, const ScheduleContext& ctx,
                                 const Prediction& p, const HardwareSpec& hw,
                                 std::vector<std::optional<KernelProfile>>& profiles) {
  TimePrediction out;
  profiles.resize(kernels.size());
  double longest = -1;
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelPrediction& k = p.kernels[i];
    KernelTime kt = roofline_time(k, kernel_dram(p, i), p.sector_bytes, hw, ctx.problem.dtype);
    const KernelFamily& f = family_of(k.name, ctx.kernel.source);
    if (f.model == FamilyModel::compiled && compiled_record_of(ctx.kernel, k.name) == nullptr) {
      throw InputError(k.name + ": the " + std::string(f.name) + " family is priced from a compiled record, and none was given");
    }
    if (f.model == FamilyModel::measured_rate) {
      measured_rate_time(kt, f, k, p, ctx, hw);
    } else if ((f.model == FamilyModel::sm_steps || f.model == FamilyModel::compiled) && i < kernels.size()) {
      kt.family = std::string(f.name);
      kt.issue_s = kt.memory_s = 0;
      if (!profiles[i]) profiles[i] = profile_kernel(*kernels[i], ctx.problem.dtype);
      sm_time(kt, *profiles[i], f, k, p, ctx, hw);
    }
    add_kernel(out, std::move(kt), longest);
  }
  return out;
}

}  // namespace

TimePrediction predict_time(const Schedule& s, const ScheduleContext& ctx, const Prediction& p,
                            const HardwareSpec& hw) {
  std::vector<std::optional<KernelProfile>> profiles;
  return predict_time_with(s.kernels(), ctx, p, hw, profiles);
}

std::pair<TimePrediction, TimePrediction> predict_times(const Schedule& s, const ScheduleContext& ctx,
                                                        const Prediction& cold, const Prediction& warm,
                                                        const HardwareSpec& hw) {
  const std::vector<const Kernel*> kernels = s.kernels();
  std::vector<std::optional<KernelProfile>> profiles;
  TimePrediction c = predict_time_with(kernels, ctx, cold, hw, profiles);
  return {std::move(c), predict_time_with(kernels, ctx, warm, hw, profiles)};
}

}  // namespace iosim
