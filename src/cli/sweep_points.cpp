#include "src/cli/sweep_points.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "sim/core/error.h"
#include "sim/tiles/search.h"
#include "sim/work_estimate.h"
#include "src/cli/commands.h"
#include "src/cli/sweep_records.h"
#include "src/report/json_writer.h"

namespace iosim::cli {

namespace {

/// A list of the spec, or {fallback} when it is empty.
template <class T>
std::vector<T> or_one(const std::vector<T>& listed, T fallback) {
  return listed.empty() ? std::vector<T>{fallback} : listed;
}

std::string json_string(std::string_view s) { return '"' + report::json_escape(s) + '"'; }

std::string tile_text(const SweepPoint& p) {
  switch (p.tile_kind) {
    case PointTile::fixed: return std::to_string(p.br) + "x" + std::to_string(p.bc);
    case PointTile::search: return "search";
    case PointTile::default_tile: break;
  }
  return "default";
}

std::string make_key(const SweepPoint& p) {
  const auto num = [](std::uint64_t v) { return std::to_string(v); };
  std::string k = "{\"hardware\":" + json_string(p.hardware);
  k += ",\"batch\":" + num(p.batch) + ",\"heads\":" + num(p.heads);
  k += ",\"kv_heads\":" + num(p.kv_heads != 0 ? p.kv_heads : p.heads);
  k += ",\"n\":" + num(p.n) + ",\"n_kv\":" + num(p.n_kv != 0 ? p.n_kv : p.n) + ",\"d\":" + num(p.d);
  k += ",\"dtype\":" + json_string(p.dtype) + ",\"mask\":" + json_string(p.mask);
  if (p.window != 0) k += ",\"window\":" + num(p.window);  // absent without one: earlier records keep their keys
  if (p.page_size != 0) {  // absent without pages, as the window
    k += ",\"page_size\":" + num(p.page_size) +
         ",\"page_order\":" + json_string(p.page_order.empty() ? "contiguous" : p.page_order);
  }
  k += ",\"pass\":" + json_string(p.pass);
  k += ",\"schedule\":" + json_string(p.schedule) + ",\"tile\":" + json_string(tile_text(p));
  k += ",\"warps\":" + num(p.warps) + ",\"stages\":" + num(p.stages) + ",\"splits\":" + num(p.splits);
  k += ",\"top\":" + num(p.top) + ",\"predict\":" + (p.predict ? "true" : "false");
  k += ",\"l2\":" + json_string(p.l2) + ",\"l2_policy\":" + json_string(p.l2_policy);
  k += ",\"launch_order\":" + json_string(p.launch_order) + "}";
  return k;
}

/// What an error about the point names: its hardware, problem, schedule and tile.
std::string label(const SweepPoint& p) {
  std::string s = "sweep point " + p.hardware + " batch " + std::to_string(p.batch) + " heads " +
                  std::to_string(p.heads);
  if (p.kv_heads != 0) s += " kv_heads " + std::to_string(p.kv_heads);
  s += " n " + std::to_string(p.n);
  if (p.n_kv != 0) s += " n_kv " + std::to_string(p.n_kv);
  s += " d " + std::to_string(p.d) + " " + p.dtype + " " + p.mask + " " + p.pass + " " + p.schedule + " " +
       tile_text(p);
  if (p.window != 0) s += " window " + std::to_string(p.window);
  if (p.page_size != 0) s += " page_size " + std::to_string(p.page_size) + " " + (p.page_order.empty() ? "contiguous" : p.page_order);
  if (p.warps != 0) s += " warps " + std::to_string(p.warps);
  if (p.stages != 0) s += " stages " + std::to_string(p.stages);
  return s;
}

std::int64_t as_flag(std::uint64_t v, const char* what) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    throw InputError(std::string("sweep: ") + what + " " + std::to_string(v) + " is too large (at most 2^63 - 1)");
  }
  return static_cast<std::int64_t>(v);
}

ScheduleContext context_of(const Resolved& r, const TileRequest& tiles) {
  return ScheduleContext{r.problems.front(), r.hardware, tiles, r.splits, r.kernel};
}

