#include "src/config/yaml_map.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include "sim/core/escape.h"
#include "src/config/value_limits.h"

namespace iosim::config {

namespace {

std::string line_of(const YAML::Mark& m) { return m.is_null() ? "" : std::to_string(m.line + 1); }

std::string where(const std::string& file, const YAML::Node& n) {
  const std::string line = n.IsDefined() ? line_of(n.Mark()) : "";
  return line.empty() ? file : file + ":" + line;
}

std::optional<std::uint64_t> parse_u64(const std::string& s) {
  std::uint64_t v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end) return std::nullopt;
  return v;
}

/// What a key expects, for the tags a value may carry: an integer key takes !!int only (a !!float 4
/// is a float, as 4.0 is), a number key !!int or !!float, a flag !!bool.
enum class Want : std::uint8_t { integer, number, boolean, any };

/// The text of a scalar that YAML reads as a number or a boolean: plain (untagged, unquoted) or tagged
/// as `want` allows. A quoted "4" or a !!str 4 is a string, and is not read as a number.
std::optional<std::string> plain_text(const YAML::Node& n, Want want = Want::any) {
  if (!n.IsScalar()) return std::nullopt;
  const std::string& tag = n.Tag();
  const bool is_int = tag == "tag:yaml.org,2002:int", is_float = tag == "tag:yaml.org,2002:float",
             is_bool = tag == "tag:yaml.org,2002:bool";
  bool ok = tag == "?";
  switch (want) {
    case Want::integer: ok = ok || is_int; break;
    case Want::number: ok = ok || is_int || is_float; break;
    case Want::boolean: ok = ok || is_bool; break;
    case Want::any: ok = ok || is_int || is_float || is_bool; break;
  }
  if (ok) return n.Scalar();
  return std::nullopt;
}

/// What a value that is not of the expected type was, for the error.
std::string got(const YAML::Node& n) {
  if (!n.IsScalar()) return "a non-scalar";
  std::string out = "'";  // appended, not "'" + printable(...): GCC 12 warns on that (-Wrestrict, falsely)
  out += printable(n.Scalar());
  const std::string& tag = n.Tag();
  if (plain_text(n)) {
    out += "'";
    if (tag != "?") out += " (tagged " + printable(tag.substr(tag.rfind(':') + 1)) + ")";
  } else {
    out += "', a string (quoted or tagged)";
  }
  return out;
}

std::optional<std::uint64_t> plain_u64(const YAML::Node& n) {
  const std::optional<std::string> t = plain_text(n, Want::integer);
  return t ? parse_u64(*t) : std::nullopt;
}

std::optional<double> parse_double(const std::string& s) {
  double v = 0;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p != end || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace

std::string printable(std::string_view text) {
  constexpr std::size_t kMax = 60;
  std::string out = escape_controls(text.substr(0, kMax));
  if (text.size() > kMax) out += "…";
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

YamlMap::YamlMap(const YAML::Node& node, std::string file, std::string key_path, std::vector<std::string> schema)
    : node_(node), file_(std::move(file)), key_path_(std::move(key_path)), schema_(std::move(schema)) {
  if (!node_.IsMap()) {
    throw ConfigError(where(file_, node_) + ": " + (key_path_.empty() ? std::string("the file") : key_path_) +
                      ": expected a mapping of keys to values");
  }
  std::vector<std::pair<std::string, YAML::Node>> seen;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) throw ConfigError(where(file_, kv.first) + ": a key that is not a name");
    const std::string& key = kv.first.Scalar();
    for (const auto& [k, at] : seen) {
      if (k == key) {
        throw ConfigError(where(file_, kv.first) + ": duplicate key '" + printable(path_of(key)) + "' (first at line " +
                          line_of(at.Mark()) + ")");
      }
    }
    seen.emplace_back(key, kv.first);
    if (std::find(schema_.begin(), schema_.end(), key) != schema_.end()) continue;
    std::string hint;
    std::size_t best = std::string::npos;
    for (const std::string& k : schema_) {
      const std::size_t dist = edit_distance(key, k);
      if (dist < best) {
        best = dist;
        hint = k;
      }
    }
    std::string msg = "unknown key '" + printable(path_of(key)) + "'";
    if (!hint.empty()) msg += " (did you mean '" + path_of(hint) + "'?)";
    throw ConfigError(where(file_, kv.first) + ": " + msg);
  }
}

std::string YamlMap::path_of(std::string_view key) const {
  return key_path_.empty() ? std::string(key) : key_path_ + "." + std::string(key);
}

void YamlMap::fail(const YAML::Node& at, std::string_view key, const std::string& what) const {
  throw ConfigError(where(file_, at.IsDefined() ? at : node_) + ": " + path_of(key) + ": " + what);
}

std::optional<YAML::Node> YamlMap::find(std::string_view key) {
  if (std::find(schema_.begin(), schema_.end(), key) == schema_.end()) {
    throw std::logic_error("YamlMap: key '" + std::string(key) + "' read but not in the schema");
  }
  for (const auto& kv : node_) {
    if (kv.first.Scalar() == key) return kv.second;
  }
  return std::nullopt;
}

void YamlMap::in_range(const YAML::Node& at, std::string_view key, double v) const {
  if (const ValueLimit* l = value_limit(path_of(key))) {
    if (const std::string why = value_limit_problem(*l, v); !why.empty()) fail(at, key, why);
  }
}

YAML::Node YamlMap::need(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) fail(node_, key, "missing (required)");
  return *n;
}

