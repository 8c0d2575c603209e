#include "sim/timing/mva.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace iosim {

double mva_cycle_time(std::span<const double> demands, double delay, std::uint32_t customers) {
  constexpr std::size_t kMaxStations = 8;
  assert(demands.size() <= kMaxStations);
  std::array<double, kMaxStations> queue{};  // mean customers at each station
  double cycle = 0;
  for (std::uint32_t n = 1; n <= customers; ++n) {
    double residence = 0;
    std::array<double, kMaxStations> r{};
    for (std::size_t k = 0; k < demands.size(); ++k) {
      r[k] = demands[k] * (1 + queue[k]);  // an arrival finds the others' mean queue (arrival theorem)
      residence += r[k];
    }
    cycle = residence + delay;
    const double throughput = cycle > 0 ? n / cycle : 0;
    for (std::size_t k = 0; k < demands.size(); ++k) queue[k] = throughput * r[k];
  }
  return cycle;
}

}  // namespace iosim