/// Builds the point's schedule for each pass it runs: what run_schedules() would refuse, it refuses.
void build_schedules(const Resolved& r, const std::string& schedule, const TileRequest& tiles) {
  for (Pass pass : r.passes) (void)make_schedule(schedule, pass, context_of(r, tiles));
}

/// tiles: menu: the tile shapes `iosim tiles` tries, those the schedule builds with (they fit SRAM).
std::vector<SweepPoint> menu_points(const SweepPoint& base) {
  const Resolved r = resolve(flags_of(base), /*need_n=*/true);
  build_schedules(r, base.schedule, {});  // a schedule, pass or problem that fails at all fails here
  std::vector<SweepPoint> out;
  for (std::uint64_t br : TileSearchSpec{}.sizes) {
    for (std::uint64_t bc : TileSearchSpec{}.sizes) {
      try {
        build_schedules(r, base.schedule, TileRequest{br, bc});
      } catch (const InputError&) {
        continue;  // this tile does not fit (the default tile built above)
      }
      SweepPoint p = base;
      p.tile_kind = PointTile::fixed;
      p.br = br;
      p.bc = bc;
      out.push_back(p);
    }
  }
  return out;
}

/// The points of one block's problem entry, schedule and tile entry.
void add_points(const config::SweepBlock& b, const SweepPoint& problem, const std::string& tile,
                std::vector<SweepPoint>& out) {
  SweepPoint p = problem;
  p.splits = b.splits.value_or(0);
  p.predict = b.predict;
  p.l2 = b.l2;
  p.l2_policy = b.l2_policy;
  p.launch_order = b.launch_order;
  if (tile == "search") {
    p.tile_kind = PointTile::search;
    p.top = b.top.value_or(10);
    p.predict = true;  // the search ranks by the GPU model's predicted time
    out.push_back(p);
    return;
  }
  for (std::uint64_t w : or_one<std::uint64_t>(b.warps, 0)) {
    for (std::uint64_t s : or_one<std::uint64_t>(b.stages, 0)) {
      p.warps = w;
      p.stages = s;
      if (tile == "menu") {
        for (SweepPoint& m : menu_points(p)) out.push_back(std::move(m));
        continue;
      }
      if (tile == "default") {
        p.tile_kind = PointTile::default_tile;
      } else {
        p.tile_kind = PointTile::fixed;
        const std::size_t x = tile.find('x');
        p.br = std::stoull(tile.substr(0, x));  // checked by the spec's reader: two positive integers
        p.bc = std::stoull(tile.substr(x + 1));
      }
      out.push_back(p);
    }
  }
}

