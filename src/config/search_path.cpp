#include "src/config/search_path.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "src/config/checked_file.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> candidates(const std::string& name) {
  std::vector<std::string> c{name};
  if (fs::path(name).extension() != ".yaml" && fs::path(name).extension() != ".yml") c.push_back(name + ".yaml");
  return c;
}

std::string listing(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string& installed_configs() {
  static std::string dir = IOSIM_CONFIG_DIR;
  return dir;
}

std::string& installed_scenarios() {
  static std::string dir = IOSIM_SCENARIO_DIR;
  return dir;
}

}  // namespace

std::string env_or(const char* var, const std::string& fallback) {
  const char* v = std::getenv(var);
  return (v != nullptr && *v != '\0') ? std::string(v) : fallback;
}

std::string find_file(const std::string& name, const std::string& installed_dir, const std::string& what) {
  std::error_code ec;
  for (const std::string& c : candidates(name)) {
    if (fs::is_regular_file(c, ec)) return c;
  }
  if (!fs::path(name).has_parent_path()) {
    for (const std::string& c : candidates(name)) {
      const fs::path p = fs::path(installed_dir) / c;
      if (fs::is_regular_file(p, ec)) return p.string();
    }
  }
  // A FIFO, a device or a directory by that name is said to be one: "not found" would hide it.
  if (const std::string kind = special_file_kind(name); !kind.empty()) {
    throw ConfigError(what + " '" + name + "': " + kind + ", not a regular file: only regular files are read");
  }
  const std::string cwd = fs::current_path(ec).string();
  throw ConfigError(what + " '" + name + "' not found: looked in " + cwd + " and " + installed_dir +
                    " (" + what + "s there: " + listing(installed_dir) + ")");
}

std::string config_dir() { return env_or("IOSIM_CONFIG_DIR", installed_configs()); }
std::string scenario_dir() { return env_or("IOSIM_SCENARIO_DIR", installed_scenarios()); }

void set_installed_dirs(const std::string& configs, const std::string& scenarios) {
  installed_configs() = configs;
  installed_scenarios() = scenarios;
}

}  // namespace iosim::config
