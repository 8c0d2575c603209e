// Finding a config or scenario file by name: the working directory first, then the installed folder.
#pragma once

#include <string>

namespace iosim::config {

/// The file `name` (".yaml" appended when missing) in the working directory, else in `installed_dir`.
/// A miss throws ConfigError saying where it looked and listing the files there. `what` names the
/// kind of file in the message ("config", "scenario").
[[nodiscard]] std::string find_file(const std::string& name, const std::string& installed_dir,
                                    const std::string& what);

/// The folder of installed hardware configs: $IOSIM_CONFIG_DIR if set, else the one built in (or set).
[[nodiscard]] std::string config_dir();
/// The folder of installed scenarios: $IOSIM_SCENARIO_DIR if set, else the one built in (or set).
[[nodiscard]] std::string scenario_dir();

/// The environment variable `var`, or `fallback` where it is unset or empty.
[[nodiscard]] std::string env_or(const char* var, const std::string& fallback);

/// Replaces the built-in folders (the Python package: the copies it ships); the variables still win.
void set_installed_dirs(const std::string& configs, const std::string& scenarios);

}  // namespace iosim::config
