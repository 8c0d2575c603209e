// The bookkeeping of the fast replay's rounds skipped (fast_kernel.cpp, "Rounds skipped"): a window's
// rates, whether two windows' are steady, and the sectors asked in a skip or a rewarm, owed their
// DRAM counts at the rates about them, with the error that counting adds.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/gpu/fast_kernel.h"

namespace iosim {

class SkipLedger {
 public:
  /// Sampled DRAM reads and fabric reads per read (or reduce) sector asked; writes and sectors
  /// dirtied per write (or reduce) sector asked, unless `straight`.
  struct Rates {
    double read = 0, fabric = 0, write = 0, dirtied = 0;
    bool straight = true;
  };

  /// A window's rates from its counters' growth: sectors asked (read, write, reduce), sampled DRAM
  /// reads and writes, fabric reads, sectors dirtied.
  static Rates rates(const std::array<double, 7>& d);
  /// Whether `r` repeats `last` within `tolerance` (relative): DRAM and fabric reads, and writes
  /// where they are counted at the rates.
  static bool steady(const Rates& r, const Rates& last, double tolerance);

  /// Sectors block `block` asked in a skip (`skipped`) or a rewarm, owed their DRAM counts.
  void owe(std::uint64_t block, const std::array<std::uint64_t, 3>& asked, bool skipped) {
    owed_.push_back({block, asked, skipped});
  }
  [[nodiscard]] bool owes() const { return !owed_.empty(); }
  /// A block's rates in the window before what is owed, and in the window after (null where none).
  using RatesOf = std::function<std::pair<const Rates*, const Rates*>(std::uint64_t block)>;
  /// Counts what is owed into `counts` at the mean of each block's rates before and after
  /// (`rates_of`; before alone where none follows), adding half their difference, at each block's
  /// `weight`, to the error.
  void settle(const RatesOf& rates_of, std::uint64_t stride, std::vector<HeadCounts>& counts,
              const std::function<double(std::uint64_t)>& weight);
  /// The error so far, in sampled DRAM sectors and fabric sectors (TraceUse::skip_dram_error, skip_fabric_error).
  [[nodiscard]] const std::array<double, 2>& error() const { return error_; }

 private:
  struct Owed {
    std::uint64_t block = 0;
    std::array<std::uint64_t, 3> asked{};
    bool skipped = true;  ///< in a skip (else a rewarm)
  };
  std::vector<Owed> owed_;
  std::vector<std::array<double, 4>> fraction_;  ///< per block: the fractions of sectors owed not yet counted
  std::array<double, 2> error_{};
};

}  // namespace iosim
