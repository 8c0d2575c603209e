// How a command's failure becomes what the program reports: one line (control characters escaped) and
// an exit code. The program (app.cpp) prints the line after "iosim: error: "; the Python package
// (python/) raises iosim.Error with the same line.
#pragma once

#include <exception>
#include <string>
#include <string_view>

namespace iosim::cli {

struct Failure {
  int exit_code;        ///< kExitBadInput, or kExitCheckFailed for a GPU that failed under a command
  std::string message;  ///< one line, without "iosim: error: "
};

/// What a command threw, classified as run() reports it: InputError and OverflowError ("sizes too
/// large: ...") are bad input, another std::runtime_error a failed check (a CUDA error), out of memory
/// and any other std::exception bad input. Rethrows what is not a std::exception.
[[nodiscard]] Failure describe_failure(const std::exception_ptr& e);

/// `what` on one line: a newline written as \n, other control characters as \xNN.
[[nodiscard]] std::string one_line(std::string_view what);

}  // namespace iosim::cli
