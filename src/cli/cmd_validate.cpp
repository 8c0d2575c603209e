// `iosim validate --config h200.yaml`: a grid of kernels measured on the GPU beside the model, written
// to results/validation-<gpu>-<date>.{json,md}.
//
// The grid: naive, flash1, flash2 × fwd, bwd × d ∈ {64, 128} × n ∈ {1024, 4096} (flash2 also a
// ragged n = 3000) × every compiled tile, fp16 (and bf16 for flash2 at n = 4096). batch × heads fills
// the GPU: flash1 runs one block per head, so it gets a full wave of heads; the others enough blocks
// for several waves. --quick keeps one tile per kernel and n = 1024 (scripts/gpu-check).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/gpu_spec.h"
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
};

std::uint64_t heads_for(const std::string& schedule, std::uint64_t n, const gpu::DeviceInfo& dev) {
  const auto sms = static_cast<std::uint64_t>(dev.sm_count);
  if (schedule == "flash1") return sms;        // one block per head: one full wave
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

std::vector<Point> grid(bool quick, const gpu::DeviceInfo& dev, const std::vector<std::string>& schedules) {
  std::vector<Point> out;
  for (const std::string& schedule : schedules) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (std::uint64_t d : {64u, 128u}) {
        std::vector<std::uint64_t> ns{1024};
        if (!quick) ns.push_back(4096);
        if (!quick && schedule == "flash2") ns.push_back(3000);
        for (std::uint64_t n : ns) {
          std::vector<DType> types{DType::fp16};
          if (!quick && schedule == "flash2" && n == 4096) types.push_back(DType::bf16);
          for (DType t : types) {
            Problem p;
            p.batch = 1;
            p.heads = heads_for(schedule, n, dev);
            p.n = p.n_kv = n;
            p.d = d;
            p.dtype = t;
            std::vector<TileRequest> tiles{{}};
            if (schedule != "naive") {
              const auto alg = schedule == "flash1" ? gpu::Algo::flash1 : gpu::Algo::flash2;
              const auto dir = pass == Pass::fwd ? gpu::Direction::fwd : gpu::Direction::bwd;
              tiles.clear();
              for (const auto& [br, bc] : gpu::compiled_tiles(alg, dir, static_cast<int>(d), t)) {
                tiles.push_back({static_cast<std::uint64_t>(br), static_cast<std::uint64_t>(bc)});
                if (quick) break;
              }
            }
            for (const TileRequest& tr : tiles) out.push_back({schedule, pass, p, tr});
          }
        }
      }
    }
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

std::string markdown(const std::vector<report::Comparison>& all, const gpu::DeviceInfo& dev, const std::string& date,
                     const std::string& config) {
  std::string md = fmt::format("# Predicted against measured: {} ({})\n\n", dev.name, date);
  md += fmt::format("Model config: `{}`. Each row: one kernel run, counters from one profiled run (L2 swept before,\n"
                    "drained after), times the median of the runs. Error = (measured − predicted) / measured.\n"
                    "Times: predicted with the config's rates (its measured ceilings where it has them) and, as a bound,\n"
                    "at the datasheet's peaks; the resource the model finds binding in brackets.\n\n",
                    config);
  md += summary(all);
  md += "| schedule | pass | d | n | B·H | type | tile | L2 read | L2 write | L2 red | DRAM read | DRAM write | "
        "tensor FLOPs | time cold (pred / meas) | time warm (pred / meas) | bound at peaks |\n";
  md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const report::Comparison& c : all) {
    const auto& r = c.rows;
    const auto cell = [&](std::size_t i) { return r[i].available ? report::percent(r[i].error()) : std::string("n/a"); };
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.3g} / {:.3g} ms ({}) [{}] | "
                      "{:.3g} / {:.3g} ms ({}) | {:.3g} ms |\n",
                      c.schedule, c.pass, c.spec.d, c.spec.n, c.spec.batch * c.spec.heads, name(c.spec.dtype),
                      c.spec.br == 0 ? std::string("cuBLAS") : fmt::format("{}×{}", c.spec.br, c.spec.bc), cell(0),
                      cell(1), cell(2), cell(3), cell(4), cell(5), r[7].predicted, r[7].measured, cell(7),
                      c.model.predicted->cold_time.binding, r[8].predicted, r[8].measured, cell(8), r[9].predicted);
  }
  return md;
}

