// One function per subcommand; app.cpp parses the flags and calls them. Each throws InputError for
// bad input and returns an exit code otherwise.
#pragma once

#include <ostream>
#include <string>

#include "src/cli/problem_flags.h"

namespace iosim::cli {

int run_command(const ProblemFlags& f, const std::string& format, std::ostream& out);
int bounds_command(const ProblemFlags& f, const std::string& format, std::ostream& out);
int tiles_command(const ProblemFlags& f, const std::string& format, std::size_t top, std::ostream& out);

}  // namespace iosim::cli
