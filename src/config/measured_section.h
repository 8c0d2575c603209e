// Rewriting the `measured:` section of a hardware config in place (`iosim calibrate --write`): the
// section is replaced as text, so every other byte of the file (comments, order, spacing) stays.
#pragma once

#include <string>
#include <vector>

namespace iosim::config {

/// `text` (a config file's contents) with its top-level `measured:` section replaced by `section`,
/// which must start with "measured:" and end with a newline; appended at the end when `text` has no
/// such section. The section is the `measured:` line and the indented lines after it (with the blank
/// and comment lines between them); the first line at column 0 that is neither blank nor a comment
/// ends it. Throws ConfigError naming `file` when `text` has two top-level `measured:` keys or one
/// written in flow style (`measured: {...}`), which this cannot rewrite line by line.
/// `keep`: keys whose lines in the old section (each a `  key: value` line, its comment included) are
/// carried into the new one, before its `date:` line: figures another tool measured, which the writer
/// of `section` does not.
[[nodiscard]] std::string replace_measured_section(const std::string& text, const std::string& section,
                                                   const std::string& file, const std::vector<std::string>& keep = {});

/// Replaces the `measured:` section of the config `file` with `section` (replace_measured_section),
/// after checking that the result loads as a config (a temporary file beside it, renamed over it).
/// Throws ConfigError when the file cannot be read or written or the result would not load.
void write_measured_section(const std::string& file, const std::string& section,
                            const std::vector<std::string>& keep = {});

}  // namespace iosim::config
