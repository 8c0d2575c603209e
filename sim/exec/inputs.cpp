// Random inputs of an execution: a seeded Mersenne Twister through Box–Muller (inputs.h).
#include "sim/exec/inputs.h"

#include <cmath>
#include <numbers>
#include <random>

namespace iosim::exec {

namespace {

class Normal {
 public:
  explicit Normal(std::uint64_t seed) : gen_(seed) {}

  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    // u1 in (0, 1], u2 in [0, 1) from the top 53 bits.
    const double u1 = (static_cast<double>(gen_() >> 11) + 1.0) * 0x1.0p-53;
    const double u2 = static_cast<double>(gen_() >> 11) * 0x1.0p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

  MatrixD matrix(std::uint64_t rows, std::uint64_t cols, double scale) {
    MatrixD m(idx(rows), idx(cols));
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = scale * next();
    return m;
  }

 private:
  std::mt19937_64 gen_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace

Inputs random_inputs(std::uint64_t n, std::uint64_t n_kv, std::uint64_t d, std::uint64_t seed, double scale) {
  Normal g(seed);
  Inputs in;
  in.q = g.matrix(n, d, scale);
  in.k = g.matrix(n_kv, d, scale);
  in.v = g.matrix(n_kv, d, 1.0);
  in.dout = g.matrix(n, d, 1.0);
  return in;
}

}  // namespace iosim::exec
