// Sweep files (`iosim sweep SPEC.yaml`, docs/sweeps.md): hardware × problems × schedules × tiles, as
// lists. Reading only: every key and value is checked here (file:line: key: what is wrong); the
// expansion into points is src/cli/sweep_points.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iosim::config {

/// One entry of `problems:`. Each field is a value or a list; the entry is every combination of them.
/// Empty lists take the defaults (batch, heads 1; kv_heads = heads; n_kv = n; fp16; no mask; fwd).
struct SweepProblem {
  std::vector<std::uint64_t> batch, heads, kv_heads, n, n_kv, d;
  std::vector<std::string> dtype;  ///< fp32, fp16, bf16, fp8
  std::vector<std::string> mask;   ///< none or causal
  std::vector<std::uint64_t> window;  ///< sliding windows (mask causal only); empty: none
  std::vector<std::uint64_t> page_size;  ///< paged K/V, tokens per page; empty: contiguous K/V
  std::vector<std::string> page_order;   ///< contiguous, random or a seed (with page_size only)
  std::vector<std::string> pass;   ///< fwd, bwd or fwdbwd
};

/// One block: the product of its lists. A file is one block, or several under `sweeps:`.
struct SweepBlock {
  std::vector<std::string> hardware;   ///< config names or files, as --config takes them
  std::vector<SweepProblem> problems;
  std::vector<std::string> schedules;
  std::vector<std::string> tiles;      ///< "default", "menu", "search" or "BRxBC"; default {"default"}
  std::vector<std::uint64_t> warps, stages;  ///< empty: the schedule's default
  std::optional<std::uint64_t> splits;
  std::optional<std::uint64_t> top;    ///< tiles: search: how many of the ranking the record keeps
  bool predict = false;
  std::string l2 = "fast";             ///< fast or exact
  std::string l2_policy = "lru";       ///< lru, fifo or random
  std::string launch_order = "x";      ///< x or heads
};

struct SweepSpec {
  std::string file;
  std::vector<SweepBlock> blocks;
};

/// Reads and checks a sweep file. Throws ConfigError (one line, file:line: key: …) on any problem.
[[nodiscard]] SweepSpec load_sweep_spec(const std::string& path);

}  // namespace iosim::config