void expand_block(const config::SweepBlock& b, std::vector<SweepPoint>& out) {
  for (const std::string& hw : b.hardware) {
    for (const config::SweepProblem& pr : b.problems) {
      SweepPoint p;
      p.hardware = hw;
      for (std::uint64_t batch : or_one<std::uint64_t>(pr.batch, 1)) {
        p.batch = batch;
        for (std::uint64_t heads : or_one<std::uint64_t>(pr.heads, 1)) {
          p.heads = heads;
          for (std::uint64_t kv : or_one<std::uint64_t>(pr.kv_heads, 0)) {
            p.kv_heads = kv;
            for (std::uint64_t n : pr.n) {
              p.n = n;
              for (std::uint64_t n_kv : or_one<std::uint64_t>(pr.n_kv, 0)) {
                p.n_kv = n_kv;
                for (std::uint64_t d : pr.d) {
                  p.d = d;
                  for (const std::string& dtype : or_one<std::string>(pr.dtype, "fp16")) {
                    p.dtype = dtype;
                    for (const std::string& mask : or_one<std::string>(pr.mask, "none")) {
                      p.mask = mask;
                      for (std::uint64_t window : or_one<std::uint64_t>(pr.window, 0)) {
                        p.window = window;
                        for (std::uint64_t page_size : or_one<std::uint64_t>(pr.page_size, 0)) {
                          p.page_size = page_size;
                          for (const std::string& order : or_one<std::string>(pr.page_order, "")) {
                            p.page_order = order;
                            for (const std::string& pass : or_one<std::string>(pr.pass, "fwd")) {
                              p.pass = pass;
                              for (const std::string& s : b.schedules) {
                                p.schedule = s;
                                for (const std::string& t : b.tiles) add_points(b, p, t, out);
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

std::vector<SweepPoint> expand(const config::SweepSpec& spec) {
  std::vector<SweepPoint> all;
  for (const config::SweepBlock& b : spec.blocks) expand_block(b, all);
  for (SweepPoint& p : all) p.key = make_key(p);
  std::stable_sort(all.begin(), all.end(), [](const SweepPoint& a, const SweepPoint& b) { return key_less(a.key, b.key); });
  all.erase(std::unique(all.begin(), all.end(), [](const SweepPoint& a, const SweepPoint& b) { return a.key == b.key; }),
            all.end());
  return all;
}

ProblemFlags flags_of(const SweepPoint& p) {
  ProblemFlags f;
  f.config = p.hardware;
  f.n = {as_flag(p.n, "n")};
  f.d = {as_flag(p.d, "d")};
  f.batch = as_flag(p.batch, "batch");
  f.heads = as_flag(p.heads, "heads");
  if (p.kv_heads != 0) f.kv_heads = as_flag(p.kv_heads, "kv_heads");
  if (p.n_kv != 0) f.n_kv = as_flag(p.n_kv, "n_kv");
  if (p.splits != 0) f.splits = as_flag(p.splits, "splits");
  if (p.warps != 0) f.warps = as_flag(p.warps, "warps");
  if (p.stages != 0) f.stages = as_flag(p.stages, "stages");
  if (p.tile_kind == PointTile::fixed) {
    f.br = {as_flag(p.br, "B_r")};
    f.bc = {as_flag(p.bc, "B_c")};
  }
  f.dtype = p.dtype;
  f.pass = p.pass;
  f.causal = p.mask == "causal";
  if (p.window != 0) f.window = as_flag(p.window, "window");
  if (p.page_size != 0) {
    f.page_size = as_flag(p.page_size, "page_size");
    f.page_order = p.page_order;
  }
  f.schedules = {p.schedule};
  f.predict = p.predict && p.tile_kind != PointTile::search;
  f.l2_mode = p.l2;
  f.l2_policy = p.l2_policy;
  f.launch_order = p.launch_order;
  return f;
}

void check_point(const SweepPoint& p, const Limits& limits) {
  try {
    const Resolved r = resolve(flags_of(p), /*need_n=*/true);
    if (p.tile_kind == PointTile::search) {
      if (r.passes.size() != 1) throw InputError("tiles: search needs pass fwd or bwd, not fwdbwd");
      TileSearchSpec spec;
      spec.schedule = p.schedule;
      spec.pass = r.passes.front();
      spec.gpu = r.run.gpu;
      TileSearchSpec none = spec;
      none.sizes.clear();  // nothing to evaluate: only whether the schedule has tiles to search
      (void)search_tiles(context_of(r, {}), none);
      enforce(estimate_tiles(context_of(r, {}), spec), limits);
      return;
    }
    build_schedules(r, p.schedule, r.tiles.front());
    enforce(estimate_runs(r.schedules, r.passes, context_of(r, r.tiles.front()), r.run), limits);
  } catch (const InputError& e) {
    throw InputError(label(p) + ": " + e.what());
  } catch (const OverflowError& e) {
    throw InputError(label(p) + ": sizes too large: " + e.what());
  }
}

std::string run_point(const SweepPoint& p, const Limits& limits) {
  std::ostringstream json;
  try {
    if (p.tile_kind == PointTile::search) {
      (void)tiles_command(flags_of(p), "json", p.top, json, limits);
    } else {
      (void)run_command(flags_of(p), "json", json, limits);
    }
  } catch (const InputError& e) {
    throw InputError(label(p) + ": " + e.what());
  } catch (const OverflowError& e) {
    throw InputError(label(p) + ": sizes too large: " + e.what());
  }
  return record_line(p.key, json.str());
}

}  // namespace iosim::cli
