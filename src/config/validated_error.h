// Reading configs/validated-error.csv: the measured error of the model's predictions by config,
// schedule, pass, mask and paging (sim/core/validated_error.h), written by scripts/validated-error.py.
#pragma once

#include <string>
#include <vector>

#include "sim/core/validated_error.h"

namespace iosim::config {

/// The name of the file beside the configs that holds their validated errors.
inline constexpr const char* kValidatedErrorFile = "validated-error.csv";

/// The kinds validated on config `config_file`: the rows of the validated-error.csv in its directory
/// whose config is its file name without ".yaml". Empty where there is no such file or no row (a config
/// of one's own is not validated). Throws ConfigError, one line naming the file and line, where the
/// file is malformed.
[[nodiscard]] std::vector<ValidatedKind> load_validated_errors(const std::string& config_file);

}  // namespace iosim::config
