#include "sim/timing/mva.h"

#include <array>
#include <stdexcept>

namespace iosim {

double mva_cycle_time(std::span<const double> demands, double delay, std::uint32_t customers) {
  if (demands.size() > kMvaMaxStations) throw std::invalid_argument("mva_cycle_time: more stations than kMvaMaxStations");
  std::array<double, kMvaMaxStations> queue{};  // mean customers at each station
  double cycle = 0;
  for (std::uint32_t n = 1; n <= customers; ++n) {
    double residence = 0;
    std::array<double, kMvaMaxStations> r{};
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
