// --max-time and --max-memory: the limits a request's work estimate (sim/work_estimate.h) must stay
// under, and the one-line refusal that names the estimate and the flag that allows it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/work_estimate.h"

namespace iosim::cli {

struct Limits {
  double seconds = 600;                  ///< --max-time, default 10 minutes
  std::uint64_t bytes = 8ull << 30;      ///< --max-memory, default 8 GiB
};

/// The most points one run may sweep: (n, d, B_r, B_c) combinations of its list flags, each running
/// every schedule and pass. Larger grids are `iosim sweep`'s, which runs them from a file in chunks.
inline constexpr std::uint64_t kMaxRunPoints = 10000;

/// The product of the lists' lengths (a flag's name and how many values it has; an empty list counts
/// as one), refused with one line naming each list when it exceeds kMaxRunPoints. Checked before any
/// problem is built, by the program and the Python package alike (problem_flags.cpp: resolve).
std::uint64_t list_points(std::initializer_list<std::pair<const char*, std::size_t>> lists);

/// "90", "90s", "30m", "2h", "1h30m": seconds; nullopt when malformed or not positive.
[[nodiscard]] std::optional<double> parse_duration(std::string_view s);
/// "16GiB", "512MiB", "8GB", "2G" (binary), "1000000": bytes; nullopt when malformed or not positive.
[[nodiscard]] std::optional<std::uint64_t> parse_bytes(std::string_view s);

/// Limits from the flags' text (empty: the default). Throws InputError naming a malformed flag.
[[nodiscard]] Limits resolve_limits(const std::string& max_time, const std::string& max_memory);

/// Throws InputError (one line: the estimate, its largest part, the flag and a value that allows
/// it) when `e` exceeds `l`.
void enforce(const WorkEstimate& e, const Limits& l);

/// "25 min", "3.2 s", "9.6 GiB": how the refusal writes them.
[[nodiscard]] std::string format_seconds(double s);
[[nodiscard]] std::string format_bytes(double b);

}  // namespace iosim::cli
