// `iosim sweep SPEC.yaml -o OUT.jsonl [--shard k/N | --points LIST] [--engine ray]` and
// `iosim sweep merge A.jsonl B.jsonl … -o OUT.jsonl` (docs/sweeps.md).
#include "src/cli/cmd_sweep.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>

#include "sim/core/error.h"
#include "sim/core/progress.h"
#include "src/cli/app.h"
#include "src/cli/limits.h"
#include "src/cli/records_lock.h"
#include "src/cli/sweep_count.h"
#include "src/cli/sweep_points.h"
#include "src/cli/sweep_records.h"
#include "src/config/yaml_map.h"

namespace iosim::cli {

namespace {

std::optional<std::size_t> parse_index(std::string_view s) {
  std::size_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// "k/N" → the points i with i mod N = k, of `count`.
std::vector<std::size_t> shard_points(const std::string& text, std::size_t count) {
  const std::size_t slash = text.find('/');
  const std::optional<std::size_t> k = slash == std::string::npos ? std::nullopt : parse_index(text.substr(0, slash));
  const std::optional<std::size_t> n = slash == std::string::npos ? std::nullopt : parse_index(text.substr(slash + 1));
  if (!k || !n || *n == 0 || *k >= *n) {
    throw InputError(std::string("--shard must be k/N with 0 <= k < N (got '") + config::printable(text) +
                     "'; in a Slurm array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-(N-1))");
  }
  std::vector<std::size_t> out;
  for (std::size_t i = *k; i < count; i += *n) out.push_back(i);
  return out;
}

/// "i:j,k,…" (i:j is i up to j, j excluded) → the indices, sorted, each once, each below `count`.
std::vector<std::size_t> listed_points(const std::string& text, std::size_t count) {
  std::set<std::size_t> out;
  const auto bad = [&](const std::string& why) {
    const std::string range = count == 0 ? "none" : "0 to " + std::to_string(count - 1);
    return InputError("--points: " + why + " (got '" + config::printable(text) + "'; the sweep's points are " + range +
                      "; e.g. 0:10,12)");
  };
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t colon = item.find(':');
    const std::optional<std::size_t> a = parse_index(item.substr(0, colon));
    const std::optional<std::size_t> b = colon == std::string::npos ? a : parse_index(item.substr(colon + 1));
    if (!a || !b) throw bad(std::string("'") + config::printable(item) + "' is not an index i or a range i:j");
    const std::size_t end = colon == std::string::npos ? *a + 1 : *b;
    if (end <= *a) throw bad(std::string("the range '") + config::printable(item) + "' is empty");
    if (end > count) throw bad(std::string("'") + config::printable(item) + "' goes past the last point");
    for (std::size_t i = *a; i < end; ++i) out.insert(i);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return {out.begin(), out.end()};
}

/// Sorted indices as "i:j,k" (the form --points reads); "" for none.
std::string as_ranges(const std::vector<std::size_t>& idx) {
  std::string out;
  for (std::size_t a = 0; a < idx.size();) {
    std::size_t b = a + 1;
    while (b < idx.size() && idx[b] == idx[b - 1] + 1) ++b;
    if (!out.empty()) out += ',';
    out += b - a == 1 ? std::to_string(idx[a]) : std::to_string(idx[a]) + ":" + std::to_string(idx[b - 1] + 1);
    a = b;
  }
  return out;
}

/// How much of a records file may be read: its text and its lines are held at once.
std::uint64_t records_file_limit(const Limits& limits) { return limits.bytes / 2; }
constexpr const char* kRecordsLimitHint = " (half of --max-memory: allow a larger one with a larger --max-memory)";

/// The records already in `out`, its incomplete last line (a killed run) cut off first; incomplete
/// records inside the file count as not run (`incomplete` tells whether there were any).
std::set<std::string, std::less<>> done_keys(const std::string& out, const Limits& limits, bool quiet,
                                             std::ostream& notes, bool& incomplete) {
  const RecordFile f = read_records(out, /*missing_ok=*/true, records_file_limit(limits), kRecordsLimitHint);
  if (f.incomplete_tail) {
    std::error_code ec;
    std::filesystem::resize_file(out, f.complete_bytes, ec);
    if (ec) throw InputError(out + ": cannot cut its incomplete last line (" + ec.message() + ")");
    if (!quiet) notes << "sweep: " << out << ": cut an incomplete last line (a killed run); its point runs again\n";
  }
  incomplete = !f.incomplete_lines.empty();
  if (incomplete && !quiet) {
    notes << "sweep: " << out << ": " << f.incomplete_lines.size() << " incomplete record(s) (a key without the run's "
          << "fields; the first at line " << f.incomplete_lines.front() << "): their points run again\n";
  }
  (void)merge_records(f.lines);  // two different records for one point: refused before any point runs
  std::set<std::string, std::less<>> keys;
  for (const std::string& l : f.lines) keys.emplace(*record_key(l));
  return keys;
}

/// The file sorted by key, each record once and no incomplete record, when it is not already (it
/// resumed work of another order, or held incomplete records).
void canonicalize(const std::string& out, const Limits& limits) {
  const RecordFile f = read_records(out, /*missing_ok=*/false, records_file_limit(limits), kRecordsLimitHint);
  std::vector<std::string> merged = merge_records(f.lines);
  if (merged != f.lines || !f.incomplete_lines.empty()) write_records(out, merged, std::cout);
}

int merge_command(const SweepFlags& f, std::ostream& out) {
  if (f.merge_out.empty()) throw InputError("sweep merge: give the output file: -o OUT.jsonl (or -o - for stdout)");
  const Limits limits = resolve_limits("", f.merge_max_memory);
  // The output first (it may be one of the inputs): no sweep may be appending to it while it is replaced.
  RecordsLock out_lock;
  if (f.merge_out != "-") {
    out_lock = RecordsLock::acquire(f.merge_out, RecordsLock::Mode::exclusive, /*create=*/false, f.merge_wait);
  }
  std::uint64_t budget = records_file_limit(limits);
  std::vector<RecordsLock> in_locks;
  std::vector<std::string> all;
  for (const std::string& in : f.merge_inputs) {
    if (!out_lock.is(in)) {
      in_locks.push_back(RecordsLock::acquire(in, RecordsLock::Mode::shared, /*create=*/false, f.merge_wait));
    }
    RecordFile r = read_records(in, /*missing_ok=*/false, budget, " (half of --max-memory for all the inputs together: "
                                "allow more with a larger --max-memory)");
    if (r.incomplete_tail) {
      throw InputError(in + ": its last line is incomplete (a killed run): run that sweep again to finish it first");
    }
    if (!r.incomplete_lines.empty()) {
      throw InputError(in + ":" + std::to_string(r.incomplete_lines.front()) +
                       ": an incomplete record (a key without the run's fields): run that sweep again to finish it first");
    }
    budget -= std::min(budget, r.complete_bytes);
    for (std::string& l : r.lines) all.push_back(std::move(l));
  }
  write_records(f.merge_out, merge_records(std::move(all)), out);
  return kExitOk;
}

/// What every use of a sweep file checks, --list and --pending as much as a run: the flags, the
/// number of points (before they are built), each point's hardware, problem, schedule and tile.
struct SweepPlan {
  Limits limits;
  std::vector<SweepPoint> points;
  std::vector<std::size_t> selected;  ///< --shard, --points or all, in the canonical order
};

SweepPlan plan_sweep(const SweepFlags& f) {
  if (f.spec.empty()) throw InputError("sweep: give the sweep file: iosim sweep SPEC.yaml -o OUT.jsonl (docs/sweeps.md)");
  const bool ray = f.engine == "ray";
  if (!ray && (!f.ray_address.empty() || f.workers || f.chunk)) {
    throw InputError("sweep: --ray-address, --workers and --chunk are for --engine ray");
  }
  if (!f.shard.empty() && !f.points.empty()) throw InputError("sweep: give --shard or --points, not both");
  if (ray && (!f.shard.empty() || !f.points.empty() || f.list || f.pending)) {
    throw InputError("sweep: --engine ray runs every point itself; --shard, --points, --list and --pending are serial");
  }
  if (f.list && f.pending) throw InputError("sweep: give --list or --pending, not both");
  if (f.wait && f.list) throw InputError("sweep: --wait is for a run that writes -o; --list reads no records");
  if (!f.shard.empty()) (void)shard_points(f.shard, 0);  // its form, before the sweep file is read
  SweepPlan plan;
  plan.limits = resolve_limits(f.max_time, f.max_memory);
  const config::SweepSpec spec = config::load_sweep_spec(f.spec);
  bound_points(spec, plan.limits);  // before a point is built
  plan.points = expand(spec);
  if (!f.shard.empty()) {
    plan.selected = shard_points(f.shard, plan.points.size());
  } else if (!f.points.empty()) {
    plan.selected = listed_points(f.points, plan.points.size());
  } else {
    for (std::size_t i = 0; i < plan.points.size(); ++i) plan.selected.push_back(i);
  }
  return plan;
}

/// Every point in `idx` runs, or the first that cannot throws its one line: nothing has run yet.
void check_points(const SweepPlan& plan, const std::vector<std::size_t>& idx) {
  for (std::size_t i : idx) check_point(plan.points[i], plan.limits);
}

std::vector<std::size_t> not_done(const SweepPlan& plan, const std::set<std::string, std::less<>>& done) {
  std::vector<std::size_t> todo;
  for (std::size_t i : plan.selected) {
    if (!done.contains(plan.points[i].key)) todo.push_back(i);
  }
  return todo;
}

}  // namespace

CLI::App* add_sweep_command(CLI::App& app, SweepFlags& f) {
  CLI::App* sweep = app.add_subcommand(
      "sweep", "run a sweep file's points (hardware × problems × schedules × tiles), one JSON Lines record each");
  sweep->add_option("spec", f.spec, "the sweep file (docs/sweeps.md)");
  sweep->add_option("--out,-o", f.out, "records file: resumed when it exists (points in it are skipped); - for stdout");
  sweep->add_option("--shard", f.shard, "run slice k of N (0 <= k < N): the points i with i mod N = k");
  sweep->add_option("--points", f.points, "run these points of the canonical order: i:j (j excluded), k, …");
  sweep->add_option("--engine", f.engine, "serial (default) or ray: the points as Ray tasks")
      ->check(CLI::IsMember(std::vector<std::string>{"serial", "ray"}));
  sweep->add_option("--ray-address", f.ray_address, "--engine ray: a running Ray cluster (default: a local runtime)");
  sweep->add_option("--workers", f.workers, "--engine ray: tasks at once (default: the CPUs)")->check(CLI::PositiveNumber);
  sweep->add_option("--chunk", f.chunk, "--engine ray: points per task (default: about 4 tasks per worker)")
      ->check(CLI::PositiveNumber);
  sweep->add_flag("--list", f.list, "print each point's index and key, run nothing");
  sweep->add_flag("--pending", f.pending, "print the points not yet in --out as i:j ranges, run nothing");
  sweep->add_flag("--wait", f.wait, "when another run is writing --out, wait for it to finish instead of refusing");
  sweep->add_option("--max-time", f.max_time, "refuse a point estimated to take longer (default 10m)");
  sweep->add_option("--max-memory", f.max_memory, "refuse a point estimated to need more memory (default 8GiB)");
  f.merge = sweep->add_subcommand("merge", "merge records files: sorted by point key, each point once");
  f.merge->add_option("files", f.merge_inputs, "records files (iosim sweep -o …)")->required();
  f.merge->add_option("--out,-o", f.merge_out, "the merged file (may be one of the inputs); - for stdout");
  f.merge->add_flag("--wait", f.merge_wait, "when a run is writing a file, wait for it instead of refusing");
  f.merge->add_option("--max-memory", f.merge_max_memory, "refuse inputs larger than half of this (default 8GiB)");
  sweep->require_subcommand(0, 1);
  return sweep;
}

int sweep_command(const SweepFlags& f, bool quiet, std::ostream& out, std::ostream& notes) {
  if (f.merge != nullptr && f.merge->parsed()) return merge_command(f, out);
  const SweepPlan plan = plan_sweep(f);
  if (f.list) {
    check_points(plan, plan.selected);
    for (std::size_t i : plan.selected) out << i << '\t' << plan.points[i].key << '\n';
    return kExitOk;
  }
  const bool ray = f.engine == "ray";
  if (f.out.empty()) throw InputError("sweep: give the records file: -o OUT.jsonl (or -o - for stdout)");
  if (f.out == "-" && (ray || f.pending)) throw InputError("sweep: --engine ray and --pending need a file for -o");
  if (f.out == "-" && f.wait) throw InputError("sweep: --wait is for a records file (-o OUT.jsonl), not stdout");

  // One writer per file: the lock is held from reading what is done to the last record appended.
  // A file that is not there yet is created (and locked) only once every point has been checked.
  const bool to_file = f.out != "-";
  RecordsLock lock;
  if (to_file) lock = RecordsLock::acquire(f.out, RecordsLock::Mode::exclusive, /*create=*/false, f.wait);
  bool incomplete = false;
  std::set<std::string, std::less<>> done;
  if (lock.held()) done = done_keys(f.out, plan.limits, quiet, notes, incomplete);
  std::vector<std::size_t> todo = not_done(plan, done);
  check_points(plan, todo);  // bad input fails before any point runs
  if (f.pending) {
    out << as_ranges(todo) << '\n';
    return kExitOk;
  }
  if (ray) {
    lock.release();  // the driver runs --pending and merge on the file itself, one after the other
    return run_sweep_on_ray(f, quiet);
  }
  if (to_file && !lock.held()) {
    lock = RecordsLock::acquire(f.out, RecordsLock::Mode::exclusive, /*create=*/true, f.wait);
    done = done_keys(f.out, plan.limits, quiet, notes, incomplete);  // another run may have made it meanwhile
    todo = not_done(plan, done);
  }

  for (std::size_t k = 0; k < todo.size(); ++k) {
    std::string line;
    {
      const ProgressMute mute;  // the sweep reports points, not each point's inner work
      line = run_point(plan.points[todo[k]], plan.limits);
    }
    if (to_file) {
      lock.append(line);  // whole records, each one write: a kill leaves at most one incomplete line
    } else {
      out << line << std::flush;
      if (!out) throw InputError("standard output cannot be written");
    }
    report_progress("sweep: points", k + 1, todo.size());
  }
  if (to_file && (!done.empty() || incomplete)) canonicalize(f.out, plan.limits);
  if (!quiet) {
    notes << "sweep: " << plan.selected.size() << " of " << plan.points.size() << " points; "
          << plan.selected.size() - todo.size() << " already in " << f.out << ", " << todo.size() << " run\n";
  }
  return kExitOk;
}

}  // namespace iosim::cli
