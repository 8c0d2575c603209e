// Fuzz target: the trace and execution paths (and the GPU model) on tiny problems. Input: a scenario
// (YAML), optionally a line "..." and bytes choosing the SRAM size, precision, bug, seed and scale.
// The scenario's sizes are folded into tiny ones (n, n_kv ≤ 64, d ≤ 32, batch and heads ≤ 4), the
// hardware is configs/teaching.yaml with the SRAM chosen, the GPU model runs on the first schedule.
// Promises checked: a trace's totals are the ledger's HBM counts, and a correct execution (no bug,
// inputs of order 1) matches the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/support.h"
#include "sim/core/error.h"
#include "sim/exec/execute.h"
#include "sim/run.h"
#include "sim/schedule/registry.h"
#include "sim/schedule/schedule.h"
#include "sim/trace/trace_sink.h"
#include "src/config/hardware_config.h"
#include "src/config/scenario.h"

namespace {

using iosim::fuzz::finding;

std::uint64_t fold(std::uint64_t v, std::uint64_t max) { return 1 + (v - 1) % max; }

double worst(const std::vector<iosim::TensorError>& es) {
  double w = 0;
  for (const iosim::TensorError& e : es) w = std::isnan(e.rel_error) ? INFINITY : std::max(w, e.rel_error);
  return w;
}

void one(const std::string& name, iosim::Pass pass, const iosim::ScheduleContext& ctx, const iosim::ExecuteOptions& o,
         bool predict) {
  if (!iosim::has_pass(name, pass)) return;
  const auto s = iosim::make_schedule(name, pass, ctx);
  iosim::RunOptions opt;
  opt.predict = predict;
  const iosim::ScheduleRun run = iosim::run_schedule(*s, ctx, opt);
  const iosim::Trace t = iosim::trace_schedule(*s, ctx);
  if (!(t.hbm == run.ledger.total(iosim::Level::hbm)) || t.transfers.size() != run.ledger.transfers()) {
    finding("trace of " + name + ": totals differ from the ledger");
  }
  try {
    iosim::check_execution(name, pass, ctx.problem, o);
  } catch (const iosim::InputError&) {
    return;  // not executable (causal, GQA, flashdecode, dtiled): said in one line
  }
  const iosim::ExecutionResult r = iosim::execute(*s, ctx.problem, o);
  if (o.bug == iosim::Bug::none && o.input_scale <= 2) {
    const double tol = o.precision == iosim::Precision::fp64 ? 1e-9 : 1e-3;
    if (!(worst(r.outputs) < tol)) finding("execution of " + name + ": error " + std::to_string(worst(r.outputs)));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const iosim::HardwareSpec teaching =
      iosim::config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/teaching.yaml");
  static const char kSeparator[] = "\n...\n";
  const std::uint8_t* sep = std::search(data, data + size, kSeparator, kSeparator + 5);
  iosim::config::Scenario sc;
  try {
    sc = iosim::config::load_scenario(iosim::fuzz::as_file(data, static_cast<std::size_t>(sep - data), "-exec.yaml"));
  } catch (const iosim::InputError&) {
    return 0;
  }
  const std::uint8_t* rest = sep == data + size ? sep : sep + 5;
  iosim::fuzz::Bytes in(rest, static_cast<std::size_t>(data + size - rest));

  iosim::Problem p;
  p.batch = fold(sc.batch.value_or(1), 4);
  p.heads = fold(sc.heads.value_or(1), 4);
  p.kv_heads = sc.kv_heads ? fold(*sc.kv_heads, 4) : 0;
  p.n = fold(sc.n.value_or(64), 64);
  p.n_kv = fold(sc.n_kv.value_or(p.n), 64);
  p.d = fold(sc.d.value_or(16), 32);
  p.dtype = sc.dtype.value_or(iosim::DType::fp16);
  p.causal = sc.causal.value_or(false);
  if (!iosim::check(p).empty()) return 0;

  iosim::ScheduleContext ctx{p, teaching, {}, 0, {}};
  const std::uint64_t sram = std::uint64_t{256} << (in.u8() % 9);  // 256 B to 64 KiB per block
  ctx.hardware.sm.sram_per_block = iosim::Bytes(sram);
  ctx.hardware.sm.sram_per_sm = iosim::Bytes(std::max(sram, ctx.hardware.sm.sram_per_sm.value));
  if (!sc.br.empty()) ctx.tiles.br = fold(sc.br.front(), 64);
  if (!sc.bc.empty()) ctx.tiles.bc = fold(sc.bc.front(), 64);
  ctx.splits = sc.splits ? fold(*sc.splits, 8) : 0;
  const std::uint8_t knobs = in.u8();
  iosim::ExecuteOptions o;
  o.precision = (knobs & 1) != 0 ? iosim::Precision::fp64 : iosim::Precision::fp32;
  static const iosim::Bug kBugs[] = {iosim::Bug::none, iosim::Bug::no_rescale, iosim::Bug::no_max, iosim::Bug::wrong_l};
  o.bug = kBugs[(knobs >> 1) % 4];
  o.seed = in.u32();
  static const double kScales[] = {1, 0.5, 2, 10};
  o.input_scale = kScales[(knobs >> 3) % 4];
  // The GPU model is the slow part under coverage and ASan (seconds for 16 heads): the first run of
  // problems of one or two heads only.
  bool predict = (knobs & 0x20) != 0 && p.batch * p.heads <= 2;

  std::vector<std::string> names;
  if (sc.schedules) {
    names = *sc.schedules;
  } else {
    for (const iosim::ScheduleInfo& s : iosim::schedule_catalog()) names.emplace_back(s.name);
  }
  if (names.size() > 6) names.resize(6);
  std::vector<iosim::Pass> passes{iosim::Pass::fwd, iosim::Pass::bwd};
  if (sc.pass == "fwd") passes = {iosim::Pass::fwd};
  if (sc.pass == "bwd") passes = {iosim::Pass::bwd};
  for (const std::string& name : names) {
    for (iosim::Pass pass : passes) {
      try {
        one(name, pass, ctx, o, predict);
        predict = false;
      } catch (const iosim::InputError&) {
        // an unknown schedule, a tile that does not fit: one line, as the command line prints it
      }
    }
  }
  return 0;
}
