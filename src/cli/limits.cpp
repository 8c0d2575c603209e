#include "src/cli/limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "sim/core/error.h"

namespace iosim::cli {

namespace {

/// A leading decimal number of `s`, advancing it; nullopt when there is none.
std::optional<double> number(std::string_view& s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.')) ++i;
  if (i == 0) return std::nullopt;
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + i, v);
  if (ec != std::errc() || p != s.data() + i) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

std::string time_flag_value(double s) {
  const double want = s * 1.25;  // room for the estimate's error
  if (want < 60) return fmt::format("{}s", std::ceil(want));
  if (want < 3600) return fmt::format("{}m", std::ceil(want / 60));
  return fmt::format("{}h", std::ceil(want / 3600));
}

std::string memory_flag_value(double b) {
  const double mib = b * 1.25 / static_cast<double>(1u << 20);
  if (mib < 1024) return fmt::format("{}MiB", 64 * std::ceil(mib / 64));
  return fmt::format("{}GiB", std::ceil(mib / 1024));
}

}  // namespace

std::uint64_t list_points(std::initializer_list<std::pair<const char*, std::size_t>> lists) {
  std::uint64_t points = 1;
  bool over = false;
  std::string which;
  for (const auto& [flag, size] : lists) {
    const std::uint64_t k = std::max<std::uint64_t>(1, size);
    // Saturates instead of wrapping: past kMaxRunPoints the exact product no longer matters.
    points = points > kMaxRunPoints || k > kMaxRunPoints ? kMaxRunPoints + 1 : points * k;
    over = over || points > kMaxRunPoints;
    if (size > 1) which += fmt::format("{}{} ({} values)", which.empty() ? "" : " × ", flag, size);
  }
  if (over) {
    throw InputError(fmt::format("{} make more than {} points, the most one run sweeps: give fewer values, or use iosim "
                                 "sweep with a sweep file",
                                 which, kMaxRunPoints));
  }
  return points;
}

std::optional<double> parse_duration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  double total = 0;
  while (!s.empty()) {
    const std::optional<double> v = number(s);
    if (!v) return std::nullopt;
    double unit = 1;
    if (!s.empty() && std::isalpha(static_cast<unsigned char>(s.front())) != 0) {
      switch (s.front()) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        default: return std::nullopt;
      }
      s.remove_prefix(1);
    } else if (!s.empty()) {
      return std::nullopt;
    }
    total += *v * unit;
  }
  if (!(total > 0) || !std::isfinite(total)) return std::nullopt;
  return total;
}

std::optional<std::uint64_t> parse_bytes(std::string_view s) {
  const std::optional<double> v = number(s);
  if (!v) return std::nullopt;
  double unit = 1;
  if (!s.empty()) {
    std::string u(s);
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const std::string_view prefixes = "KMGT";
    const std::size_t k = prefixes.find(u.front());
    if (u == "B") {
      unit = 1;
    } else if (k == std::string_view::npos) {
      return std::nullopt;
    } else {
      const std::string rest = u.substr(1);
      const double power = static_cast<double>(k + 1);
      if (rest.empty() || rest == "IB") {
        unit = std::pow(1024.0, power);
      } else if (rest == "B") {
        unit = std::pow(1000.0, power);
      } else {
        return std::nullopt;
      }
    }
  }
  const double bytes = *v * unit;
  if (!(bytes >= 1) || bytes > 1.8e19) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

Limits resolve_limits(const std::string& max_time, const std::string& max_memory) {
  Limits l;
  if (!max_time.empty()) {
    const std::optional<double> s = parse_duration(max_time);
    if (!s) throw InputError("--max-time must be a positive duration like 90s, 30m or 2h (got '" + max_time + "')");
    l.seconds = *s;
  }
  if (!max_memory.empty()) {
    const std::optional<std::uint64_t> b = parse_bytes(max_memory);
    if (!b) {
      throw InputError("--max-memory must be a positive size like 512MiB, 16GiB or 8GB (got '" + max_memory + "')");
    }
    l.bytes = *b;
  }
  return l;
}

std::string format_seconds(double s) {
  if (s < 60) return fmt::format("{:.2g} s", s);
  if (s < 3600) return fmt::format("{:.0f} min", s / 60);
  if (s < 86400 * 3) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.0f} days", s / 86400);
}

std::string format_bytes(double b) {
  constexpr double kGiB = static_cast<double>(1ull << 30);
  if (b < (1 << 20)) return fmt::format("{:.0f} bytes", b);
  if (b < kGiB) return fmt::format("{:.0f} MiB", b / (1 << 20));
  return fmt::format("{:.1f} GiB", b / kGiB);
}

void enforce(const WorkEstimate& e, const Limits& l) {
  if (e.bytes > l.bytes) {
    throw InputError(fmt::format(
        "this request needs about {} of memory (estimate; {} needs the most), over the limit of {}: allow it with "
        "--max-memory {}",
        format_bytes(static_cast<double>(e.bytes)), e.largest, format_bytes(static_cast<double>(l.bytes)),
        memory_flag_value(static_cast<double>(e.bytes))));
  }
  if (e.seconds > l.seconds) {
    throw InputError(fmt::format(
        "this request would take about {} (estimate; {} the longest part), over the limit of {}: allow it with "
        "--max-time {}",
        format_seconds(e.seconds), e.slowest, format_seconds(l.seconds), time_flag_value(e.seconds)));
  }
}

}  // namespace iosim::cli
