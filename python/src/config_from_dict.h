// A hardware config given to the Python package as a dict (the keys of configs/*.yaml, nested the
// same way) as the YAML node that the config reader (src/config/hardware_config) checks, so that a
// dict is held to exactly the rules of a file. An int, a float and a bool become plain scalars, a str
// a quoted one (so "132" is a string, as in a file), a list a sequence, None a null, a date (what
// yaml.safe_load makes of measured.date) its ISO text.
#pragma once

#include <nanobind/nanobind.h>
#include <yaml-cpp/yaml.h>

#include <string>

namespace iosim::python {

/// Throws ConfigError ("<dict>: sm.count: ...") for what no YAML file can hold: a key that is not a
/// str, a value of another Python type, nesting deeper than a file may.
[[nodiscard]] YAML::Node config_from_dict(nanobind::handle dict, const std::string& name);

}  // namespace iosim::python
