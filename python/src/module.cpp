// iosim._iosim, the native half of the Python package: the program's commands (src/cli/commands.h)
// called in-process with the flags the package's keywords name (request.h). What a command prints in
// the format asked comes back as text, the JSON the program prints with -f json; a failure comes back
// as the program's one-line message (src/cli/failure.h). python/iosim/ turns these into Python data and
// iosim.Error.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <sstream>
#include <string>
#include <tuple>

#include "python/src/request.h"
#include "src/cli/app.h"
#include "src/cli/commands.h"
#include "src/cli/failure.h"
#include "src/cli/limits.h"
#include "src/config/hardware_config.h"
#include "src/config/search_path.h"

namespace nb = nanobind;

namespace iosim::python {

namespace {

/// (exit code, what the command printed, the error's line or ""), as the program would end.
using Outcome = std::tuple<int, std::string, std::string>;

int run(const std::string& command, Request& r, const std::string& format, std::ostream& out) {
  if (r.hardware) r.flags.hardware = config::load_hardware(*r.hardware, kDictConfigName);
  const cli::Limits limits = cli::resolve_limits(r.max_time, r.max_memory);
  if (command == "run") return cli::run_command(r.flags, format, out, limits);
  if (command == "tiles") return cli::tiles_command(r.flags, format, r.top, out, limits);
  if (command == "bounds") return cli::bounds_command(r.flags, format, out);
  throw UsageError("iosim: no command '" + command + "'");
}

Outcome call(const std::string& command, const nb::dict& flags, const std::string& format) {
  std::ostringstream out;
  try {
    Request r = request_from_dict(flags);  // reads Python objects: under the GIL
    const nb::gil_scoped_release unlocked;
    const int code = run(command, r, format, out);
    return {code, out.str(), ""};
  } catch (const UsageError&) {
    throw;  // the package called this wrongly: a Python ValueError
  } catch (const std::exception&) {
    const cli::Failure f = cli::describe_failure(std::current_exception());
    return {f.exit_code, "", f.message};
  }
}

}  // namespace

}  // namespace iosim::python

NB_MODULE(_iosim, m) {
  m.doc() = "iosim's commands in-process (use the package iosim, not this module)";
  m.def("call", &iosim::python::call, nb::arg("command"), nb::arg("flags"), nb::arg("format"),
        "Runs `command` (run, tiles, bounds) with `flags` (flag name without -- to value); returns "
        "(exit code, output, error line).");
  m.def("version", [] { return std::string(iosim::cli::kVersion); }, "What `iosim --version` prints.");
  m.def("set_installed_dirs", &iosim::config::set_installed_dirs, nb::arg("configs"), nb::arg("scenarios"),
        "Where `config=NAME` and `scenario=NAME` look after the working directory, unless "
        "$IOSIM_CONFIG_DIR or $IOSIM_SCENARIO_DIR say otherwise.");
}
