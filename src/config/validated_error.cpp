#include "src/config/validated_error.h"

#include <array>
#include <charconv>
#include <filesystem>
#include <optional>
#include <sstream>
#include <utility>

#include "src/config/checked_file.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

namespace fs = std::filesystem;

/// The file's columns, in order (scripts/validated-error.py's FIELDS).
constexpr std::array<const char*, 12> kColumns = {"config", "schedule", "pass",   "mask",  "paged", "counter",
                                                  "kernels", "median_pct", "max_pct", "n_min", "n_max", "sources"};
/// Far above the shipped file's size (about 15 kB).
constexpr std::uint64_t kMaxBytes = std::uint64_t{1} << 20;

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

template <typename T>
std::optional<T> number(const std::string& s) {
  T v{};
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::vector<ValidatedKind> load_validated_errors(const std::string& config_file) {
  const fs::path config(config_file);
  const fs::path file = config.parent_path() / kValidatedErrorFile;
  std::error_code ec;
  if (config.extension() != ".yaml" || !fs::is_regular_file(file, ec)) return {};
  const std::string name = config.stem().string();
  const std::string text = read_regular_file(file.string(), kMaxBytes, "a validated-error file");

  std::vector<ValidatedKind> kinds;
  std::istringstream in(text);
  std::string line;
  std::size_t number_of_line = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++number_of_line;
    if (line.empty() || line.front() == '#') continue;
    const std::string where = file.string() + ":" + std::to_string(number_of_line) + ": ";
    const std::vector<std::string> c = split(line);
    if (c.size() != kColumns.size()) {
      throw ConfigError(where + std::to_string(c.size()) + " columns, expected " + std::to_string(kColumns.size()));
    }
    if (!header) {
      for (std::size_t i = 0; i < kColumns.size(); ++i) {
        if (c[i] != kColumns[i]) throw ConfigError(where + "column " + std::to_string(i + 1) + " is '" + c[i] +
                                                   "', expected '" + kColumns[i] + "'");
      }
      header = true;
      continue;
    }
    if (c[0] != name) continue;
    const auto kernels = number<std::uint32_t>(c[6]);
    const auto median = number<double>(c[7]), largest = number<double>(c[8]);
    const auto n_min = number<std::uint64_t>(c[9]), n_max = number<std::uint64_t>(c[10]);
    for (const auto& [ok, column] : {std::pair{kernels.has_value(), std::size_t{6}}, std::pair{median.has_value(), std::size_t{7}},
                                     std::pair{largest.has_value(), std::size_t{8}}, std::pair{n_min.has_value(), std::size_t{9}},
                                     std::pair{n_max.has_value(), std::size_t{10}}}) {
      if (!ok) throw ConfigError(where + kColumns[column] + " '" + c[column] + "' is not a number");
    }
    if (c[4] != "0" && c[4] != "1") throw ConfigError(where + "paged '" + c[4] + "' is not 0 or 1");
    if (c[5].empty()) throw ConfigError(where + "the counter is empty");
    const bool paged = c[4] == "1";
    if (kinds.empty() || kinds.back().schedule != c[1] || kinds.back().pass != c[2] || kinds.back().mask != c[3] ||
        kinds.back().paged != paged) {
      kinds.push_back({c[1], c[2], c[3], paged, *n_min, *n_max, c[11], {}});
    }
    kinds.back().counters.push_back({c[5], *kernels, *median, *largest});
  }
  return kinds;
}

}  // namespace iosim::config
