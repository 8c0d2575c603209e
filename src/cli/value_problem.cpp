#include "src/cli/value_problem.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace iosim::cli {

std::string value_problem(const std::string& v, const std::string& type) {
  if (v.empty()) return "expected a value, got an empty one";
  const char* end = v.data() + v.size();
  const auto whole = [&](auto parsed) { return parsed.ec == std::errc() && parsed.ptr == end; };
  if (type == "INT") {
    std::int64_t x = 0;
    if (!whole(std::from_chars(v.data(), end, x))) return "expected an integer below 2^63, got '" + v + "'";
  } else if (type == "UINT") {
    std::uint64_t x = 0;
    if (!whole(std::from_chars(v.data(), end, x))) return "expected a non-negative integer below 2^64, got '" + v + "'";
  } else if (type == "FLOAT") {
    double x = 0;
    if (!whole(std::from_chars(v.data(), end, x)) || !std::isfinite(x)) return "expected a finite number, got '" + v + "'";
  }
  return "";
}

std::string flag_value_problem(const std::string& v) {
  static constexpr std::array<const char*, 10> kForms{"true", "false", "1",  "0",      "yes",
                                                      "no",   "on",    "off", "enable", "disable"};
  std::string lower = v;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  for (const char* f : kForms) {
    if (lower == f) return "";
  }
  return "expected true or false (or 1/0, yes/no, on/off), got '" + v + "'";
}

}  // namespace iosim::cli
