// `iosim bounds`: sweep n and the SRAM size M, fit log-log slopes of the HBM count, and compare them
// with Theorem 2: standard attention grows as n² (n ≫ d); tiled attention as n² and as 1/M.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/schedule/schedule.h"

namespace iosim {

struct SweepSpec {
  std::vector<std::uint64_t> n_values;  ///< the n sweep, at the hardware's M
  /// The M sweep: the SRAM per block scaled by each factor, the whole sweep moved up (ratios kept)
  /// when its first size is below max(kMinSweepDSquares·d², kMinSweepRowsOfD·d); n = n_kv is raised
  /// too when needed so that N·d ≥ 64·M throughout (up to kMaxSweepN). Θ(N²·d²/M) is tight only for M ≥ d²
  /// (Saha & Ye), and the slope is the asymptotic one only once the tiles' fixed part (B_r rows of
  /// Q, O, dO, dQ, which do not grow with M) is a small share of M.
  std::vector<double> m_factors;
  std::uint64_t m_sweep_n = 0;          ///< n during the M sweep (large, so that N·d ≫ M)
  std::vector<double> d2_factors;       ///< the small-SRAM sweep: M = d² × each factor
  std::uint64_t d2_sweep_n = 0;         ///< n during the small-SRAM sweep
  double tolerance = 0.05;              ///< a fitted slope further than this from the expected fails
  Pass pass = Pass::fwd;                ///< the n and M sweeps of the forward or of the backward pass
  /// With a sliding window of this many keys (causal), the tiled schedules' n sweep is run again under
  /// it, over the n_values of at least `window`: Θ(N·W·d²/M), slope 1. 0: no windowed sweep.
  std::uint64_t window = 0;
};

/// n = 2^13 … 2^19; the M sweep at n = 2^18 over M × 2^-3 … 2^2; the small-SRAM sweep
/// M = d² × 2^-4 … 2^3 at n = 2^14.
[[nodiscard]] SweepSpec default_sweep(Pass pass = Pass::fwd);

inline constexpr std::uint64_t kMinSweepDSquares = 8;
inline constexpr double kMinSweepRowsOfD = 512;  ///< and at least 512·d: B_r·d-sized tiles stay small
inline constexpr std::uint64_t kMaxSweepN = std::uint64_t{1} << 22;  ///< the M sweep's n never exceeds this

struct SweepPoint {
  std::uint64_t n = 0;
  std::uint64_t m_elements = 0;
  TileShape tiles;
  double count = 0;  ///< HBM reads + writes, elements
  double bound = 0;  ///< the schedule's Theorem-2 bound at this point
  std::string variant;   ///< Schedule::variant() at this point

  bool fitted = false;  ///< used in the fit
};

struct SlopeCheck {
  std::string schedule;
  std::string variable;  ///< "n" or "M"
  double expected = 0;
  double fitted = 0;
  double tolerance = 0;
  std::string tile_policy;  ///< how the tile follows M in the M sweep
  std::vector<SweepPoint> points;
  std::uint64_t window = 0;  ///< the n sweep under a causal sliding window of this many keys; 0: unmasked

  [[nodiscard]] bool within() const;
};

/// Where d-tiled attention (Θ(N²·d/√M)) starts to move less than flash2 (Θ(N²·d²/M)) as the SRAM
/// shrinks, both with tiles that follow M: Saha & Ye's regime change near M = d².
struct Crossover {
  std::uint64_t d_squared = 0;
  // The schedules whose registry entries (sim/schedule/registry.h) play these parts.
  std::vector<SweepPoint> flash2;  ///< BoundsRole::AtM::quarter_d: B_r = B_c = ⌊M/4d⌋
  std::vector<SweepPoint> dtiled;  ///< BoundsRole::small_sram: B = ⌊√(M/5)⌋
  double m = 0;                    ///< where the counts are equal (log-log interpolation); 0 if they do not cross
};

/// The small-SRAM sweep of `spec.d2_factors`.
[[nodiscard]] Crossover sweep_crossover(const ScheduleContext& base, const SweepSpec& spec);

/// Runs the sweeps for naive (n), flash1 (n, M), flash2 (n, M) and, for the forward pass, dtiled
/// (M, below and around d²) around `base`'s problem (its d, type, batch and heads) and hardware. In the M sweep flash1 keeps the paper's B_c = ⌈M/4d⌉ and
/// flash2 takes B_r = B_c = ⌊M/4d⌋, so that both tiles grow with M.
///
/// The slope is the asymptotic one: it is fitted over the points that run the variant of the largest
/// value (Schedule::variant()), when three or more do; otherwise over all points.
/// A change of regime (naive's softmax reading S twice once a row outgrows SRAM) multiplies a count
/// by a constant, which Θ(·) ignores but a fit across it would not.
[[nodiscard]] std::vector<SlopeCheck> sweep_slopes(const ScheduleContext& base, const SweepSpec& spec);

}  // namespace iosim
