// Strict reading of one YAML mapping against its schema: a key outside the schema is an error naming
// the nearest valid key (checked first, so a misspelt key is never reported as a missing one), and
// every value read is checked for type. Errors carry the file, the line and the key path.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.h"

namespace iosim::config {

/// A configuration or scenario file that cannot be used. One line, starting with "file:line:".
class ConfigError : public InputError {
 public:
  using InputError::InputError;
};

/// The largest file load_yaml_file() reads (the shipped ones are 1–2 kB); a larger one is refused
/// before it is parsed.
inline constexpr std::uint64_t kMaxYamlFileBytes = std::uint64_t{1} << 20;
/// The deepest nesting of mappings and lists it accepts (the schemas use 2).
inline constexpr std::size_t kMaxYamlDepth = 32;

/// Parses `path` (yaml_file.cpp); a missing, unreadable, oversized or malformed file throws ConfigError
/// with the line, and so does YAML the schemas never need: a second document, an alias or a list as a key,
/// nesting deeper than kMaxYamlDepth.
[[nodiscard]] YAML::Node load_yaml_file(const std::string& path);

class YamlMap {
 public:
  /// `node` must be a mapping whose keys are all in `schema`; `key_path` is its place in the file
  /// ("" at the top, "sm" below).
  YamlMap(const YAML::Node& node, std::string file, std::string key_path, std::vector<std::string> schema);

  [[nodiscard]] std::uint64_t positive_integer(std::string_view key);
  /// A positive integer that fits 32 bits.
  [[nodiscard]] std::uint32_t positive_u32(std::string_view key);
  [[nodiscard]] std::optional<std::uint64_t> optional_positive_integer(std::string_view key);
  /// A positive integer or a list of them; empty when the key is absent.
  [[nodiscard]] std::vector<std::uint64_t> positive_integer_list(std::string_view key);
  /// A non-negative integer (0 allowed).
  [[nodiscard]] std::uint64_t count(std::string_view key);
  [[nodiscard]] double positive_number(std::string_view key);
  /// A positive number or a non-empty list of them; empty when the key is absent.
  [[nodiscard]] std::vector<double> positive_number_list(std::string_view key);
  /// A number ≥ 0 (0 means "none", e.g. no fp8 tensor cores).
  [[nodiscard]] double non_negative_number(std::string_view key);
  [[nodiscard]] std::string string(std::string_view key);
  /// Whether the file has `key` (which must be in the schema).
  [[nodiscard]] bool has(std::string_view key);
  /// true or false.
  [[nodiscard]] std::optional<bool> optional_bool(std::string_view key);
  [[nodiscard]] std::optional<std::string> optional_string(std::string_view key);
  [[nodiscard]] std::optional<std::vector<std::string>> optional_string_list(std::string_view key);
  /// A name or a non-empty list of names; empty when the key is absent.
  [[nodiscard]] std::vector<std::string> name_list(std::string_view key);
  /// A non-empty list of mappings, each against `schema` (key paths "key[0]", "key[1]" …); empty when
  /// the key is absent.
  [[nodiscard]] std::vector<YamlMap> map_list(std::string_view key, const std::vector<std::string>& schema);
  [[nodiscard]] YamlMap map(std::string_view key, std::vector<std::string> schema);
  /// Throws ConfigError "file:line: key: what", at `key`'s value (at the mapping when it is absent):
  /// for checks of a value read that only the caller can make.
  [[noreturn]] void invalid(std::string_view key, const std::string& what);
  [[nodiscard]] std::optional<YamlMap> optional_map(std::string_view key, std::vector<std::string> schema);

 private:
  [[nodiscard]] std::optional<YAML::Node> find(std::string_view key);
  [[nodiscard]] YAML::Node need(std::string_view key);
  [[nodiscard]] std::string path_of(std::string_view key) const;
  [[noreturn]] void fail(const YAML::Node& at, std::string_view key, const std::string& what) const;
  /// Refuses `v` outside the range value_limits.h gives its key, if it gives one.
  void in_range(const YAML::Node& at, std::string_view key, double v) const;

  YAML::Node node_;
  std::string file_;
  std::string key_path_;
  std::vector<std::string> schema_;
};

/// `text` as an error message may quote it: control characters escaped (\n, \x01), at most 60
/// characters (then "…"), so that the message stays one short line whatever the file holds.
[[nodiscard]] std::string printable(std::string_view text);

/// Levenshtein distance, for "did you mean".
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace iosim::config
