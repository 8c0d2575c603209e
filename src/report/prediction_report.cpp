#include "src/report/prediction_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/escape.h"
#include "sim/timing/smem_wavefronts.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

std::string ms(double seconds) {
  const double v = seconds * 1e3;
  if (v >= 100) return fmt::format("{:.0f} ms", v);
  if (v >= 10) return fmt::format("{:.1f} ms", v);
  if (v >= 1) return fmt::format("{:.2f} ms", v);
  return fmt::format("{:.3f} ms", v);
}

double kernel_smem_wavefronts(const KernelPrediction& k, const KernelTime& kt) {
  return kt.smem_wavefronts_counted ? kt.smem_wavefronts.total()
                                    : estimated_wavefronts(static_cast<double>(k.sram.value));
}

RunWavefronts run_smem_wavefronts(const PredictedRun& p) {
  RunWavefronts out;
  for (std::size_t i = 0; i < p.cold.kernels.size(); ++i) {
    const KernelPrediction& k = p.cold.kernels[i];
    const KernelTime none;  // a kernel the time model did not price: its bytes' estimate
    const KernelTime& kt = i < p.cold_time.kernels.size() ? p.cold_time.kernels[i] : none;
    out.total += kernel_smem_wavefronts(k, kt);
    if (!kt.smem_wavefronts_counted) out.estimated += (out.estimated.empty() ? "" : ", ") + k.name;
  }
  return out;
}

namespace {

std::string sectors_as_bytes(std::uint64_t sectors, std::uint32_t sector_bytes) {
  return sectors == 0 ? std::string("-") : si_bytes(static_cast<double>(sectors) * sector_bytes);
}

/// What the time model's figures are: measured, the datasheet corrected by peers' measurements, or the datasheet.
std::string rates_origin(const HardwareSpec& hw);

bool uses_measured(const HardwareSpec& hw) {
  const MeasuredSpec& m = hw.measured;
  return m.hbm_gb_per_s > 0 || m.l2_gb_per_s > 0 || m.l2_red_gb_per_s > 0 || m.sram_gb_per_s > 0 || m.tensor_fp16_tflops > 0 ||
         m.tensor_bf16_tflops > 0 || m.gemm_fp16_tflops > 0 || m.exp2_g_per_s > 0;
}

std::string rates_origin(const HardwareSpec& hw) {
  if (!hw.corrected.empty()) {
    std::vector<std::string> peers;
    for (const CorrectedFigure& c : hw.corrected) {
      for (const std::string& p : c.peers) {
        if (std::find(peers.begin(), peers.end(), p) == peers.end()) peers.push_back(p);
      }
    }
    std::string names;
    for (const std::string& p : peers) names += (names.empty() ? "" : ", ") + escape_controls(p);
    return fmt::format("the datasheet's figures corrected by the shares of them {} measured ({} figures; corrected_by:)",
                       names, hw.corrected.size());
  }
  return uses_measured(hw) ? "the config's measured ceilings (iosim calibrate)" : "the datasheet's peaks (a bound)";
}

std::string per_sm(const KernelPrediction& k) {
  return fmt::format("{} ({})", k.occupancy.blocks_per_sm, k.occupancy.limited_by);
}

}  // namespace

