#include "src/report/bounds_report.h"

#include <fmt/format.h>

#include "sim/core/escape.h"
#include "src/report/json_writer.h"
#include "src/report/run_report.h"
#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

std::uint64_t x_of(const SlopeCheck& c, const SweepPoint& p) { return c.variable == "n" ? p.n : p.m_elements; }

}  // namespace

std::string crossover_table(const Crossover& c) {
  std::string out = fmt::format(
      "\n  below M = d² = {}: HBM accesses of flash2 (Θ(N²d²/M)) and dtiled (Θ(N²d/√M)), n = {}\n",
      grouped(c.d_squared), c.flash2.empty() ? 0 : grouped(c.flash2.front().n));
  TextTable t({"M", "M / d²", "flash2 tile", "flash2", "dtiled tile", "dtiled", "flash2 ÷ dtiled"});
  for (std::size_t i = 0; i < c.flash2.size(); ++i) {
    const SweepPoint& f = c.flash2[i];
    const SweepPoint& g = c.dtiled[i];
    t.add({grouped(f.m_elements), fmt::format("{:g}", static_cast<double>(f.m_elements) / static_cast<double>(c.d_squared)),
           fmt::format("{}×{}", f.tiles.br, f.tiles.bc), si_count(f.count), fmt::format("{}×{}", g.tiles.br, g.tiles.bc),
           si_count(g.count), fmt::format("{:.2f}", f.count / g.count)});
  }
  out += t.render("  ");
  if (c.m > 0) {
    out += fmt::format("  crossover at M ≈ {} = {:.2f}·d²: below it, tiling d as well moves less (Saha & Ye 2024)\n",
                       grouped(static_cast<std::uint64_t>(c.m)), c.m / static_cast<double>(c.d_squared));
  } else {
    out += "  no crossover in this range\n";
  }
  return out;
}

std::string render_bounds_table(const BoundsReport& r) {
  std::string out = fmt::format("iosim bounds · {} ({}) · d {}, {}, {} pass\n", escape_controls(r.hardware.name),
                                escape_controls(r.config_file),
                                r.base.d, name(r.base.dtype), r.pass == Pass::fwd ? "forward" : "backward");
  out += "log-log slope of HBM accesses (reads + writes, elements) against n (n_kv = n) and the SRAM size M\n\n";
  TextTable t({"schedule", "sweep", "range", "fitted over", "held fixed", "expected", "fitted", "verdict"},
              {TextTable::Align::left, TextTable::Align::left, TextTable::Align::left, TextTable::Align::left,
               TextTable::Align::left, TextTable::Align::right, TextTable::Align::right, TextTable::Align::left});
  std::vector<std::string> regimes;
  for (const SlopeCheck& c : r.checks) {
    const SweepPoint& a = c.points.front();
    const SweepPoint& b = c.points.back();
    const SweepPoint* first_fit = &b;
    for (const SweepPoint& p : c.points) {
      if (p.fitted) {
        first_fit = &p;
        break;
      }
    }
    std::string fixed = c.variable == "n" ? fmt::format("M = {}", grouped(a.m_elements))
                                          : fmt::format("n = {}", grouped(a.n));
    if (c.window != 0) fixed += fmt::format(", causal window W = {}", grouped(c.window));
    t.add({c.schedule, c.variable, fmt::format("{} … {}", grouped(x_of(c, a)), grouped(x_of(c, b))),
           fmt::format("≥ {}", grouped(x_of(c, *first_fit))), fixed, fmt::format("{:+.2f}", c.expected),
           fmt::format("{:+.3f}", c.fitted),
           c.within() ? fmt::format("ok (±{:.2f})", c.tolerance) : fmt::format("OUT of ±{:.2f}", c.tolerance)});
    if (first_fit != &a) {
      regimes.push_back(fmt::format("{} {}: {} for {} ≥ {}, {} below", c.schedule, c.variable, b.variant,
                                    c.variable, grouped(x_of(c, *first_fit)), a.variant));
    }
  }
  out += t.render("  ");
  if (!regimes.empty()) {
    out += "\n  variants (the slope is the asymptotic one, fitted over the variant of the largest value)\n";
    for (const std::string& s : regimes) out += "  - " + s + "\n";
  }
  out += "\n  tiles in the M sweeps\n";
  for (const SlopeCheck& c : r.checks) {
    if (c.variable == "M") out += fmt::format("  - {}: {}\n", c.schedule, c.tile_policy);
  }
  if (!r.crossover.flash2.empty()) out += crossover_table(r.crossover);
  return out;
}

std::string render_bounds_json(const BoundsReport& r) {
  JsonWriter w;
  w.begin_object().field("schema_version", kSchemaVersion);
  w.key("config").begin_object().field("file", r.config_file).field("name", r.hardware.name).end_object();
  w.key("problem").begin_object().field("d", r.base.d).field("dtype", name(r.base.dtype));
  w.field("batch", r.base.batch).field("heads", r.base.heads).end_object();
  w.key("checks").begin_array();
  for (const SlopeCheck& c : r.checks) {
    w.begin_object().field("schedule", c.schedule).field("variable", c.variable);
    w.field("expected", c.expected).field("fitted", c.fitted).field("tolerance", c.tolerance);
    w.field("within", c.within()).field("tile_policy", c.tile_policy);
    if (c.window != 0) w.field("window", c.window);  // the n sweep under a causal window (slope 1)
    w.key("points").begin_array();
    for (const SweepPoint& p : c.points) {
      w.begin_object().field("n", p.n).field("m_elements", p.m_elements).field("br", p.tiles.br);
      w.field("bc", p.tiles.bc).field("count", p.count).field("bound", p.bound).field("fitted", p.fitted);
      w.field("variant", p.variant).end_object();
    }
    w.end_array().end_object();
  }
  w.end_array();
  w.key("crossover").begin_object().field("d_squared", r.crossover.d_squared).field("m", r.crossover.m);
  for (const auto& [key, pts] : {std::pair{"flash2", &r.crossover.flash2}, std::pair{"dtiled", &r.crossover.dtiled}}) {
    w.key(key).begin_array();
    for (const SweepPoint& p : *pts) {
      w.begin_object().field("m_elements", p.m_elements).field("br", p.tiles.br).field("bc", p.tiles.bc);
      w.field("count", p.count).end_object();
    }
    w.end_array();
  }
  w.end_object().end_object();
  return w.str();
}

std::string render_bounds_csv(const BoundsReport& r) {
  std::string out = "schedule,variable,expected,fitted,within,n,m_elements,br,bc,count,bound,in_fit\n";
  for (const SlopeCheck& c : r.checks) {
    for (const SweepPoint& p : c.points) {
      out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", c.schedule, c.variable, c.expected, c.fitted,
                         c.within() ? "true" : "false", p.n, p.m_elements, p.tiles.br, p.tiles.bc, p.count, p.bound,
                         p.fitted ? "true" : "false");
    }
  }
  return out;
}

}  // namespace iosim::report
