#include "sim/schedule/tile_choice.h"

#include <cstdio>

#include "sim/core/error.h"

namespace iosim {

std::string kib(Bytes b) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b.value) / 1024.0);
  return buf;
}

std::string describe_shared(const SramPhase& phase) {
  std::string s;
  for (const ResidentTile& t : phase.tiles) {
    if (t.where != Storage::shared) continue;
    if (!s.empty()) s += " + ";
    s += t.label + " " + kib(t.bytes());
  }
  return s;
}

namespace {

std::string tile_text(TileShape t) {
  return "B_r=" + std::to_string(t.br) + " B_c=" + std::to_string(t.bc);
}

std::uint64_t half(std::uint64_t v) { return (v + 1) / 2; }

/// The next smaller tile to try; {0, 0} once both sides are 1.
TileShape halved(TileShape t, Shrink shrink) {
  if (t.br == 1 && t.bc == 1) return {0, 0};
  std::uint64_t& free_side = shrink == Shrink::rows_first ? t.br : t.bc;
  std::uint64_t& other = shrink == Shrink::rows_first ? t.bc : t.br;
  if (free_side > kMinFreeSide || other == 1) {
    free_side = half(free_side);
  } else if (free_side >= other) {
    free_side = half(free_side);
  } else {
    other = half(other);
  }
  return t;
}

}  // namespace

TileShape choose_tiles(std::string_view schedule, const ScheduleContext& ctx, TileShape fallback, Shrink shrink,
                       const PlanFor& plan, std::vector<std::string>& notes) {
  const Bytes limit = ctx.hardware.sm.sram_per_block;
  if (ctx.tiles.br || ctx.tiles.bc) {
    TileShape t{ctx.tiles.br.value_or(fallback.br), ctx.tiles.bc.value_or(fallback.bc)};
    if (t.br == 0 || t.bc == 0) {
      throw InputError(std::string(schedule) + ": tile sizes must be at least 1 (got " + tile_text(t) + ")");
    }
    const SramPlan p = plan(t);
    if (p.peak() > limit) {
      throw InputError(std::string(schedule) + ": tile " + tile_text(t) + " does not fit: needs " +
                       kib(p.peak()) + " of SRAM per thread block (" + describe_shared(p.peak_phase()) +
                       "), " + ctx.hardware.name + " allows " + kib(limit));
    }
    return t;
  }
  const Bytes first = plan(fallback).peak();
  for (TileShape t = fallback; t.br != 0; t = halved(t, shrink)) {
    const SramPlan p = plan(t);
    if (p.peak() <= limit) {
      if (!(t == fallback)) {
        notes.push_back("default tile " + tile_text(fallback) + " needs " + kib(first) + " of SRAM, more than the " +
                        kib(limit) + " allowed; reduced to " + tile_text(t));
      }
      return t;
    }
  }
  throw InputError(std::string(schedule) + ": no tile fits in " + kib(limit) + " of SRAM per thread block (" +
                   tile_text(TileShape{1, 1}) + " needs " + kib(plan(TileShape{1, 1}).peak()) + ")");
}

}  // namespace iosim