std::string prediction_table(const ProblemRuns& pr, const HardwareSpec& hw) {
  using A = TextTable::Align;
  TextTable t({"schedule", "pass", "kernel", "blocks", "per SM", "waves", "L2 read", "L2 write", "L2 red", "DRAM read",
               "DRAM write", "time", "bound by", "DRAM rd warm", "time warm"},
              {A::left, A::left, A::left, A::right, A::left, A::right, A::right, A::right, A::right, A::right,
               A::right, A::right, A::left, A::right, A::right});
  bool any = false;
  for (const ScheduleRun& s : pr.schedules) {
    if (!s.predicted) continue;
    any = true;
    const PredictedRun& p = *s.predicted;
    const std::uint32_t sb = p.cold.sector_bytes;
    for (std::size_t i = 0; i < p.cold.kernels.size(); ++i) {
      const KernelPrediction& k = p.cold.kernels[i];
      const KernelPrediction& w = p.warm.kernels[i];
      const bool last = i + 1 == p.cold.kernels.size();
      const Bytes write = k.dram_write + (last ? p.cold.dirty_at_end : Bytes(0));
      t.add({i == 0 ? s.name : "", i == 0 ? std::string(name(s.pass)) : "", k.name, grouped(k.blocks), per_sm(k),
             fmt::format("{:.2f}", k.waves), sectors_as_bytes(k.l2_read_sectors, sb),
             sectors_as_bytes(k.l2_write_sectors, sb), sectors_as_bytes(k.l2_red_sectors, sb), si_bytes(k.dram_read),
             si_bytes(write), ms(p.cold_time.kernels[i].total_s), p.cold_time.kernels[i].binding, si_bytes(w.dram_read),
             ms(p.warm_time.kernels[i].total_s)});
    }
    if (p.cold.kernels.size() > 1) {
      t.add({"", "", "all kernels", "", "", "", sectors_as_bytes(p.cold.l2_read_sectors(), sb),
             sectors_as_bytes(p.cold.l2_write_sectors(), sb), sectors_as_bytes(p.cold.l2_red_sectors(), sb),
             si_bytes(p.cold.dram_read()), si_bytes(p.cold.dram_write()), ms(p.cold_time.total_s), p.cold_time.binding,
             si_bytes(p.warm.dram_read()), ms(p.warm_time.total_s)});
    }
  }
  if (!any) return {};
  // Where each kernel's cold time goes (sim/timing/time_model.h): total = issue + latency + tail +
  // memory + launch.
  TextTable b({"schedule", "pass", "kernel", "family", "issue", "latency", "tail", "memory", "launch", "time", "bound by"},
              {A::left, A::left, A::left, A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::left});
  for (const ScheduleRun& s : pr.schedules) {
    if (!s.predicted) continue;
    const TimePrediction& tp = s.predicted->cold_time;
    for (std::size_t i = 0; i < tp.kernels.size(); ++i) {
      const KernelTime& k = tp.kernels[i];
      const auto part = [](double v) { return v > 0 ? ms(v) : std::string("-"); };
      const std::string bound = k.binding == "issue" && !k.pipe.empty() ? "issue (" + k.pipe + ")" : k.binding;
      b.add({i == 0 ? s.name : "", i == 0 ? std::string(name(s.pass)) : "", k.name, k.family, part(k.issue_s),
             part(k.latency_s), part(k.tail_s), part(k.memory_s), part(k.launch_s), ms(k.total_s), bound});
    }
  }
  std::string out = fmt::format(
      "\n  predicted on {}: L2 = what the SMs ask of it (lts__t_sectors_srcunit_tex_op_*), DRAM = what reaches HBM\n"
      "  (dram__bytes_*, writes include the dirty lines drained after the last kernel); cold L2, warm at the right;\n"
      "  time at {}\n",
      escape_controls(hw.name), rates_origin(hw));
  return out + t.render("  ") +
         "\n  time of each kernel, cold L2: issue = pipes busy, latency = a dependent chain or a load's round trip\n"
         "  exposed, tail = SMs idle while the last blocks run, memory = what DRAM or L2 bandwidth adds beyond that\n" +
         b.render("  ");
}

