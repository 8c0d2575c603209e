// `iosim validate --config h200.yaml`: a grid of kernels measured on the GPU beside the model, written
// to results/validation-<gpu>-<date>.{json,md}.
//
// The grid: naive, flash1, flash2 (and flash3 on a Hopper GPU, forward: its compiled kernels) × fwd, bwd ×
// d ∈ {64, 128} × n ∈ {1024, 4096} (flash2 and flash3 also a ragged n = 3000) × every compiled tile, fp16
// (and bf16 for flash2 and flash3 at n = 4096). batch × heads fills
// the GPU: flash1 runs one block per head, so it gets a full wave of heads; the others enough blocks
// for several waves. --quick keeps one tile per kernel and n = 1024 (scripts/gpu check).
// The grid also holds, for every schedule and pass (fp16), causal masks (n = 2048 at d = 64 and 128;
// n = 1500, not a multiple of any tile; n = 1000 against n_kv = 1800), n = 1500 without a mask, and
// grouped-query attention with 32 query heads on kv_heads = 1, 4 and 8 (n = 1024; 8 also at d = 128;
// 4 also causal at n = 1500); --masks runs only these (scripts/gpu kernels-check).
//
// Decoding (flashdecode, flashdecode-heads; forward only): one query per head, 32 query heads on 8 K/V
// heads, d ∈ {64, 128}, (batch, n_kv) from (1, 4,096) to (64, 32,768) and (8, 131,072), fp16 (bf16 at
// batch 8, n_kv = 32,768); --quick keeps batch 1, n_kv = 4,096.
//
// Time sweeps (what the time model is measured against): --shape B,H,N,D (repeatable) replaces the
// grid's problems, and each schedule and pass then runs every compiled variant (tile × warps × K/V
// stages) at each shape, fp16; --warps and --stages keep only those variants (on the grid too, which
// otherwise runs each tile's default variant); --no-counters times only (CUDA events, cold and warm
// medians); --no-predict leaves the model out (its predictions of large problems take seconds each;
// scripts/repredict-validation.py adds them later, on any machine).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <filesystem>

#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/gpu_spec.h"
#include "src/cli/validate_shape.h"
#include "src/config/checked_file.h"
#include "src/config/hardware_config.h"
#include "src/config/search_path.h"
#include "src/report/json_writer.h"
#include "src/report/units_format.h"

