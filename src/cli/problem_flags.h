// The flags that describe a problem and its hardware, shared by the commands, and their resolution
// (flags over scenario file over defaults) into plain structs.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/hardware.h"
#include "sim/core/problem.h"
#include "sim/run.h"
#include "sim/schedule/schedule.h"

namespace iosim::cli {

struct ProblemFlags {
  std::string config;
  /// The hardware itself instead of a config file (the Python package's dict); `config` then names it.
  std::optional<HardwareSpec> hardware;
  std::string scenario;
  std::vector<std::int64_t> n;  ///< several values make a sweep
  std::vector<std::int64_t> d;
  std::vector<std::int64_t> br, bc;  ///< several values make a sweep
  std::optional<std::int64_t> n_kv, batch, heads, kv_heads, splits, window, page_size;
  std::string page_order;  ///< contiguous (default), random or a seed; with --page-size
  std::string dtype;
  std::string pass;  ///< fwd, bwd or fwdbwd
  bool causal = false;
  bool predict = false;
  std::string launch_order;  ///< x or heads
  std::string l2_policy;     ///< lru, fifo or random
  bool l2_flush_kernels = false;  ///< GpuModelOptions::flush_each_kernel
  bool l2_skip_rounds = true;     ///< GpuModelOptions::skip_rounds
  bool l2_skip_rounds_given = false;  ///< --l2-skip-rounds or --no-l2-skip-rounds given
  std::string l2_mode;       ///< fast (default) or exact
  bool l2_merge = false;     ///< GpuModelOptions::merge_reads (exact only)
  std::optional<std::int64_t> warps, stages;
  std::string kernels;  ///< whose compiled kernels the time model describes: iosim (default) or pytorch
  std::vector<std::string> schedules;
  // Execution on numbers (the run command only: add_execute_flags).
  std::string execute;  ///< fp32 or fp64; empty: counts only
  std::string bug;      ///< none, no-rescale, no-max or wrong-l
  std::optional<std::uint64_t> seed;
  std::optional<double> input_scale;
};

struct Resolved {
  std::string config_file;
  HardwareSpec hardware;
  std::vector<Problem> problems;  ///< one per (n, d) pair of the flags
  std::vector<std::string> schedules;
  std::vector<Pass> passes;
  std::vector<TileRequest> tiles;  ///< one per (B_r, B_c) pair of the flags; one empty request by default
  std::uint64_t splits = 0;  ///< flashdecode's K/V splits; 0 = its heuristic
  KernelRequest kernel;
  RunOptions run;            ///< whether to predict, and the GPU model's options
};

enum class FlagSet : std::uint8_t {
  run,     ///< everything
  bounds,  ///< config, d, type, batch, heads: n and M are swept
  tiles,   ///< the problem and the GPU model's options: tiles, warps and stages are searched
};

void add_problem_flags(CLI::App& app, ProblemFlags& f, FlagSet set);
/// --page-size and --page-order (paged K/V): the run, tiles, trace and validate commands' one definition.
void add_page_flags(CLI::App& app, std::optional<std::int64_t>& page_size, std::string& page_order);

/// Throws InputError (one line naming --window) unless p's window is 0, or causal and at most n_kv.
void check_window(const Problem& p);
/// Sets p's pages from --page-size and --page-order; throws InputError (one line naming the flag) for an
/// order without a size or an order that is none of contiguous, random or a seed.
void set_pages(Problem& p, std::optional<std::uint64_t> page_size, const std::string& order);

/// --execute, --bug, --seed, --input-scale: executing the schedules on numbers (sim/exec).
void add_execute_flags(CLI::App& app, ProblemFlags& f);

/// A comma-separated list flag (`--n 1024,2048`; repeating the flag appends): every member must be
/// there (`--n 64,,128` is an error, not 64,128) and, for add_integer_list, a decimal integer.
CLI::Option* add_integer_list(CLI::App& app, const std::string& names, std::vector<std::int64_t>& out,
                              const std::string& help);
CLI::Option* add_name_list(CLI::App& app, const std::string& names, std::vector<std::string>& out,
                           const std::string& help);

/// Loads config and scenario, merges flags over the scenario over defaults, checks every value.
/// Throws InputError (one line) on anything missing or wrong. `need_n` is false where n is swept.
[[nodiscard]] Resolved resolve(const ProblemFlags& f, bool need_n);

}  // namespace iosim::cli
