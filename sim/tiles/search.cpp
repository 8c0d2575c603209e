#include "sim/tiles/search.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/core/progress.h"
#include "sim/gpu/replay_input.h"
#include "sim/schedule/kernel_family.h"
#include "sim/schedule/kernel_registers.h"
#include "sim/schedule/registry.h"
#include "sim/timing/compiled_launch.h"

namespace iosim {

namespace {

/// The kernel whose launch decides feasibility: the one with the most shared memory.
const Kernel& main_kernel(const Schedule& s) {
  const std::vector<const Kernel*> ks = s.kernels();
  return **std::max_element(ks.begin(), ks.end(),
                            [](const Kernel* a, const Kernel* b) { return a->launch().smem < b->launch().smem; });
}

/// A candidate that passed its checks, ready for the GPU model.
struct Prepared {
  ScheduleContext ctx;
  std::unique_ptr<Schedule> schedule;
  ReplayInput input;             ///< when replays are shared
  std::size_t replayed_by = 0;   ///< the candidate whose replay it takes (itself, or an earlier one)
  Prediction replay;             ///< what predict() returned, for the candidates that replay
};

/// The compiled records of candidate `c` in `spec`: the forward's kernel, or the backward's three (its
/// preprocess compiled once per B_r, at Triton's default launch); fewer where some are missing.
std::vector<std::shared_ptr<const CompiledKernel>> records_of(const TileCandidate& c, const TileSearchSpec& spec) {
  std::vector<std::shared_ptr<const CompiledKernel>> out;
  for (const auto& k : spec.compiled) {
    if (!k) continue;
    const bool backward = k->kernel.rfind("attn_bwd_", 0) == 0;
    if (backward != (spec.pass == Pass::bwd)) continue;
    const bool preprocess = k->kernel == "attn_bwd_preprocess";
    if (k->block_m == c.tiles.br && (preprocess || (k->block_n == c.tiles.bc && k->warps == c.kernel.warps &&
                                                    k->stages == c.kernel.stages))) {
      out.push_back(k);
    }
  }
  return out;
}

/// Rejects `c` with its reason, or builds its schedule into `p` (and, when `share`, its replay input).
void prepare(TileCandidate& c, Prepared& p, const ScheduleContext& base, const TileSearchSpec& spec, bool share) {
  p.ctx = base;
  p.ctx.tiles = {c.tiles.br, c.tiles.bc};
  p.ctx.kernel = c.kernel;
  if (spec.source == KernelSource::triton) {
    // Compiled kernels: the compiler's reason, then each record's own registers and shared memory.
    const auto records = records_of(c, spec);
    if (records.size() != (spec.pass == Pass::bwd ? 3u : 1u)) {
      c.rejected = "Triton: no compiled record for this configuration";
      return;
    }
    for (const auto& k : records) {
      if (!k->compiled()) {
        c.rejected = "Triton: " + k->error;
        return;
      }
      if (const std::string why = compiled_launch_refusal(*k, base.hardware.sm); !why.empty()) {
        c.rejected = why + " (" + k->source + ": " + k->config + ")";
        return;
      }
    }
    // The candidate's launch is its record with the most shared memory (the backward's dK/dV or dQ).
    p.ctx.kernel.compiled = *std::max_element(records.begin(), records.end(), [](const auto& a, const auto& b) {
      return a->shared_bytes < b->shared_bytes;
    });
    if (spec.pass == Pass::bwd) p.ctx.kernel.compiled_set = records;
    c.priced_from = records.front()->source;
  }
  try {
    p.schedule = make_schedule(spec.schedule, spec.pass, p.ctx);
  } catch (const InputError& e) {
    std::string what = e.what();
    const std::string own = spec.schedule + ": ";  // "flash3: registers: …" → "registers: …"
    if (what.rfind(own, 0) == 0 && what.find("does not fit") == std::string::npos) what = what.substr(own.size());
    c.rejected = what.find("does not fit") != std::string::npos ? "shared memory: " + what.substr(what.find("needs"))
                                                                 : what;
    return;
  }
  c.rejected = warp_split_refusal(*p.schedule, p.ctx);
  if (!c.rejected.empty()) {
    p.schedule.reset();
    return;
  }
  c.launch = main_kernel(*p.schedule).launch();
  if (p.ctx.kernel.compiled) c.launch = compiled_launch(*p.ctx.kernel.compiled);
  c.occupancy = occupancy(c.launch, p.ctx.hardware.sm);
  c.rejected = p.ctx.kernel.compiled ? "" : launch_refusal(*p.schedule, p.ctx);
  if (!c.rejected.empty()) {
    p.schedule.reset();
    return;
  }
  if (share) p.input = replay_input(*p.schedule, p.ctx, spec.gpu.order);
}

/// Runs work(i) for i in [0, count) on `threads` threads; rethrows the first exception.
void parallel_for(std::size_t count, unsigned threads, const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  const auto run = [&](unsigned id) {
    try {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    } catch (...) {
      errors[id] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

/// Points each prepared candidate at the first one (in enumeration order) with the same replay;
/// returns those that replay, each with how many candidates take its replay.
std::vector<std::pair<std::size_t, std::uint64_t>> group(std::vector<Prepared>& prep, bool share) {
  std::vector<std::pair<std::size_t, std::uint64_t>> replays;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_digest;  // digest → indices into replays
  for (std::size_t i = 0; i < prep.size(); ++i) {
    if (!prep[i].schedule) continue;
    prep[i].replayed_by = i;
    if (share) {
      std::vector<std::size_t>& same = by_digest[prep[i].input.digest[0]];
      const auto it = std::find_if(same.begin(), same.end(), [&](std::size_t r) {
        return prep[replays[r].first].input.same_replay(prep[i].input);
      });
      if (it != same.end()) {
        prep[i].replayed_by = replays[*it].first;
        ++replays[*it].second;
        continue;
      }
      same.push_back(replays.size());
    }
    replays.push_back({i, 1});
  }
  return replays;
}

}  // namespace

TileSearchSpec tile_search_defaults(const std::string& schedule, Pass pass) {
  TileSearchSpec spec;
  spec.schedule = schedule;
  spec.pass = pass;
  const ScheduleEntry* e = find_schedule(schedule);
  if (e != nullptr && e->caps.warpgroups) {
    // B_r in multiples of 64 per consumer warpgroup, B_c in multiples of 16 (FlashAttention-3's 176
    // among them); one producer and one to three consumer warpgroups; two or three K/V stages.
    spec.sizes = {64, 80, 96, 128, 160, 176, 192, 256};
    spec.warps = {8, 12, 16};
    spec.stages = {2, 3};
  }
  return spec;
}

namespace {

/// Whether `warps` warps tile an m × n product as cuda/kernels/common.cuh's warp_grid does.
bool warp_grid_ok(std::uint64_t m, std::uint64_t n, std::uint64_t warps) {
  if (m % kRowsPerWarp != 0 || m == 0 || warps == 0) return false;
  const std::uint64_t tiles_m = m / kRowsPerWarp;
  const std::uint64_t wm = std::min(tiles_m, warps);
  if (warps % wm != 0 || tiles_m % wm != 0) return false;
  const std::uint64_t wn = warps / wm;
  if (n % (8 * wn) != 0) return false;
  const std::uint64_t nt = n / 8 / wn;
  return nt >= 2 && nt % 2 == 0;
}

}  // namespace

std::string launch_refusal(const Schedule& s, const ScheduleContext& ctx) {
  const Kernel& k = main_kernel(s);
  const LaunchShape launch = k.launch();
  const Occupancy own = occupancy(launch, ctx.hardware.sm);
  if (!own.infeasible.empty()) return own.infeasible;
  for (const Kernel* other : s.kernels()) {  // the GPU model runs every kernel
    const Occupancy o = occupancy(other->launch(), ctx.hardware.sm);
    if (!o.infeasible.empty()) return o.infeasible + " (" + std::string(other->name()) + ")";
  }
  // A compiled variant of the menu runs as compiled (its registers, ptxas's, are the time model's
  // occupancy). Elsewhere the family's register model (fitted to ptxas) is the better estimate where
  // there is one: past the limit the kernel would spill, which the time model does not price.
  const KernelFamily& family = family_of(k.name(), ctx.kernel.source);
  const KernelRegisters regs = kernel_registers(k.name(), launch, family, ctx);
  if (regs.source != RegisterSource::fitted || family.base_registers == 0) return "";
  const std::uint32_t need = regs.registers;
  const std::uint32_t limit = ctx.hardware.sm.max_registers_per_thread;
  if (need <= limit) return "";
  return "registers: about " + std::to_string(need) + " per thread by " + std::string(family.name) +
         "'s register model (ptxas), the limit is " + std::to_string(limit) + ": it would spill";
}

std::string warp_split_refusal(const Schedule& s, const ScheduleContext& ctx) {
  const ScheduleEntry* e = find_schedule(s.name());
  if (e != nullptr && e->caps.warpgroups) return "";
  const Kernel& k = main_kernel(s);
  const KernelFamily& f = family_of(k.name(), ctx.kernel.source);
  if (f.matmuls.empty()) return "";
  const std::uint64_t warps = k.launch().threads / 32, br = s.tiles().br, bc = s.tiles().bc, d = ctx.problem.d;
  const std::string w = std::to_string(warps) + " warps";
  if (f.matmuls.front().split == WarpSplit::rows) {
    if (br >= kRowsPerWarp * warps) return "";
    return "threads: " + w + " need B_r ≥ " + std::to_string(kRowsPerWarp * warps) + " (16 rows each)";
  }
  const struct {
    const char* what;
    std::uint64_t m, n;
  } products[] = {{"S, dP (B_r × B_c)", br, bc}, {"dK, dV (B_c × d)", bc, d}, {"dQ (B_r × d)", br, d}};
  for (const auto& x : products) {
    if (!warp_grid_ok(x.m, x.n, warps)) {
      return "threads: " + w + " do not tile " + x.what + " = " + std::to_string(x.m) + " × " +
             std::to_string(x.n) + " (each whole m16 rows and an even number, at least 2, of n8 columns)";
    }
  }
  return "";
}

std::string default_tile_schedule() {
  return std::string(first_schedule([](const ScheduleEntry& e) { return e.caps.tiles_default; })->name);
}

TileSearchSpec triton_tile_search_defaults(const std::string& schedule, Pass pass) {
  TileSearchSpec spec;
  spec.schedule = schedule;
  spec.pass = pass;
  spec.source = KernelSource::triton;
  spec.sizes = {32, 64, 128, 256};
  spec.warps = {4, 8};
  spec.stages = {2, 3};
  return spec;
}

std::vector<std::uint32_t> searched_stages(const TileSearchSpec& spec) {
  const ScheduleEntry& e = schedule_entry(spec.schedule);
  if (!e.caps.tile_search) {
    const std::string have = schedule_names([](const ScheduleEntry& s) { return s.caps.tile_search; }, ", ", ", ");
    throw InputError("tiles: " + spec.schedule + " has no tiles to search (" + have + " have)");
  }
  // Only a schedule whose kernels keep several copies of their streamed tiles has stages to search.
  return e.caps.stages ? spec.stages : std::vector<std::uint32_t>{1};
}

std::vector<TileCandidate> search_tiles(const ScheduleContext& base, const TileSearchSpec& spec) {
  const std::vector<std::uint32_t> stages = searched_stages(spec);
  // A schedule that refuses the GPU or the problem whatever the tile (flash3 off Hopper) is one error,
  // not a table of rejected candidates.
  if (schedule_entry(spec.schedule).caps.hopper_only) (void)make_schedule(spec.schedule, spec.pass, base);
  std::vector<TileCandidate> all;
  for (std::uint64_t br : spec.sizes) {
    for (std::uint64_t bc : spec.sizes) {
      for (std::uint32_t w : spec.warps) {
        for (std::uint32_t st : stages) all.push_back({{br, bc}, {w, st, spec.source}, {}, {}, {}, {}, {}, {}});
      }
    }
  }
  const unsigned threads = spec.threads != 0 ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
  GpuModelOptions g = spec.gpu;
  g.warm = false;
  std::vector<Prepared> prep(all.size());
  parallel_for(all.size(), threads, [&](std::size_t i) { prepare(all[i], prep[i], base, spec, spec.share_replays); });
  const std::vector<std::pair<std::size_t, std::uint64_t>> replays = group(prep, spec.share_replays);
  std::uint64_t candidates = 0;
  for (const auto& r : replays) candidates += r.second;
  std::atomic<std::uint64_t> done{0};
  parallel_for(replays.size(), threads, [&](std::size_t r) {
    Prepared& p = prep[replays[r].first];
    {
      const ProgressMute mute;  // the candidates report, not each one's prediction
      p.replay = predict(*p.schedule, p.ctx, g);
    }
    report_progress("tiles: candidates", done += replays[r].second, candidates);
  });
  parallel_for(all.size(), threads, [&](std::size_t i) {
    Prepared& p = prep[i];
    if (!p.schedule) return;
    const Prediction& replay = prep[p.replayed_by].replay;
    all[i].predicted = spec.share_replays ? with_work(replay, p.input) : replay;
    all[i].time = predict_time(*p.schedule, p.ctx, all[i].predicted, p.ctx.hardware);
  });
  std::stable_sort(all.begin(), all.end(), [](const TileCandidate& a, const TileCandidate& b) {
    if (a.rejected.empty() != b.rejected.empty()) return a.rejected.empty();
    return a.rejected.empty() && a.time.total_s < b.time.total_s;
  });
  return all;
}

}  // namespace iosim
