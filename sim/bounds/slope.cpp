#include "sim/bounds/slope.h"

#include <cmath>
#include <stdexcept>

namespace iosim {

double loglog_slope(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size() || x.size() < 2) throw std::invalid_argument("loglog_slope: need two or more points");
  const double k = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] <= 0 || y[i] <= 0) throw std::invalid_argument("loglog_slope: values must be positive");
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  const double den = k * sxx - sx * sx;
  if (den <= 0) throw std::invalid_argument("loglog_slope: x values must differ");
  return (k * sxy - sx * sy) / den;
}

}  // namespace iosim
