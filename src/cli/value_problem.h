// Why a flag's value is refused before CLI11 converts it: the program checks every option with it
// (app.cpp), and the Python package (python/) the same values given as keywords.
#pragma once

#include <string>

namespace iosim::cli {

/// Why `v`, given to an option of CLI11 type `type` ("INT", "UINT", "FLOAT", "TEXT", ...), is refused;
/// empty when it is fine. Without this, CLI11 runs an empty value with the default and saturates
/// numbers beyond the type (--seed -1 and --seed 2^64 both became 2^64 - 1).
[[nodiscard]] std::string value_problem(const std::string& v, const std::string& type);

}  // namespace iosim::cli