namespace iosim::cli {

namespace {

struct Point {
  std::string schedule;
  Pass pass;
  Problem problem;
  TileRequest tiles;
  gpu::KernelShape shape;  ///< warps and stages; 0: the tile's default
};

/// "B,H,N,D" as a problem (n_kv = n, fp16); anything else is an InputError naming it.
Problem parse_shape(const std::string& text) {
  std::vector<std::uint64_t> v;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(part) == 0) {
      v.clear();
      break;
    }
    v.push_back(std::stoull(part));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (v.size() != 4) throw InputError("validate: --shape must be B,H,N,D (four positive integers), like 1,16,8192,64, not " + text);
  Problem p;
  p.batch = v[0];
  p.heads = v[1];
  p.n = p.n_kv = v[2];
  p.d = v[3];
  p.dtype = DType::fp16;
  return p;
}

/// Whether the schedule's CUDA kernels have compiled tiles (naive's cuBLAS picks its own).
bool tiled(const std::string& schedule) { return !schedule_entry(schedule).validate.library_tiles; }

/// The kernels to run for one schedule, pass and problem: naive once (cuBLAS tiles); a flash schedule
/// with every compiled variant when `variants`, else each compiled tile's default variant.
std::vector<std::pair<TileRequest, gpu::KernelShape>> kernels_of(const std::string& schedule, Pass pass, const Problem& p,
                                                                 bool variants) {
  const std::string_view sched = schedule_entry(schedule).name;
  if (!tiled(schedule)) return {{TileRequest{}, gpu::KernelShape{}}};
  const auto dir = pass == Pass::fwd ? gpu::Direction::fwd : gpu::Direction::bwd;
  const int d = static_cast<int>(p.d);
  std::vector<std::pair<TileRequest, gpu::KernelShape>> out;
  if (variants) {
    for (const gpu::KernelVariant& v : gpu::compiled_variants(sched, dir, d, p.dtype)) {
      out.push_back({{static_cast<std::uint64_t>(v.br), static_cast<std::uint64_t>(v.bc)}, {v.warps, v.stages}});
    }
  } else {
    for (const auto& [br, bc] : gpu::compiled_tiles(sched, dir, d, p.dtype)) {
      out.push_back({{static_cast<std::uint64_t>(br), static_cast<std::uint64_t>(bc)}, {}});
    }
  }
  return out;
}

/// Whether `dev` runs the schedule's kernels: flash3's (hopper_only) need compute capability 9.0 (sm_90a).
bool runs_on(const ScheduleEntry& e, const gpu::DeviceInfo& dev) {
  return !e.caps.hopper_only || gpu::runs_sm90a(dev);
}

/// Every schedule the CUDA backend runs on `dev`, in the registry's order.
std::vector<std::string> cuda_schedules(const gpu::DeviceInfo& dev) {
  std::vector<std::string> out;
  for (const ScheduleEntry& e : schedule_catalog()) {
    if (has_cuda_kernels(e) && runs_on(e, dev)) out.emplace_back(e.name);
  }
  return out;
}

std::uint64_t heads_for(const std::string& schedule, std::uint64_t n, const gpu::DeviceInfo& dev) {
  const auto sms = static_cast<std::uint64_t>(dev.sm_count);
  if (schedule_entry(schedule).validate.block_per_head) return sms;  // one block per head: one full wave
  return std::max<std::uint64_t>(8, 4 * sms * 128 / (2 * n));  // ≈ 4 waves of 2 blocks per SM at B_r = 128
}

/// "64x128" (or "64×128") as (B_r, B_c); anything else is an InputError naming it.
std::pair<std::uint64_t, std::uint64_t> parse_tile(const std::string& text) {
  std::string t = text;
  if (const std::size_t times = t.find("×"); times != std::string::npos) t.replace(times, std::string("×").size(), "x");
  // A positive number of at most six digits, else 0.
  const auto number = [](const std::string& part) -> std::uint64_t {
    if (part.empty() || part.size() > 6 || part.find_first_not_of("0123456789") != std::string::npos) return 0;
    return std::stoull(part);
  };
  const std::size_t x = t.find('x');
  const std::uint64_t br = x == std::string::npos ? 0 : number(t.substr(0, x));
  const std::uint64_t bc = x == std::string::npos ? 0 : number(t.substr(x + 1));
  if (br == 0 || bc == 0) throw InputError("validate: --tile must be B_rxB_c, like 64x128, not " + text);
  return {br, bc};
}

/// Every schedule × pass × shape × compiled variant (the time sweep).
std::vector<Point> sweep(const std::vector<Problem>& shapes, const std::vector<std::string>& schedules) {
  std::vector<Point> out;
  for (const std::string& schedule : schedules) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (const Problem& p : shapes) {
        for (const auto& [tr, shape] : kernels_of(schedule, pass, p, true)) out.push_back({schedule, pass, p, tr, shape});
      }
    }
  }
  return out;
}

bool is_decode(const std::string& schedule) { return schedule_entry(schedule).validate.decode; }

/// The masked, grouped-query and ragged problems of the grid (fp16, n_kv = n unless given).
struct MaskCase {
  std::uint64_t d, n, n_kv;
  bool causal;
  std::uint64_t kv_heads;  ///< of 32 query heads; 0: multi-head (heads as heads_for gives)
};
constexpr MaskCase kMaskCases[] = {
    {64, 2048, 2048, true, 0}, {128, 2048, 2048, true, 0}, {64, 1500, 1500, true, 0}, {64, 1000, 1800, true, 0},
    {64, 1500, 1500, false, 0}, {64, 1024, 1024, false, 1}, {64, 1024, 1024, false, 4}, {64, 1024, 1024, false, 8},
    {128, 1024, 1024, false, 8}, {64, 1500, 1500, true, 4}};
constexpr std::uint64_t kGqaHeads = 32;

