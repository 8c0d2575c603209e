// The iosim command line. Everything the program does goes through run(), so tests call it directly.
#pragma once

#include <ostream>
#include <string_view>

namespace iosim::cli {

/// Exit codes: 0 done, 1 a check the command makes failed (a slope out of tolerance), 2 bad input.
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;
inline constexpr int kExitBadInput = 2;

/// What `iosim --version` prints (the Python package's iosim.version() too).
inline constexpr std::string_view kVersion = "iosim 0.1.0";

/// Parses `argv` and runs the command; results go to `out`, one-line errors to `err`.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace iosim::cli
