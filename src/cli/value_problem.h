// Why a flag's value is refused before CLI11 converts it: the program checks every option with it
// (app.cpp), and the Python package (python/) the same values given as keywords.
#pragma once

#include <string>

namespace iosim::cli {

/// Why `v`, given to an option of CLI11 type `type` ("INT", "UINT", "FLOAT", "TEXT", ...), is refused;
/// empty when it is fine. Without this, CLI11 runs an empty value with the default and saturates
/// numbers beyond the type (--seed -1 and --seed 2^64 both became 2^64 - 1).
[[nodiscard]] std::string value_problem(const std::string& v, const std::string& type);

/// Why `v`, given to an on/off flag as `--causal=v`, is refused; empty when it is fine. The forms
/// CLI11 documents are taken, in any case: true/false, 1/0, yes/no, on/off, enable/disable. CLI11
/// alone takes any other integer too (`--causal=2` was true, `--causal=-1` false).
[[nodiscard]] std::string flag_value_problem(const std::string& v);

}  // namespace iosim::cli
