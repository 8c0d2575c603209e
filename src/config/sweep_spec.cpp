#include "src/config/sweep_spec.h"

#include <algorithm>
#include <charconv>

#include "sim/core/paging.h"
#include "src/config/plain_file.h"
#include "src/config/scenario.h"
#include "src/config/search_path.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

const std::vector<std::string> kBlockKeys{"hardware", "problems", "schedules", "tiles", "warps", "stages",
                                          "splits",   "top",      "predict",   "l2",    "l2_policy", "launch_order"};
const std::vector<std::string> kProblemKeys{"scenario", "batch", "heads", "kv_heads", "n",   "n_kv",
                                            "d",        "dtype", "mask",  "window", "page_size", "page_order",
                                            "pass"};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// name_list(key), each member one of `allowed`.
std::vector<std::string> names_of(YamlMap& m, std::string_view key, const std::vector<std::string>& allowed) {
  std::vector<std::string> out = m.name_list(key);
  for (const std::string& v : out) {
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
      m.invalid(key, std::string("'") + printable(v) + "' is not one of " + joined(allowed));
    }
  }
  return out;
}

/// One of `allowed`, or `fallback` when the key is absent.
std::string one_of(YamlMap& m, std::string_view key, const std::vector<std::string>& allowed,
                   const std::string& fallback) {
  const std::optional<std::string> v = m.optional_string(key);
  if (!v) return fallback;
  if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
    m.invalid(key, std::string("'") + printable(*v) + "' is not one of " + joined(allowed));
  }
  return *v;
}

/// "BRxBC" with two positive integers.
bool is_tile(const std::string& t) {
  const std::size_t x = t.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == t.size()) return false;
  const auto positive = [](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && v > 0;
  };
  return positive(std::string_view(t).substr(0, x)) && positive(std::string_view(t).substr(x + 1));
}

std::vector<std::uint64_t> or_scenario(std::vector<std::uint64_t> listed, const std::optional<std::uint64_t>& file) {
  if (listed.empty() && file) listed.push_back(*file);
  return listed;
}

SweepProblem read_problem(YamlMap& m) {
  Scenario sc;
  if (const std::optional<std::string> name = m.optional_string("scenario")) {
    const std::string file = find_file(*name, scenario_dir(), "scenario");
    require_regular_file(file, "a scenario");  // a FIFO would block the read for ever
    sc = load_scenario(file);
  }
  SweepProblem p;
  p.batch = or_scenario(m.positive_integer_list("batch"), sc.batch);
  p.heads = or_scenario(m.positive_integer_list("heads"), sc.heads);
  p.kv_heads = or_scenario(m.positive_integer_list("kv_heads"), sc.kv_heads);
  p.n = or_scenario(m.positive_integer_list("n"), sc.n);
  p.n_kv = or_scenario(m.positive_integer_list("n_kv"), sc.n_kv);
  p.d = or_scenario(m.positive_integer_list("d"), sc.d);
  p.dtype = names_of(m, "dtype", {"fp32", "fp16", "bf16", "fp8"});
  if (p.dtype.empty() && sc.dtype) p.dtype.emplace_back(name(*sc.dtype));
  p.mask = names_of(m, "mask", {"none", "causal"});
  if (p.mask.empty() && sc.causal) p.mask.emplace_back(*sc.causal ? "causal" : "none");
  p.window = or_scenario(m.positive_integer_list("window"), sc.window);
  if (!p.window.empty() && (p.mask.empty() || std::find(p.mask.begin(), p.mask.end(), "none") != p.mask.end())) {
    m.invalid("window", "needs mask: causal (a window ends at each query's diagonal)");
  }
  p.page_size = or_scenario(m.positive_integer_list("page_size"), sc.page_size);
  p.page_order = m.name_list("page_order");
  if (p.page_order.empty() && sc.page_order) p.page_order.push_back(*sc.page_order);
  for (const std::string& o : p.page_order) {
    PageOrder order{};
    std::uint64_t seed = 0;
    if (!parse_page_order(o, order, seed)) {
      m.invalid("page_order", "'" + printable(o) + "' is not contiguous, random or an integer seed");
    }
  }
  if (!p.page_order.empty() && p.page_size.empty()) m.invalid("page_order", "needs page_size");
  p.pass = names_of(m, "pass", {"fwd", "bwd", "fwdbwd"});
  if (p.pass.empty() && sc.pass) p.pass.push_back(*sc.pass);
  if (p.n.empty()) m.invalid("n", "missing (required, here or in the scenario)");
  if (p.d.empty()) m.invalid("d", "missing (required, here or in the scenario)");
  return p;
}

SweepBlock read_block(YamlMap& m) {
  SweepBlock b;
  b.hardware = m.name_list("hardware");
  if (b.hardware.empty()) m.invalid("hardware", "missing (required: config names or files, e.g. [h200, a100])");
  for (YamlMap& p : m.map_list("problems", kProblemKeys)) b.problems.push_back(read_problem(p));
  if (b.problems.empty()) m.invalid("problems", "missing (required: a list of problems, e.g. [{n: 1024, d: 64}])");
  b.schedules = m.name_list("schedules");
  if (b.schedules.empty()) m.invalid("schedules", "missing (required, e.g. [naive, flash1, flash2])");
  b.tiles = m.name_list("tiles");
  if (b.tiles.empty()) b.tiles.emplace_back("default");
  for (const std::string& t : b.tiles) {
    if (t != "default" && t != "menu" && t != "search" && !is_tile(t)) {
      m.invalid("tiles", std::string("'") + printable(t) + "' is not default, menu, search or a tile BRxBC (e.g. 64x128)");
    }
  }
  b.warps = m.positive_integer_list("warps");
  b.stages = m.positive_integer_list("stages");
  const bool search = std::find(b.tiles.begin(), b.tiles.end(), "search") != b.tiles.end();
  if (search && (!b.warps.empty() || !b.stages.empty())) {
    m.invalid(b.warps.empty() ? "stages" : "warps",
              "the tile search tries every warp count and stage; put tiles: search in a block without them");
  }
  b.splits = m.optional_positive_integer("splits");
  b.top = m.optional_positive_integer("top");
  if (b.top && !search) m.invalid("top", "only for tiles: search (how many of its ranking to keep)");
  b.predict = m.optional_bool("predict").value_or(false);
  b.l2 = one_of(m, "l2", {"fast", "exact"}, "fast");
  b.l2_policy = one_of(m, "l2_policy", {"lru", "fifo", "random"}, "lru");
  b.launch_order = one_of(m, "launch_order", {"x", "heads"}, "x");
  return b;
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
  require_regular_file(path, "a sweep file");  // a FIFO would block the read for ever, /dev/zero never end
  const YAML::Node doc = load_yaml_file(path);
  SweepSpec s;
  s.file = path;
  // The top level is one block, or `sweeps:` with a list of them (and nothing else but a description).
  if (doc.IsMap() && doc["sweeps"]) {
    YamlMap top(doc, path, "", {"description", "sweeps"});
    (void)top.optional_string("description");
    for (YamlMap& b : top.map_list("sweeps", kBlockKeys)) s.blocks.push_back(read_block(b));
    return s;
  }
  std::vector<std::string> keys = kBlockKeys;
  keys.emplace_back("description");
  keys.emplace_back("sweeps");
  YamlMap top(doc, path, "", keys);
  (void)top.optional_string("description");
  s.blocks.push_back(read_block(top));
  return s;
}

}  // namespace iosim::config