std::vector<Point> mask_grid(bool variants, const gpu::DeviceInfo& dev, const std::vector<std::string>& schedules) {
  std::vector<Point> out;
  for (const std::string& schedule : schedules) {
    if (is_decode(schedule)) continue;  // decoding has its own grid (decode_grid)
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (const MaskCase& m : kMaskCases) {
        Problem p;
        const std::uint64_t heads = heads_for(schedule, m.n, dev);
        p.heads = m.kv_heads == 0 ? heads : kGqaHeads;
        p.batch = m.kv_heads == 0 ? 1 : std::max<std::uint64_t>(1, heads / kGqaHeads);  // as many blocks, about
        p.kv_heads = m.kv_heads;
        p.n = m.n;
        p.n_kv = m.n_kv;
        p.d = m.d;
        p.causal = m.causal;
        p.dtype = DType::fp16;
        for (const auto& [tr, shape] : kernels_of(schedule, pass, p, variants)) out.push_back({schedule, pass, p, tr, shape});
      }
    }
  }
  return out;
}

/// The decoding grid (see the header): smallest caches first.
std::vector<Point> decode_grid(const std::string& schedule, bool quick, bool variants) {
  using Shape = std::pair<std::uint64_t, std::uint64_t>;  // batch, n_kv
  const std::vector<Shape> shapes = quick ? std::vector<Shape>{{1, 4096}}
                                          : std::vector<Shape>{{1, 4096}, {8, 4096}, {64, 4096}, {1, 32768}, {8, 32768},
                                                               {64, 32768}, {1, 131072}, {8, 131072}};
  std::vector<Point> out;
  for (std::uint64_t d : {64u, 128u}) {
    for (const auto& [batch, n_kv] : shapes) {
      std::vector<DType> types{DType::fp16};
      if (!quick && batch == 8 && n_kv == 32768) types.push_back(DType::bf16);
      for (DType t : types) {
        Problem p;
        p.batch = batch;
        p.heads = 32;
        p.kv_heads = 8;
        p.n = 1;
        p.n_kv = n_kv;
        p.d = d;
        p.dtype = t;
        auto kernels = kernels_of(schedule, Pass::fwd, p, variants && !quick);
        if (quick) kernels.resize(std::min<std::size_t>(kernels.size(), 1));
        for (const auto& [tr, shape] : kernels) out.push_back({schedule, Pass::fwd, p, tr, shape});
      }
    }
  }
  return out;
}

std::vector<Point> grid(bool quick, bool variants, const gpu::DeviceInfo& dev, const std::vector<std::string>& schedules) {
  std::vector<Point> out;
  for (const std::string& schedule : schedules) {
    if (is_decode(schedule)) {
      const std::vector<Point> d = decode_grid(schedule, quick, variants);
      out.insert(out.end(), d.begin(), d.end());
      continue;
    }
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (const int d : gpu::kHeadDims) {
        std::vector<std::uint64_t> ns{1024};
        if (!quick) ns.push_back(4096);
        const bool extended = !quick && schedule_entry(schedule).validate.ragged_and_bf16;
        if (extended) ns.push_back(3000);
        for (std::uint64_t n : ns) {
          std::vector<DType> types{DType::fp16};
          if (extended && n == 4096) types.push_back(DType::bf16);
          for (DType t : types) {
            Problem p;
            p.batch = 1;
            p.heads = heads_for(schedule, n, dev);
            p.n = p.n_kv = n;
            p.d = static_cast<std::uint64_t>(d);
            p.dtype = t;
            auto kernels = kernels_of(schedule, pass, p, variants && !quick);
            if (quick && kernels.size() > 1) kernels.resize(1);
            for (const auto& [tr, shape] : kernels) out.push_back({schedule, pass, p, tr, shape});
          }
        }
      }
    }
  }
  if (!quick) {
    const std::vector<Point> masked = mask_grid(variants, dev, schedules);
    out.insert(out.end(), masked.begin(), masked.end());
  }
  return out;
}

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return s;
}


