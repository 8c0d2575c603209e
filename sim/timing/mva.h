// Exact mean-value analysis (MVA) of a closed queueing network: the cycle time of customers that
// circulate through queueing stations and a delay (Reiser & Lavenberg, J. ACM 27(2), 1980; Lazowska,
// Zahorjan, Graham & Sevcik, "Quantitative System Performance", 1984, ch. 6).
//
// The SM model (sm_model.h) uses it for the warps of one SM sub-partition: each warp is a customer,
// one step of its block is one cycle, the busiest pipe and the shared memory are the stations (a
// warp's work on them is its demand) and the rest of its own chain is the delay. With one warp the
// cycle time is the warp's chain (or its stations' work, where that is longer: the network visits the
// stations one after another); with many it tends to the busiest station's work times the warps; in
// between each warp also queues behind the others, which neither bound sees.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace iosim {

/// The stations a network may have.
inline constexpr std::size_t kMvaMaxStations = 8;

/// The mean time for one of `customers` to complete one cycle: `demands[k]` cycles of service at
/// queueing station k per cycle, plus `delay` cycles at a station without a queue. A negative delay
/// is stations' work that one customer overlaps (its one-customer cycle, the demands' sum plus the
/// delay, is shorter than the sum); it must leave that cycle positive. 0 customers: 0.
/// More than kMvaMaxStations demands: std::invalid_argument.
[[nodiscard]] double mva_cycle_time(std::span<const double> demands, double delay, std::uint32_t customers);

}  // namespace iosim