std::string json(const std::vector<report::Comparison>& all, const gpu::DeviceInfo& dev, const std::string& date,
                 const std::string& config, bool quick) {
  report::JsonWriter w;
  w.begin_object().field("schema_version", std::uint64_t{1}).field("device", dev.name).field("config", config);
  w.field("date", date).field("quick", quick).key("runs").begin_array();
  for (const report::Comparison& c : all) report::comparison_json(w, c);
  w.end_array().end_object();
  return w.str();
}

}  // namespace

int validate_command(const ValidateFlags& v, std::ostream& out, std::ostream& progress) {
  for (const std::string& s : v.schedules) {
    if (s != "naive" && s != "flash1" && s != "flash2") {
      throw InputError("validate: --schedule must be naive, flash1 or flash2, not " + s);
    }
  }
  for (const std::string& p : v.passes) {
    if (p != "fwd" && p != "bwd") throw InputError("validate: --pass must be fwd or bwd, not " + p);
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> tiles;
  for (const std::string& t : v.tiles) tiles.push_back(parse_tile(t));
  require_gpu("validate");
  const std::string config_file = config::find_file(v.config, config::config_dir(), "config");
  const HardwareSpec hw = config::load_hardware(config_file);
  const gpu::DeviceInfo dev = gpu::device_info();
  std::vector<Point> points =
      grid(v.quick, dev, v.schedules.empty() ? std::vector<std::string>{"naive", "flash1", "flash2"} : v.schedules);
  // A slice of the grid: only the passes, head dims and sequence lengths asked for.
  const auto keep = [](const auto& wanted, auto value) {
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), value) != wanted.end();
  };
  std::erase_if(points, [&](const Point& p) {
    return !keep(v.passes, std::string(name(p.pass))) || !keep(v.ds, p.problem.d) || !keep(v.ns, p.problem.n) ||
           !keep(tiles, std::pair{p.tiles.br.value_or(0), p.tiles.bc.value_or(0)});
  });
  if (points.empty()) throw InputError("validate: no kernel of the grid matches --pass, --d, --n and --tile");
  std::vector<report::Comparison> results;
  const std::string date = today();
  std::filesystem::create_directories(v.out_dir);
  std::string base = v.out_dir + "/validation-" + slug(dev.name) + "-" + date + (v.quick ? "-quick" : "") +
                     (v.schedules.empty() ? "" : "-" + fmt::format("{}", fmt::join(v.schedules, "-")));
  if (!v.passes.empty()) base += "-" + fmt::format("{}", fmt::join(v.passes, "-"));
  if (!v.ds.empty()) base += "-d" + fmt::format("{}", fmt::join(v.ds, "-"));
  if (!v.ns.empty()) base += "-n" + fmt::format("{}", fmt::join(v.ns, "-"));
  for (std::size_t i = 0; i < tiles.size(); ++i) base += fmt::format("{}{}x{}", i == 0 ? "-tile" : "-", tiles[i].first, tiles[i].second);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    const auto t0 = std::chrono::steady_clock::now();
    progress << fmt::format("[{}/{}] {} {} d={} n={} heads={} {} ", i + 1, points.size(), p.schedule, name(p.pass),
                            p.problem.d, p.problem.n, p.problem.heads, name(p.problem.dtype));
    try {
      const GpuCase c = gpu_case(p.schedule, p.pass, p.problem, hw, p.tiles);
      results.push_back(measure_case(c, p.schedule, p.pass, v.measure));
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      progress << fmt::format("tile {}×{}: DRAM read {} / write {}, time {} ({:.1f} s)\n", c.spec.br, c.spec.bc,
                              report::percent(results.back().rows[3].error()),
                              report::percent(results.back().rows[4].error()),
                              report::percent(results.back().rows[7].error()), s);
    } catch (const InputError& e) {
      progress << "skipped: " << e.what() << '\n';
      continue;
    }
    // Written after every kernel, so that an interrupted grid keeps what it measured.
    std::ofstream(base + ".json") << json(results, dev, date, config_file, v.quick);
    std::ofstream(base + ".md") << markdown(results, dev, date, config_file);
  }
  out << fmt::format("{} kernels measured; wrote {}.json and {}.md\n", results.size(), base, base);
  return kExitOk;
}

}  // namespace iosim::cli