/// Counter rows summarised over the grid: how far off each is, typically and at worst.
std::string summary(const std::vector<report::Comparison>& all) {
  if (all.empty()) return {};
  std::string md = "| quantity | kernels | median abs. error | largest abs. error | errors above 5% |\n|---|---|---|---|---|\n";
  for (std::size_t i = 0; i < all.front().rows.size(); ++i) {
    std::vector<double> errs;
    for (const report::Comparison& c : all) {
      const report::CounterRow& r = c.rows[i];
      if (r.available && !std::isnan(r.error())) errs.push_back(std::abs(r.error()));
    }
    if (errs.empty()) continue;
    std::sort(errs.begin(), errs.end());
    const auto above = std::count_if(errs.begin(), errs.end(), [](double e) { return e > 0.05; });
    const std::size_t mid = errs.size() / 2;
    const double median = errs.size() % 2 == 1 ? errs[mid] : (errs[mid - 1] + errs[mid]) / 2;
    md += fmt::format("| {} | {} | {:.1f}% | {:.1f}% | {} |\n", all.front().rows[i].quantity, errs.size(),
                      100 * median, 100 * errs.back(), above);
  }
  return md + "\n";
}

/// A time in ms, "-" where there is none (no prediction).
std::string ms(double v) { return std::isnan(v) ? std::string("-") : fmt::format("{:.3g}", v); }

/// " causal", " kv=4" (K/V heads when they are shared), " window=W", " page=P" (" random" shuffled), those
/// that apply, or nothing.
std::string variant_suffix(const gpu::KernelSpec& s) {
  std::string t = s.causal ? " causal" : "";
  if (gpu::kv_head_count(s) != s.heads) t += fmt::format(" kv={}", gpu::kv_head_count(s));
  if (s.window != 0) t += fmt::format(" window={}", s.window);
  if (s.page_size != 0) t += fmt::format(" page={}{}", s.page_size, s.page_order == PageOrder::random ? " random" : "");
  return t;
}

/// "128×64 4w2s" (tile, warps, stages; flashdecode also its K/V splits, "s8"), "cuBLAS" for naive.
std::string kernel_text(const report::Comparison& c) {
  if (c.spec.br == 0) return "cuBLAS";
  const std::string splits = c.spec.splits != 0 ? fmt::format(" s{}", c.spec.splits) : "";
  return fmt::format("{}×{} {}w{}s{}", c.spec.br, c.spec.bc, c.model.kernel.warps, c.model.kernel.stages, splits);
}

/// "4096", or "1/32768" (n/n_kv) where they differ.
std::string n_text(const gpu::KernelSpec& s) {
  return s.n == s.n_kv ? std::to_string(s.n) : fmt::format("{}/{}", s.n, s.n_kv);
}

std::string markdown(const std::vector<report::Comparison>& all, const gpu::DeviceInfo& dev, const std::string& date,
                     const std::string& config) {
  std::string md = fmt::format("# Predicted against measured: {} ({})\n\n", dev.name, date);
  md += fmt::format("Model config: `{}`. Each row: one kernel run, counters from one profiled run (L2 swept before,\n"
                    "drained after), times the median of the runs. Error = (measured − predicted) / measured.\n"
                    "Times: predicted with the config's rates (its measured ceilings where it has them) and, as a bound,\n"
                    "at the datasheet's peaks; the resource the model finds binding in brackets.\n\n",
                    config);
  md += summary(all);
  md += "| schedule | pass | d | n | B·H | type | tile, warps, stages | L2 read | L2 write | L2 red | DRAM read | DRAM write | "
        "tensor FLOPs | time cold (pred / meas) | time warm (pred / meas) | bound at peaks |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const report::Comparison& c : all) {
    const auto& r = c.rows;
    const auto cell = [&](std::size_t i) { return r[i].available ? report::percent(r[i].error()) : std::string("n/a"); };
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} ms ({}) [{}] | "
                      "{} / {} ms ({}) | {} ms |\n",
                      c.schedule + variant_suffix(c.spec), c.pass, c.spec.d, n_text(c.spec), c.spec.batch * c.spec.heads,
                      name(c.spec.dtype),
                      kernel_text(c), cell(0), cell(1), cell(2), cell(3), cell(4), cell(5), ms(r[7].predicted),
                      ms(r[7].measured), cell(7), c.model.predicted ? c.model.predicted->cold_time.binding : "-",
                      ms(r[8].predicted), ms(r[8].measured), cell(8), ms(r[9].predicted));
  }
  return md;
}

