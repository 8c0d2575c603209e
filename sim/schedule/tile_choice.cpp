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

std::uint64_t& side(TileShape& t, bool rows) { return rows ? t.br : t.bc; }

/// The default reduced until it fits: the free side (the one the traffic does not depend on) halved
/// down to kMinFreeSide; then the other side set to the largest value that fits (bisection); then,
/// if even a single row does not fit, the free side halved further. {0, 0} when nothing fits.
TileShape reduce(TileShape t, Shrink shrink, const std::function<bool(TileShape)>& fits) {
  const bool rows_free = shrink == Shrink::rows_first;
  while (!fits(t) && side(t, rows_free) > kMinFreeSide) side(t, rows_free) = half(side(t, rows_free));
  if (fits(t)) return t;
  for (;;) {
    std::uint64_t lo = 0, hi = side(t, !rows_free);  // largest fitting value of the other side in [1, hi]
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      TileShape probe = t;
      side(probe, !rows_free) = mid;
      (fits(probe) ? lo : hi) = mid;
    }
    TileShape one = t;
    side(one, !rows_free) = 1;
    if (lo == 0 && fits(one)) lo = 1;
    if (lo > 0) {
      side(t, !rows_free) = lo;
      return t;
    }
    if (side(t, rows_free) == 1) return {0, 0};
    side(t, rows_free) = half(side(t, rows_free));
  }
}

}  // namespace

TileShape choose_tiles(std::string_view schedule, const ScheduleContext& ctx, const DefaultTile& def, Shrink shrink,
                       const PlanFor& plan, std::vector<std::string>& notes, std::string_view& source) {
  const Bytes limit = ctx.hardware.sm.sram_per_block;
  const TileShape fallback = def.tile;
  source = ctx.tiles.br || ctx.tiles.bc ? tile_source::kUser : def.source;
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
  const TileShape t = reduce(fallback, shrink, [&](TileShape x) { return plan(x).peak() <= limit; });
  if (t.br != 0) {
    if (!(t == fallback)) {
      notes.push_back("default tile " + tile_text(fallback) + " needs " + kib(first) + " of SRAM, more than the " +
                      kib(limit) + " allowed; reduced to " + tile_text(t));
    }
    return t;
  }
  throw InputError(std::string(schedule) + ": no tile fits in " + kib(limit) + " of SRAM per thread block (" +
                   tile_text(TileShape{1, 1}) + " needs " + kib(plan(TileShape{1, 1}).peak()) + ")");
}

}  // namespace iosim
