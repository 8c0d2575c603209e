#include "src/cli/problem_flags.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "sim/core/error.h"
#include "sim/core/paging.h"
#include "sim/schedule/registry.h"
#include "src/cli/limits.h"
#include "src/config/hardware_config.h"
#include "src/config/scenario.h"
#include "src/config/search_path.h"

namespace iosim::cli {

namespace {

/// The members of a comma-separated list flag's values, none empty (CLI11's own delimiter drops empty
/// members: `--n 64,,128` would run as `--n 64,128`).
std::vector<std::string> members(const std::vector<std::string>& raw, const std::string& flag) {
  std::vector<std::string> out;
  for (const std::string& r : raw) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = r.find(',', start);
      std::string m = r.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      if (m.empty()) throw CLI::ValidationError(flag, "an empty member in the list '" + r + "'");
      out.push_back(std::move(m));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return out;
}

std::string first_name(const std::string& names) { return names.substr(0, names.find(',')); }

std::uint64_t positive(std::int64_t v, const char* flag) {
  if (v <= 0) throw InputError(std::string(flag) + " must be a positive integer (got " + std::to_string(v) + ")");
  return static_cast<std::uint64_t>(v);
}

std::optional<std::uint64_t> pick(const std::optional<std::int64_t>& flag, const std::optional<std::uint64_t>& file,
                                  const char* name) {
  if (flag) return positive(*flag, name);
  return file;
}

/// Pages are read through a block table by the schedules that have a paged variant only (their
/// forward): the others would count K and V as if contiguous.
void check_paged_schedules(const Problem& p, const std::vector<std::string>& schedules, const std::vector<Pass>& passes) {
  if (!p.paged()) return;
  for (const std::string& s : schedules) {
    const ScheduleEntry& e = schedule_entry(s);
    for (Pass ps : passes) {
      if (!e.caps.paged_fwd || ps != Pass::fwd) {
        throw InputError("--page-size: " + s + (ps == Pass::fwd ? "" : "'s backward") +
                         " has no paged variant (paged K/V: " +
                         schedule_names([](const ScheduleEntry& x) { return x.caps.paged_fwd; }) + ", forward only)");
      }
    }
  }
}

std::vector<std::uint64_t> pick_list(const std::vector<std::int64_t>& flag, const std::vector<std::uint64_t>& file,
                                     const char* name) {
  std::vector<std::uint64_t> out;
  for (std::int64_t v : flag) out.push_back(positive(v, name));
  return out.empty() ? file : out;
}

std::vector<std::uint64_t> as_list(const std::optional<std::uint64_t>& v) {
  return v ? std::vector<std::uint64_t>{*v} : std::vector<std::uint64_t>{};
}

/// Every (B_r, B_c) pair of the two lists; an empty list leaves that side to the schedule.
std::vector<TileRequest> tile_requests(const std::vector<std::uint64_t>& br, const std::vector<std::uint64_t>& bc) {
  std::vector<std::optional<std::uint64_t>> rs(br.begin(), br.end()), cs(bc.begin(), bc.end());
  if (rs.empty()) rs.emplace_back();
  if (cs.empty()) cs.emplace_back();
  std::vector<TileRequest> out;
  for (const auto& r : rs) {
    for (const auto& c : cs) out.push_back({r, c});
  }
  return out;
}

/// The execution the flags ask for, if any; the checks that need the schedule come later.
std::optional<ExecuteOptions> execute_options(const ProblemFlags& f) {
  if (f.execute.empty()) {
    const char* orphan = !f.bug.empty() ? "--bug" : f.seed ? "--seed" : f.input_scale ? "--input-scale" : nullptr;
    if (orphan != nullptr) throw InputError(std::string(orphan) + " needs --execute fp32 or --execute fp64");
    return std::nullopt;
  }
  ExecuteOptions o;
  const std::optional<Precision> p = parse_precision(f.execute);
  if (!p) throw InputError("--execute must be fp32 or fp64 (got '" + f.execute + "')");
  o.precision = *p;
  if (!f.bug.empty()) {
    const std::optional<Bug> b = parse_bug(f.bug);
    if (!b) throw InputError("--bug must be no-rescale, no-max, wrong-l or none (got '" + f.bug + "')");
    o.bug = *b;
  }
  o.seed = f.seed.value_or(o.seed);
  o.input_scale = f.input_scale.value_or(o.input_scale);
  if (!std::isfinite(o.input_scale) || o.input_scale <= 0) {
    throw InputError("--input-scale must be a positive number (got " + fmt::format("{}", o.input_scale) + ")");
  }
  return o;
}

}  // namespace

/// A window needs the causal mask (it bounds each row's keys from below; the diagonal bounds them from
/// above) and at most n_kv keys (a wider one is the causal mask alone, likely a mistaken flag).
void check_window(const Problem& p) {
  if (p.window == 0) return;
  if (!p.causal) throw InputError("--window needs --causal (a window ends at each query's diagonal)");
  if (p.window > p.n_kv) {
    throw InputError("--window must be at most n_kv (got " + std::to_string(p.window) + " with n_kv " +
                     std::to_string(p.n_kv) + ")");
  }
}

/// Paged K/V: --page-order only beside a page size, and one of its three forms.
void set_pages(Problem& p, std::optional<std::uint64_t> page_size, const std::string& order) {
  if (!page_size) {
    if (!order.empty()) throw InputError("--page-order needs --page-size");
    return;
  }
  p.page_size = *page_size;
  if (!order.empty() && !parse_page_order(order, p.page_order, p.page_seed)) {
    throw InputError("--page-order must be contiguous, random or an integer seed (got '" + order + "')");
  }
}

CLI::Option* add_integer_list(CLI::App& app, const std::string& names, std::vector<std::int64_t>& out,
                              const std::string& help) {
  const std::string flag = first_name(names);
  return app
      .add_option_function<std::vector<std::string>>(
          names,
          [&out, flag](const std::vector<std::string>& raw) {
            out.clear();
            for (const std::string& m : members(raw, flag)) {
              std::int64_t v = 0;
              const char* end = m.data() + m.size();
              const auto [p, ec] = std::from_chars(m.data(), end, v);
              if (ec != std::errc() || p != end) {
                throw CLI::ValidationError(flag, "expected an integer below 2^63, got '" + m + "'");
              }
              out.push_back(v);
            }
          },
          help)
      ->type_name("INT[,INT...]");
}

CLI::Option* add_name_list(CLI::App& app, const std::string& names, std::vector<std::string>& out,
                           const std::string& help) {
  const std::string flag = first_name(names);
  return app
      .add_option_function<std::vector<std::string>>(
          names, [&out, flag](const std::vector<std::string>& raw) { out = members(raw, flag); }, help)
      ->type_name("NAME[,NAME...]");
}

void add_execute_flags(CLI::App& app, ProblemFlags& f) {
  app.add_option("--execute", f.execute,
                 "also execute each schedule on random inputs in fp32 or fp64 and report its error (n <= 4096)");
  app.add_option("--bug", f.bug, "with --execute: inject no-rescale, no-max or wrong-l into flash1/flash2's softmax");
  app.add_option("--seed", f.seed, "with --execute: seed of the random Q, K, V, dO (default 1)");
  app.add_option("--input-scale", f.input_scale, "with --execute: multiply Q and K by this (default 1)");
}

void add_page_flags(CLI::App& app, std::optional<std::int64_t>& page_size, std::string& page_order) {
  app.add_option("--page-size", page_size,
                 "paged K/V: tokens per page, a power of two dividing or divided by B_c (flash2 fwd, flashdecode)");
  app.add_option("--page-order", page_order, "with --page-size: pages contiguous (default), random, or shuffled by SEED");
}

void add_problem_flags(CLI::App& app, ProblemFlags& f, FlagSet set) {
  const bool run = set == FlagSet::run;
  app.add_option("--config,-c", f.config, "hardware config: a file, or a name in configs/ (a100.yaml, h200, ...)");
  add_integer_list(app, "--d", f.d, "head dimension" + std::string(run ? " (a list sweeps: 64,128)" : ""));
  app.add_option("--batch", f.batch, "batch size (default 1)");
  app.add_option("--heads", f.heads, "query heads (default 1)");
  app.add_option("--dtype", f.dtype, "element type: fp32, fp16 (default), bf16, fp8");
  app.add_option("--pass", f.pass, run ? "fwd (default), bwd or fwdbwd" : "fwd (default) or bwd");
  if (set == FlagSet::bounds) {
    app.add_option("--window", f.window, "also fit the tiled schedules' n sweep under a causal window of W keys (slope 1)");
    return;
  }
  // run and tiles
  app.add_option("--scenario,-s", f.scenario, "scenario file, or a name in scenarios/; flags override it");
  add_integer_list(app, "--n", f.n, std::string("queries per head") + (run ? " (a list sweeps: 1024,2048,4096)" : ""));
  app.add_option("--n-kv", f.n_kv, "keys per head (default n)");
  app.add_option("--kv-heads", f.kv_heads, "key/value heads, dividing --heads (grouped-query attention; default = heads)");
  app.add_flag("--causal", f.causal, "causal mask (query r sees keys up to r + n_kv - n)");
  app.add_option("--window", f.window, "with --causal: a sliding window, each query sees the W keys ending at its diagonal");
  app.add_option("--splits", f.splits, "K/V splits of flashdecode (default: FlashAttention-2's heuristic)");
  add_page_flags(app, f.page_size, f.page_order);
  add_name_list(app, "--schedule", f.schedules,
                run ? "schedules (default naive, flash1, flash2; also flashdecode, dtiled)"
                    : "the schedule whose tiles to search (default flash2)");
  app.add_option("--launch-order", f.launch_order, "GPU model: blocks launched x-first (x, default) or heads-first (heads)");
  app.add_option("--l2-policy", f.l2_policy, "GPU model: L2 replacement, lru (default), fifo or random");
  app.add_flag("--l2-flush-kernels", f.l2_flush_kernels,
               "GPU model: empty the L2 before every kernel of a pass, as Nsight Compute's default cache control "
               "does (default: kept between kernels, as in a timed run)");
  app.add_flag("--l2-skip-rounds,!--no-l2-skip-rounds", f.l2_skip_rounds,
               "GPU model, --l2 fast: skip a head's rounds whose L2 rates repeat, counted at the rates "
               "(default on; --no-l2-skip-rounds or --l2-skip-rounds=off replays every round of the heads replayed)")
      ->each([&f](const std::string&) { f.l2_skip_rounds_given = true; });
  app.add_option("--l2", f.l2_mode,
                 "GPU model: fast (default; sampled sets and heads, counters within 1%) or exact (every sector)");
  app.add_flag("--l2-merge", f.l2_merge,
               "GPU model, --l2 exact only (the fast replay does not merge yet): one L2 lookup answers up to 4 "
               "reads of a line that blocks make of one partition in the same replay round, as measured on the "
               "H100; the L2 read counter counts lookups (default: every request is a lookup)");
  app.add_option("--kernels", f.kernels,
                 "time model: whose compiled kernels run the schedule, iosim's (default), pytorch (SDPA's flash "
                 "backend, flash2 only) or triton (the project's Triton kernels compiled for sm_90, flash2 only)");
  if (!run) return;
  app.add_flag("--predict,-p", f.predict, "run the GPU model: L2 and DRAM traffic, occupancy and time (slower)");
  app.add_option("--warps", f.warps, "warps per block of the tiled kernels (default per schedule)");
  app.add_option("--stages", f.stages, "copies of the streamed K/V tiles in shared memory (default per schedule)");
  add_integer_list(app, "--br", f.br, "rows of Q per tile (B_r), for every tiled schedule (a list sweeps)");
  add_integer_list(app, "--bc", f.bc, "rows of K and V per tile (B_c), for every tiled schedule (a list sweeps)");
}

Resolved resolve(const ProblemFlags& f, bool need_n) {
  config::Scenario sc;
  if (!f.scenario.empty()) sc = config::load_scenario(config::find_file(f.scenario, config::scenario_dir(), "scenario"));

  Resolved r;
  const std::string config_name = !f.config.empty() ? f.config : sc.config.value_or("");
  if (f.hardware) {
    r.config_file = f.config;
    r.hardware = *f.hardware;
  } else if (config_name.empty()) {
    throw InputError("no hardware config: give --config NAME (for example --config a100.yaml; configs are in " +
                     config::config_dir() + ")");
  } else {
    r.config_file = config::find_file(config_name, config::config_dir(), "config");
    r.hardware = config::load_hardware(r.config_file);
  }

  Problem base;
  base.batch = pick(f.batch, sc.batch, "--batch").value_or(1);
  base.heads = pick(f.heads, sc.heads, "--heads").value_or(1);
  base.kv_heads = pick(f.kv_heads, sc.kv_heads, "--kv-heads").value_or(0);
  base.causal = f.causal || sc.causal.value_or(false);
  if (!f.dtype.empty()) {
    const std::optional<DType> t = parse_dtype(f.dtype);
    if (!t) throw InputError("--dtype must be one of fp32, fp16, bf16, fp8 (got '" + f.dtype + "')");
    base.dtype = *t;
  } else if (sc.dtype) {
    base.dtype = *sc.dtype;
  }

  std::vector<std::uint64_t> ns = pick_list(f.n, as_list(sc.n), "--n");
  const std::vector<std::uint64_t> ds = pick_list(f.d, as_list(sc.d), "--d");
  if (ds.empty()) throw InputError("the head dimension is missing: give --d (for example --d 64)");
  if (ns.empty()) {
    if (need_n) throw InputError("the sequence length is missing: give --n (for example --n 8192)");
    ns.push_back(1);
  }
  const std::vector<std::uint64_t> brs = pick_list(f.br, sc.br, "--br"), bcs = pick_list(f.bc, sc.bc, "--bc");
  // Before any problem is built: 1000 values each of --br and --bc once made a million runs (3 GB).
  (void)list_points({{"--n", ns.size()}, {"--d", ds.size()}, {"--br", brs.size()}, {"--bc", bcs.size()}});
  const std::optional<std::uint64_t> n_kv = pick(f.n_kv, sc.n_kv, "--n-kv");
  const std::optional<std::uint64_t> window = pick(f.window, sc.window, "--window");
  const std::optional<std::uint64_t> page_size = pick(f.page_size, sc.page_size, "--page-size");
  const std::string page_order = !f.page_order.empty() ? f.page_order : sc.page_order.value_or("");
  for (std::uint64_t d : ds) {
    for (std::uint64_t n : ns) {
      Problem p = base;
      p.n = n;
      p.n_kv = n_kv.value_or(n);
      p.d = d;
      p.window = window.value_or(0);
      check_window(p);
      set_pages(p, page_size, page_order);
      if (const std::string err = check(p); !err.empty()) throw InputError(err);
      r.problems.push_back(p);
    }
  }

  if (!f.kernels.empty()) {
    const std::optional<KernelSource> source = kernel_source(f.kernels);
    if (!source) throw InputError("--kernels must be iosim, pytorch or triton (got '" + f.kernels + "')");
    r.kernel.source = *source;
  }
  if (!f.schedules.empty()) {
    r.schedules = f.schedules;
  } else if (sc.schedules) {
    r.schedules = *sc.schedules;
  } else {
    // By default the schedules run by default; with PyTorch's kernels, those PyTorch has.
    for (const ScheduleInfo& s : schedule_catalog()) {
      const bool has = r.kernel.source == KernelSource::pytorch  ? !s.pytorch_kernels.empty()
                       : r.kernel.source == KernelSource::triton ? !s.triton_kernels.empty()
                                                                 : s.by_default;
      if (has) r.schedules.emplace_back(s.name);
    }
  }
  // A schedule named twice would run twice and its two forward rows add up as a "fwd+bwd" total.
  for (std::size_t i = 0; i < r.schedules.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (r.schedules[i] == r.schedules[j]) {
        throw InputError(std::string(f.schedules.empty() ? "schedules (scenario)" : "--schedule") + ": '" +
                         r.schedules[i] + "' is named twice");
      }
    }
  }
  if (r.kernel.source == KernelSource::pytorch) {
    for (const std::string& s : r.schedules) {
      if (schedule_entry(s).pytorch_kernels.empty()) {
        throw InputError("--kernels pytorch: PyTorch's kernels run " +
                         schedule_names([](const ScheduleEntry& e) { return !e.pytorch_kernels.empty(); }) +
                         " only, not " + s);
      }
    }
  }
  if (r.kernel.source == KernelSource::triton) {
    for (const std::string& s : r.schedules) {
      if (schedule_entry(s).triton_kernels.empty()) {
        throw InputError("--kernels triton: the project's Triton kernels run " +
                         schedule_names([](const ScheduleEntry& e) { return !e.triton_kernels.empty(); }) +
                         " only, not " + s);
      }
    }
  }
  r.tiles = tile_requests(brs, bcs);
  r.splits = pick(f.splits, sc.splits, "--splits").value_or(0);
  const std::string pass = !f.pass.empty() ? f.pass : sc.pass.value_or("fwd");
  if (pass == "fwd") {
    r.passes = {Pass::fwd};
  } else if (pass == "bwd") {
    r.passes = {Pass::bwd};
  } else if (pass == "fwdbwd") {
    r.passes = {Pass::fwd, Pass::bwd};
  } else {
    throw InputError("--pass must be fwd, bwd or fwdbwd (got '" + pass + "')");
  }
  for (const Problem& p : r.problems) check_paged_schedules(p, r.schedules, r.passes);
  if (r.kernel.source != KernelSource::iosim) {
    // Other people's kernels are priced as compiled: a causal mask over equal lengths, contiguous K/V.
    const char* who = r.kernel.source == KernelSource::pytorch ? "--kernels pytorch" : "--kernels triton";
    for (const Problem& p : r.problems) {
      if (p.window > 0) throw InputError(std::string(who) + ": its kernels have no sliding window (--window)");
      if (p.page_size > 0) throw InputError(std::string(who) + ": its kernels have no paged K/V (--page-size)");
      if (r.kernel.source == KernelSource::triton && p.n != p.n_kv) {
        throw InputError("--kernels triton: the project's Triton kernels take n = n_kv (got n " + std::to_string(p.n) +
                         ", n_kv " + std::to_string(p.n_kv) + ")");
      }
    }
  }
  const std::uint64_t warps = pick(f.warps, std::nullopt, "--warps").value_or(0);
  const std::uint64_t stages = pick(f.stages, std::nullopt, "--stages").value_or(0);
  if (warps > 32) throw InputError("--warps must be at most 32 (got " + std::to_string(warps) + ")");
  if (stages > 8) throw InputError("--stages must be at most 8 (got " + std::to_string(stages) + ")");
  r.kernel.warps = static_cast<std::uint32_t>(warps);
  r.kernel.stages = static_cast<std::uint32_t>(stages);
  r.run.predict = f.predict;
  if (f.launch_order.empty() || f.launch_order == "x") {
    r.run.gpu.order = LaunchOrder::x_major;
  } else if (f.launch_order == "heads") {
    r.run.gpu.order = LaunchOrder::heads_major;
  } else {
    throw InputError("--launch-order must be x or heads (got '" + f.launch_order + "')");
  }
  r.run.execute = execute_options(f);
  if (r.run.execute) {  // before any run: a sweep fails at once, not after executing its first problems
    for (const Problem& p : r.problems) {
      for (const std::string& s : r.schedules) {
        for (Pass ps : r.passes) check_execution(s, ps, p, *r.run.execute);
      }
    }
  }
  r.run.gpu.replacement = f.l2_policy.empty() ? "lru" : f.l2_policy;
  r.run.gpu.flush_each_kernel = f.l2_flush_kernels;
  if (r.run.gpu.replacement != "lru" && r.run.gpu.replacement != "fifo" && r.run.gpu.replacement != "random") {
    throw InputError("--l2-policy must be lru, fifo or random (got '" + f.l2_policy + "')");
  }
  if (f.l2_mode.empty() || f.l2_mode == "fast") {
    r.run.gpu.l2 = L2Mode::fast;
  } else if (f.l2_mode == "exact") {
    r.run.gpu.l2 = L2Mode::exact;
  } else {
    throw InputError("--l2 must be fast or exact (got '" + f.l2_mode + "')");
  }
  if (f.l2_skip_rounds_given && f.l2_skip_rounds && r.run.gpu.l2 == L2Mode::exact) {
    throw InputError("--l2-skip-rounds is a shortcut of --l2 fast; --l2 exact replays every round");
  }
  r.run.gpu.skip_rounds = f.l2_skip_rounds;  // on by default; the exact replay never reads it
  r.run.gpu.merge_reads = f.l2_merge;
  if (f.l2_merge && r.run.gpu.l2 != L2Mode::exact) {
    throw InputError("--l2-merge needs --l2 exact (the fast replay does not merge reads)");
  }
  return r;
}

}  // namespace iosim::cli
