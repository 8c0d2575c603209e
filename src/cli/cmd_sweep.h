// `iosim sweep SPEC.yaml -o OUT.jsonl`: a sweep's points run one after the other (or a slice of them,
// or as Ray tasks), one JSON Lines record each, resumable; `iosim sweep merge` (docs/sweeps.md).
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace iosim::cli {

struct SweepFlags {
  std::string spec;
  std::string out;          ///< records file; "-": standard output (nothing to resume)
  std::string shard;        ///< "k/N": the points i with i mod N = k
  std::string points;       ///< "i:j,k,…": these points of the canonical order (j excluded)
  std::string engine = "serial";  ///< serial or ray
  std::string ray_address;  ///< --engine ray: a running cluster; empty: a local Ray runtime
  std::optional<std::size_t> workers;  ///< --engine ray: tasks at once (local: the CPUs it starts)
  std::optional<std::size_t> chunk;    ///< --engine ray: points per task
  bool list = false;        ///< print the points' indices and keys, run nothing
  bool pending = false;     ///< print the selected points not yet in OUT as i:j ranges, run nothing
  bool wait = false;        ///< another run holds OUT's lock: wait for it instead of refusing
  std::string max_time, max_memory;  ///< per point
  // `iosim sweep merge FILE… -o OUT`
  CLI::App* merge = nullptr;
  std::vector<std::string> merge_inputs;
  std::string merge_out;
  bool merge_wait = false;
  std::string merge_max_memory;
};

/// Registers `sweep` and its `merge` on `app`; the flags land in `f`.
CLI::App* add_sweep_command(CLI::App& app, SweepFlags& f);

/// Runs what `f` asks; `notes` gets a line when a run resumes and a summary at the end (--quiet:
/// `quiet`, and nothing is written there).
int sweep_command(const SweepFlags& f, bool quiet, std::ostream& out, std::ostream& notes);

/// --engine ray: starts the Ray driver (scripts/sweep-ray.py) and returns its exit code (sweep_ray.cpp).
/// Throws InputError when it cannot be started.
int run_sweep_on_ray(const SweepFlags& f, bool quiet);

}  // namespace iosim::cli