namespace {

/// Per wave of a kernel (cold run): the L2 reads its blocks made and how many hit, K and V's apart.
void waves_json(JsonWriter& w, const KernelWaves& k) {
  w.key("waves_l2").begin_array();
  for (const WaveL2& v : k.waves) {
    w.begin_object_one_line().field("wave", v.wave).field("blocks", v.blocks).field("read_sectors", v.read_sectors);
    w.field("read_hit_sectors", v.read_hit_sectors).field("kv_read_sectors", v.kv_read_sectors);
    w.field("kv_read_hit_sectors", v.kv_read_hit_sectors).field("write_sectors", v.write_sectors).end_object();
  }
  w.end_array();
}

void one(JsonWriter& w, const Prediction& p, const TimePrediction& t, const std::vector<KernelWaves>* waves) {
  double wavefronts = 0;
  const std::uint64_t sb = p.sector_bytes;
  w.begin_object().key("kernels").begin_array();
  for (std::size_t i = 0; i < p.kernels.size(); ++i) {
    const KernelPrediction& k = p.kernels[i];
    const KernelTime& kt = t.kernels[i];
    w.begin_object().field("name", k.name).field("blocks", k.blocks);
    w.field("threads", std::uint64_t{k.launch.threads}).field("registers_per_thread", std::uint64_t{k.launch.registers_per_thread});
    w.field("smem_bytes", k.launch.smem.value).field("stages", std::uint64_t{k.launch.stages});
    w.field("blocks_per_sm", std::uint64_t{k.occupancy.blocks_per_sm}).field("limited_by", k.occupancy.limited_by);
    w.field("concurrent_blocks", k.occupancy.concurrent).field("waves", k.waves);
    w.field("lts__t_sectors_srcunit_tex_op_read", k.l2_read_sectors);
    if (p.merged_reads) w.field("l1tex__m_xbar2l1tex_read_sectors", k.xbar_read_sectors());  // lookups + merged
    w.field("lts__t_sectors_srcunit_tex_op_write", k.l2_write_sectors);
    if (k.l2_spill_write_sectors != 0) w.field("spill_write_sectors", k.l2_spill_write_sectors);  // of those
    w.field("lts__t_sectors_srcunit_tex_op_red", k.l2_red_sectors);
    w.field("lts__t_sectors_srcunit_ltcfabric_op_read", k.l2_fabric_read_sectors);
    w.field("dram__bytes_read", k.dram_read.value).field("dram__bytes_write", k.dram_write.value);
    w.field("matmul_flops", k.matmul.value).field("vector_flops", k.vector.value).field("special_ops", k.special.value);
    w.field("sram_bytes", k.sram.value).field("heads_replayed", k.heads_replayed);
    w.key("time").begin_object().field("dram_ms", kt.dram_s * 1e3).field("l2_ms", kt.l2_s * 1e3);
    w.field("sram_ms", kt.sram_s * 1e3).field("tensor_ms", kt.tensor_s * 1e3).field("exp_ms", kt.special_s * 1e3);
    w.field("vector_ms", kt.vector_s * 1e3);
    w.field("launch_ms", kt.launch_s * 1e3).field("total_ms", kt.total_s * 1e3);
    w.field("family", kt.family).field("issue_ms", kt.issue_s * 1e3).field("latency_ms", kt.latency_s * 1e3);
    w.field("tail_ms", kt.tail_s * 1e3).field("memory_ms", kt.memory_s * 1e3);
    w.field("model_blocks_per_sm", std::uint64_t{kt.blocks_per_sm}).field("model_registers", std::uint64_t{kt.registers});
    w.field("model_registers_from", name(kt.registers_from));
    w.field("model_overhead_from", name(kt.overhead_from));
    w.field("binding", kt.binding).field("pipe", kt.pipe);
    const InstructionMix& ins = kt.instructions;
    w.key("warp_instructions").begin_object().field("mma", ins.mma).field("ldmatrix", ins.ldmatrix);
    w.field("fp32", ins.fp32).field("ex2", ins.ex2).field("shuffle", ins.shuffle).field("barrier", ins.barrier);
    w.field("load", ins.load).field("store", ins.store).field("reduce", ins.reduce).field("other", ins.other);
    w.field("total", ins.total());
    w.end_object();
    w.key("smem_wavefronts").begin_object().field("ld", kt.smem_wavefronts.ld).field("st", kt.smem_wavefronts.st);
    w.field("total", kernel_smem_wavefronts(k, kt)).field("counted", kt.smem_wavefronts_counted).end_object();
    w.end_object();
    wavefronts += kernel_smem_wavefronts(k, kt);
    if (waves != nullptr && i < waves->size()) waves_json(w, (*waves)[i]);
    w.end_object();
  }
  w.end_array();
  w.field("lts__t_sectors_srcunit_tex_op_read", p.l2_read_sectors());
  if (p.merged_reads) w.field("l1tex__m_xbar2l1tex_read_sectors", p.xbar_read_sectors());
  w.field("lts__t_sectors_srcunit_tex_op_write", p.l2_write_sectors());
  w.field("lts__t_sectors_srcunit_tex_op_red", p.l2_red_sectors());
  w.field("l2_read_bytes", p.l2_read_sectors() * sb).field("l2_write_bytes", p.l2_write_sectors() * sb);
  w.field("dram__bytes_read", p.dram_read().value).field("dram__bytes_write", p.dram_write().value);
  w.field("dirty_at_end_bytes", p.dirty_at_end.value);
  w.field("smem_wavefronts", wavefronts);
  w.field("time_ms", t.total_s * 1e3).field("binding", t.binding);
  w.field("l2_mode", l2_mode_name(p.l2)).field("l2_sample_stride", std::uint64_t{p.sample_stride});
  if (p.flushed_each_kernel) w.field("l2_flushed_each_kernel", true);
  if (p.merged_reads) w.field("l2_merged_reads", true);
  w.end_object();
}

}  // namespace

void prediction_json(JsonWriter& w, const PredictedRun& p) {
  w.begin_object().key("cold");
  one(w, p.cold, p.cold_time, &p.cold_waves);
  w.key("warm");
  one(w, p.warm, p.warm_time, nullptr);
  w.field("cold_time_at_datasheet_peaks_ms", p.cold_bound.total_s * 1e3);
  w.end_object();
}

}  // namespace iosim::report
