#include "src/report/measured_error.h"

#include <fmt/format.h>

#include <array>
#include <sstream>
#include <vector>

#include "src/report/text_table.h"
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

/// The counters of the table, in its order: the CSV's name and the column's.
constexpr std::array<std::array<const char*, 2>, 5> kCounters = {{{"l2_read", "L2 read"},
                                                                  {"l2_write", "L2 write"},
                                                                  {"dram_read", "DRAM read"},
                                                                  {"dram_write", "DRAM write"},
                                                                  {"time_cold", "time"}}};

const CounterError* counter(const ValidatedKind& k, const char* name) {
  for (const CounterError& c : k.counters) {
    if (c.counter == name) return &c;
  }
  return nullptr;
}

std::string cell(const ValidatedKind& k, const char* name) {
  const CounterError* c = counter(k, name);
  return c ? fmt::format("{:.1f}% ({:.1f}%)", c->median_pct, c->max_pct) : "-";
}

std::string n_range(const ValidatedKind& k) {
  return k.n_min == k.n_max ? grouped(k.n_min) : grouped(k.n_min) + "–" + grouped(k.n_max);
}

}  // namespace

std::string mask_kind(const Problem& p) {
  if (p.window > 0) return "window";
  return p.causal ? "causal" : "none";
}

const ValidatedKind* validated_kind(const ScheduleRun& s, const Problem& p, const std::vector<ValidatedKind>& kinds) {
  if (s.kernel.source != KernelSource::iosim) return nullptr;
  const std::string pass(name(s.pass)), mask = mask_kind(p);
  for (const ValidatedKind& k : kinds) {
    if (k.schedule == s.name && k.pass == pass && k.mask == mask && k.paged == p.paged()) return &k;
  }
  return nullptr;
}

std::string measured_error_table(const ProblemRuns& pr, const std::vector<ValidatedKind>& kinds) {
  using A = TextTable::Align;
  std::vector<std::string> header = {"schedule", "pass", "mask", "kernels", "n measured"};
  std::vector<A> align = {A::left, A::left, A::left, A::right, A::right};
  for (const auto& [csv_name, column] : kCounters) header.emplace_back(column), align.push_back(A::right);
  TextTable t(std::move(header), std::move(align));
  bool any = false;
  for (const ScheduleRun& s : pr.schedules) {
    if (!s.predicted) continue;
    any = true;
    const std::string mask = mask_kind(pr.problem) + (pr.problem.paged() ? ", paged" : "");
    const ValidatedKind* k = validated_kind(s, pr.problem, kinds);
    std::vector<std::string> row = {s.name, std::string(name(s.pass)), mask};
    if (!k) {
      row.insert(row.end(), {"0", "-", "not measured on this GPU"});
      row.resize(row.size() + kCounters.size() - 1);
    } else {
      row.insert(row.end(), {std::to_string(k->counters.front().kernels), n_range(*k)});
      for (const auto& [csv_name, column] : kCounters) row.push_back(cell(*k, csv_name));
    }
    t.add(std::move(row));
  }
  if (!any) return {};
  return "\n  measured error of such predictions on this GPU: median |error| (largest) over the kernels of this\n"
         "  schedule, pass and mask that ran on it, re-predicted by today's model (configs/validated-error.csv;\n"
         "  docs/validation.md says why each misses)\n" +
         t.render("  ");
}

void measured_error_json(JsonWriter& w, const ValidatedKind* k) {
  w.key("validated");
  if (!k) {
    w.null();
    return;
  }
  w.begin_object().field("mask", k->mask).field("paged", k->paged).field("n_min", k->n_min).field("n_max", k->n_max);
  w.key("sources").begin_array_one_line();
  std::istringstream in(k->sources);
  for (std::string s; in >> s;) w.value(s);
  w.end_array();
  w.key("counters").begin_object();
  for (const CounterError& c : k->counters) {
    w.key(c.counter).begin_object_one_line().field("kernels", std::uint64_t{c.kernels});
    w.field("median_abs_error_pct", c.median_pct).field("max_abs_error_pct", c.max_pct).end_object();
  }
  w.end_object().end_object();
}

}  // namespace iosim::report
