#include "python/src/config_from_dict.h"

#include "src/config/yaml_map.h"

namespace nb = nanobind;

namespace iosim::python {

namespace {

YAML::Node scalar(const std::string& text, const char* tag) {
  YAML::Node n(text);
  n.SetTag(tag);  // "?": plain, read as a number or a bool; "!": quoted, a string
  return n;
}

/// `h` as str() makes it, whole (a C string would end at a NUL, and a name "a\0b" become "a").
std::string text_of(nb::handle h) {
  const nb::str str(h);
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(str.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  return {data, static_cast<std::size_t>(size)};
}

YAML::Node convert(nb::handle v, const std::string& name, const std::string& path, std::size_t depth) {
  const auto fail = [&](const std::string& what) -> config::ConfigError {
    return config::ConfigError(name + ": " + (path.empty() ? std::string("the config") : path) + ": " + what);
  };
  if (v.is_none()) return YAML::Node(YAML::NodeType::Null);
  if (nb::isinstance<nb::bool_>(v)) return scalar(nb::cast<bool>(v) ? "true" : "false", "?");
  if (nb::isinstance<nb::int_>(v) || nb::isinstance<nb::float_>(v)) return scalar(text_of(v), "?");
  if (nb::isinstance<nb::str>(v)) {
    const std::string text = text_of(v);
    if (text.find('\0') != std::string::npos) throw fail("a NUL character in '" + config::printable(text) + "'");
    return scalar(text, "!");
  }
  if (nb::hasattr(v, "isoformat")) return scalar(text_of(v.attr("isoformat")()), "?");  // a date yaml.safe_load made
  const bool is_map = nb::isinstance<nb::dict>(v);
  if (!is_map && !nb::isinstance<nb::list>(v) && !nb::isinstance<nb::tuple>(v)) {
    throw fail(std::string("a value of Python type ") + nb::type_name(v.type()).c_str() +
               " (a config holds numbers, strings, booleans, lists and dicts)");
  }
  if (depth >= config::kMaxYamlDepth) {
    throw fail("nesting deeper than " + std::to_string(config::kMaxYamlDepth) + " levels of mappings and lists");
  }
  if (!is_map) {
    YAML::Node seq(YAML::NodeType::Sequence);
    for (nb::handle item : v) seq.push_back(convert(item, name, path, depth + 1));
    return seq;
  }
  YAML::Node map(YAML::NodeType::Map);
  for (auto [k, item] : nb::borrow<nb::dict>(v)) {
    if (!nb::isinstance<nb::str>(k)) throw fail("a key that is not a name (" + config::printable(text_of(k)) + ")");
    const std::string key = text_of(k);
    if (key.find('\0') != std::string::npos) throw fail("a NUL character in the key '" + config::printable(key) + "'");
    map[key] = convert(item, name, path.empty() ? key : path + "." + key, depth + 1);
  }
  return map;
}

}  // namespace

YAML::Node config_from_dict(nb::handle dict, const std::string& name) { return convert(dict, name, "", 0); }

}  // namespace iosim::python
