// A call of the Python package as the flags of a command: iosim.count(config="a100", n=[1024], d=[64])
// is `iosim --config a100 --n 1024 --d 64`. The package's Python side (python/iosim/) names each keyword
// after its flag ("n-kv", "schedule", "l2"); every value is read from its text, as the command line
// reads it, so a bad value is refused with the program's own message.
#pragma once

#include <nanobind/nanobind.h>
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

#include "src/cli/problem_flags.h"

namespace iosim::python {

/// What names a hardware config given as a dict, where a file's path would stand (the JSON's
/// config.file, the errors).
inline constexpr const char* kDictConfigName = "<dict>";

struct Request {
  cli::ProblemFlags flags;
  std::optional<YAML::Node> hardware;  ///< the config given as a dict, not yet checked
  std::string max_time, max_memory;    ///< as --max-time and --max-memory take them
  std::size_t top = 10;                ///< tiles: --top
};

/// A call the package's Python side should never make (a key that is no flag): a Python ValueError.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Throws InputError with the program's message for a value it refuses (--n: expected an integer
/// below 2^63, got '1.5'), UsageError for a key that is no flag.
[[nodiscard]] Request request_from_dict(const nanobind::dict& flags);

}  // namespace iosim::python