std::uint64_t YamlMap::count(std::string_view key) {
  const YAML::Node n = need(key);
  const std::optional<std::uint64_t> v = plain_u64(n);
  if (!v) fail(n, key, "expected a non-negative integer, got " + got(n));
  in_range(n, key, static_cast<double>(*v));
  return *v;
}

std::uint64_t YamlMap::positive_integer(std::string_view key) {
  const YAML::Node n = need(key);
  const std::optional<std::uint64_t> v = plain_u64(n);
  if (!v || *v == 0) fail(n, key, "expected a positive integer, got " + got(n));
  in_range(n, key, static_cast<double>(*v));
  return *v;
}

std::vector<std::uint64_t> YamlMap::positive_integer_list(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return {};
  if (n->IsScalar()) return {positive_integer(key)};
  std::vector<std::uint64_t> out;
  if (n->IsSequence()) {
    for (const YAML::Node& item : *n) {
      const std::optional<std::uint64_t> v = plain_u64(item);
      if (!v || *v == 0) fail(item, key, "expected a positive integer or a list of them, got " + got(item));
      out.push_back(*v);
    }
  }
  if (out.empty()) fail(*n, key, "expected a positive integer or a non-empty list of them");
  return out;
}

std::uint32_t YamlMap::positive_u32(std::string_view key) {
  const std::uint64_t v = positive_integer(key);
  if (v > 0xFFFFFFFFu) fail(need(key), key, "expected a positive integer below 2^32, got " + std::to_string(v));
  return static_cast<std::uint32_t>(v);
}

std::optional<std::uint64_t> YamlMap::optional_positive_integer(std::string_view key) {
  if (!find(key)) return std::nullopt;
  return positive_integer(key);
}

double YamlMap::non_negative_number(std::string_view key) {
  const YAML::Node n = need(key);
  const std::optional<std::string> t = plain_text(n, Want::number);
  const std::optional<double> v = t ? parse_double(*t) : std::nullopt;
  if (!v || *v < 0) fail(n, key, "expected a number ≥ 0, got " + got(n));
  in_range(n, key, *v);
  return *v;
}

double YamlMap::positive_number(std::string_view key) {
  const YAML::Node n = need(key);
  const std::optional<std::string> t = plain_text(n, Want::number);
  const std::optional<double> v = t ? parse_double(*t) : std::nullopt;
  if (!v || *v <= 0) fail(n, key, "expected a positive number, got " + got(n));
  in_range(n, key, *v);
  return *v;
}

std::vector<double> YamlMap::positive_number_list(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return {};
  if (n->IsScalar()) return {positive_number(key)};
  std::vector<double> out;
  if (n->IsSequence()) {
    for (const YAML::Node& item : *n) {
      const std::optional<std::string> t = plain_text(item);
      const std::optional<double> v = t ? parse_double(*t) : std::nullopt;
      if (!v || *v <= 0) fail(item, key, "expected a positive number or a list of them, got " + got(item));
      out.push_back(*v);
    }
  }
  if (out.empty()) fail(*n, key, "expected a positive number or a non-empty list of them");
  return out;
}

std::string YamlMap::string(std::string_view key) {
  const YAML::Node n = need(key);
  if (!n.IsScalar() || n.Scalar().empty()) fail(n, key, "expected a non-empty string");
  return n.Scalar();
}

bool YamlMap::has(std::string_view key) { return find(key).has_value(); }

std::optional<bool> YamlMap::optional_bool(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return std::nullopt;
  const std::optional<std::string> t = plain_text(*n, Want::boolean);
  if (t && (*t == "true" || *t == "false")) return *t == "true";
  fail(*n, key, "expected true or false, got " + got(*n));
}

std::optional<std::string> YamlMap::optional_string(std::string_view key) {
  if (!find(key)) return std::nullopt;
  return string(key);
}

std::optional<std::vector<std::string>> YamlMap::optional_string_list(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return std::nullopt;
  if (!n->IsSequence() || n->size() == 0) fail(*n, key, "expected a non-empty list of names");
  std::vector<std::string> out;
  for (const YAML::Node& item : *n) {
    if (!item.IsScalar() || item.Scalar().empty()) fail(item, key, "expected a list of names");
    out.push_back(item.Scalar());
  }
  return out;
}

std::vector<std::string> YamlMap::name_list(std::string_view key) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return {};
  if (n->IsScalar()) return {string(key)};
  return optional_string_list(key).value_or(std::vector<std::string>{});  // present: a list or an error
}

std::vector<YamlMap> YamlMap::map_list(std::string_view key, const std::vector<std::string>& schema) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return {};
  if (!n->IsSequence() || n->size() == 0) fail(*n, key, "expected a non-empty list of mappings");
  std::vector<YamlMap> out;
  for (std::size_t i = 0; i < n->size(); ++i) {
    out.emplace_back((*n)[i], file_, path_of(key) + "[" + std::to_string(i) + "]", schema);
  }
  return out;
}

void YamlMap::invalid(std::string_view key, const std::string& what) {
  const std::optional<YAML::Node> n = find(key);
  fail(n ? *n : node_, key, what);
}

YamlMap YamlMap::map(std::string_view key, std::vector<std::string> schema) {
  return YamlMap(need(key), file_, path_of(key), std::move(schema));
}

std::optional<YamlMap> YamlMap::optional_map(std::string_view key, std::vector<std::string> schema) {
  std::optional<YAML::Node> n = find(key);
  if (!n) return std::nullopt;
  return YamlMap(*n, file_, path_of(key), std::move(schema));
}


}  // namespace iosim::config
