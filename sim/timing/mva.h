// Exact mean-value analysis (MVA) of a closed queueing network: the cycle time of customers that
// circulate through queueing stations and a delay (Reiser & Lavenberg, J. ACM 27(2), 1980; Lazowska,
// Zahorjan, Graham & Sevcik, "Quantitative System Performance", 1984, ch. 6).
//
// The SM model (sm_model.h) uses it for the warps of one SM sub-partition: each warp is a customer,
// one step of its block is one cycle, the busiest pipe and the shared memory are the stations (a
// warp's work on them is its demand) and the waits on its own results are the delay. With one warp
// the cycle time is the warp's own chain; with many it tends to the stations' work; in between each
// warp also queues behind the others, which neither bound sees.
#pragma once

#include <cstdint>
#include <span>

namespace iosim {

/// The mean time for one of `customers` to complete one cycle: `demands[k]` cycles of service at
/// queueing station k per cycle, plus `delay` cycles at a station without a queue. 0 customers: 0.
[[nodiscard]] double mva_cycle_time(std::span<const double> demands, double delay, std::uint32_t customers);

}  // namespace iosim
