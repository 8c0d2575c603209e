#include "src/report/units_format.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace iosim::report {

namespace {

std::string scaled(double v, double base, const std::array<const char*, 7>& suffix, const char* unit) {
  std::size_t k = 0;
  while (std::abs(v) >= base && k + 1 < suffix.size()) {
    v /= base;
    ++k;
  }
  if (k == 0) return fmt::format("{:.0f} {}{}", v, suffix[0], unit);
  const int digits = std::abs(v) >= 100 ? 1 : 2;
  return fmt::format("{:.{}f} {}{}", v, digits, suffix[k], unit);
}

}  // namespace

std::string si_bytes(double bytes) { return scaled(bytes, 1000.0, {"", "k", "M", "G", "T", "P", "E"}, "B"); }

std::string binary_bytes(Bytes b) {
  const double v = static_cast<double>(b.value);
  if (b.value < 1024) return fmt::format("{} B", b.value);
  if (b.value < 1024 * 1024) return fmt::format("{:.1f} KiB", v / 1024.0);
  if (b.value < std::uint64_t{1} << 30) return fmt::format("{:.1f} MiB", v / (1024.0 * 1024.0));
  return fmt::format("{:.1f} GiB", v / (1024.0 * 1024.0 * 1024.0));
}

std::string si_count(double v) {
  std::string s = scaled(v, 1000.0, {"", "k", "M", "G", "T", "P", "E"}, "");
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string grouped(std::uint64_t v) {
  std::string digits = std::to_string(v);
  std::string out;
  const std::size_t lead = digits.size() % 3;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i != 0 && (i % 3) == lead) out += ',';
    out += digits[i];
  }
  return out;
}

std::string ratio(double num, double den) {
  if (den == 0) return "-";
  const double r = num / den;
  return r >= 100 ? fmt::format("{:.0f}", r) : fmt::format("{:.2f}", r);
}

}  // namespace iosim::report