std::string json(const std::vector<report::Comparison>& all, const gpu::DeviceInfo& dev, const std::string& date,
                 const std::string& config, const ValidateFlags& v) {
  report::JsonWriter w;
  w.begin_object().field("schema_version", std::uint64_t{1}).field("device", dev.name).field("config", config);
  w.field("date", date).field("quick", v.quick).field("counters", !v.measure.no_counters);
  w.field("predictions", !v.no_predict).field("warmup", std::uint64_t(v.measure.warmup));
  w.field("timed_runs", std::uint64_t(v.measure.runs)).key("runs").begin_array();
  for (const report::Comparison& c : all) report::comparison_json(w, c);
  w.end_array().end_object();
  return w.str();
}

}  // namespace

int validate_command(const ValidateFlags& v, std::ostream& out, std::ostream& progress) {
  for (const std::string& s : v.schedules) {
    const ScheduleEntry* e = find_schedule(s);
    if (e == nullptr || !has_cuda_kernels(*e)) {
      throw InputError("validate: --schedule must be " + schedule_names(has_cuda_kernels, ", ", " or ") + ", not " + s);
    }
  }
  for (const std::string& p : v.passes) {
    if (p != "fwd" && p != "bwd") throw InputError("validate: --pass must be fwd or bwd, not " + p);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tiles;
  for (const std::string& t : v.tiles) tiles.push_back(parse_tile(t));
  std::vector<Problem> shapes;
  for (const std::string& t : v.shapes) shapes.push_back(parse_shape(t));
  apply_shape_options(v.shape, shapes);
  for (const int x : v.warps) {
    if (x < 1) throw InputError("validate: --warps must be positive, not " + std::to_string(x));
  }
  for (const int x : v.stages) {
    if (x < 1) throw InputError("validate: --stages must be positive, not " + std::to_string(x));
  }
  if (v.masks && (v.quick || !shapes.empty())) throw InputError("validate: --masks takes neither --quick nor --shape");
  // The results' folder is checked before the GPU runs: a file by that name is refused at once.
  if (std::error_code ec; std::filesystem::exists(v.out_dir, ec) && !std::filesystem::is_directory(v.out_dir, ec)) {
    throw InputError("validate: --out " + v.out_dir + " is not a folder");
  }
  require_gpu("validate");
  const std::string config_file = config::find_file(v.config, config::config_dir(), "config");
  const HardwareSpec hw = config::load_hardware(config_file);
  const gpu::DeviceInfo dev = gpu::device_info();
  for (const std::string& s : v.schedules) {
    if (!runs_on(schedule_entry(s), dev)) {
      throw InputError(fmt::format("validate: {} runs on Hopper GPUs only (sm_90a, compute capability 9.0); {} is {}.{}",
                                   s, dev.name, dev.cc_major, dev.cc_minor));
    }
  }
  const std::vector<std::string> schedules = v.schedules.empty() ? cuda_schedules(dev) : v.schedules;
  const bool variants = !v.warps.empty() || !v.stages.empty();
  std::vector<Point> points = !shapes.empty() ? sweep(shapes, schedules)
                              : v.masks       ? mask_grid(variants, dev, schedules)
                                              : grid(v.quick, variants, dev, schedules);
  for (const std::string& s : v.schedules) {
    if (std::none_of(points.begin(), points.end(), [&](const Point& p) { return p.schedule == s; })) {
      throw InputError("validate: this build has no kernel of " + s + " for the grid's problems");
    }
  }
  // A slice of the grid: only the passes, head dims and sequence lengths asked for.
  const auto keep = [](const auto& wanted, auto value) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
  };
  std::erase_if(points, [&](const Point& p) {
    const bool flash = tiled(p.schedule);  // naive has no tile, warps or stages to filter on
    return !keep(v.passes, std::string(name(p.pass))) || !keep(v.ds, p.problem.d) || !keep(v.ns, p.problem.n) ||
           (flash && !keep(tiles, std::pair{p.tiles.br.value_or(0), p.tiles.bc.value_or(0)})) ||
           (flash && !keep(v.warps, p.shape.warps)) || (flash && !keep(v.stages, p.shape.stages));
  });
  if (points.empty()) {
    throw InputError("validate: no kernel of the grid matches --pass, --d, --n, --tile, --warps and --stages");
  }
  std::vector<report::Comparison> results;
  const std::string date = today();
  std::filesystem::create_directories(v.out_dir);
  std::string base = v.out_dir + "/validation-" + slug(dev.name) + "-" + date + (v.quick ? "-quick" : "") +
                     (v.masks ? "-masks" : "") +
                     (v.schedules.empty() ? "" : "-" + fmt::format("{}", fmt::join(v.schedules, "-")));
  if (!v.passes.empty()) base += "-" + fmt::format("{}", fmt::join(v.passes, "-"));
  if (!v.ds.empty()) base += "-d" + fmt::format("{}", fmt::join(v.ds, "-"));
  if (!v.ns.empty()) base += "-n" + fmt::format("{}", fmt::join(v.ns, "-"));
  for (std::size_t i = 0; i < tiles.size(); ++i) base += fmt::format("{}{}x{}", i == 0 ? "-tile" : "-", tiles[i].first, tiles[i].second);
  for (const Problem& p : shapes) base += fmt::format("-b{}h{}n{}d{}", p.batch, p.heads, p.n, p.d);
  if (v.shape.causal) base += "-causal";
  if (v.shape.n_kv) base += fmt::format("-nkv{}", *v.shape.n_kv);
  if (v.shape.window) base += fmt::format("-w{}", *v.shape.window);
  if (v.shape.page_size) base += fmt::format("-page{}", *v.shape.page_size);
  if (!v.shape.page_order.empty()) base += "-" + v.shape.page_order;
  if (!v.warps.empty()) base += "-w" + fmt::format("{}", fmt::join(v.warps, "-"));
  if (!v.stages.empty()) base += "-st" + fmt::format("{}", fmt::join(v.stages, "-"));
  if (v.measure.no_counters) base += "-time";
  if (v.no_predict) base += "-nopred";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const auto t0 = std::chrono::steady_clock::now();
    progress << fmt::format("[{}/{}] {} {} d={} n={} n_kv={} batch={} heads={}{}{}{}{} {} ", i + 1, points.size(), p.schedule,
                            name(p.pass), p.problem.d, p.problem.n, p.problem.n_kv, p.problem.batch, p.problem.heads,
                            p.problem.kv_heads == 0 ? "" : fmt::format(" kv_heads={}", p.problem.kv_heads),
                            p.problem.causal ? " causal" : "",
                            p.problem.window == 0 ? "" : fmt::format(" window={}", p.problem.window),
                            p.problem.paged() ? fmt::format(" page_size={}", p.problem.page_size) : "",
                            name(p.problem.dtype));
    try {
      const GpuCase c = gpu_case(p.schedule, p.pass, p.problem, hw, p.tiles, p.shape);
      results.push_back(v.no_predict ? measure_only_case(c, p.schedule, p.pass, v.measure)
                                     : measure_case(c, p.schedule, p.pass, v.measure));
      const report::Comparison& r = results.back();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      progress << fmt::format("{}: DRAM read {} / write {}, time {} ms cold, {} ms warm ({}) ({:.1f} s)\n",
                              kernel_text(r), report::percent(r.rows[3].error()), report::percent(r.rows[4].error()),
                              ms(r.rows[7].measured), ms(r.rows[8].measured), report::percent(r.rows[7].error()), s);
    } catch (const InputError& e) {
      progress << "skipped: " << e.what() << '\n';
      continue;
    }
    // Written after every kernel, so that an interrupted grid keeps what it measured.
    config::write_regular_file(base + ".json", json(results, dev, date, config_file, v));
    config::write_regular_file(base + ".md", markdown(results, dev, date, config_file));
  }
  out << fmt::format("{} kernels measured; wrote {}.json and {}.md\n", results.size(), base, base);
  return kExitOk;
}

}  // namespace iosim::cli
