// Files the program reads or writes by name, held to the bad-input contract: only regular files, a size
// checked before reading, opening that never blocks (a FIFO is refused, not waited on), and every write
// and the close checked, so that output is never lost without a line saying so. Errors are ConfigError
// (one line, starting with the file's name).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace iosim::config {

/// The whole of `path`, which must be a regular file of at most `max_bytes`. The type and the size are
/// checked with stat before opening, and again on the open descriptor (O_NONBLOCK: a FIFO swapped in
/// meanwhile cannot block). `what` names what the file is for the size message: "path: the file is
/// larger than 1048576 bytes (1 MiB), the most <what> may be". Throws ConfigError for a missing,
/// unreadable, non-regular or oversized file.
[[nodiscard]] std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what);

/// Throws ConfigError unless `path` is absent (it will be created), a regular file, the file that
/// standard output already is (`-o /dev/stdout`), or the null device (`-o /dev/null`). Call it before the work whose result goes there, so a
/// FIFO, a device or a directory is refused at once instead of after the work (or blocking on open).
void check_output_file(const std::string& path);

/// Writes `text` to `path` (created, or truncated), after check_output_file(path); opened without
/// blocking, every write and the close checked. Throws ConfigError "path: cannot write the file: <why>".
void write_regular_file(const std::string& path, std::string_view text);

/// "a FIFO", "a directory", "a character device", ... for `path` as stat sees it; "" for a regular
/// file or a path that does not exist.
[[nodiscard]] std::string special_file_kind(const std::string& path);

/// The same for a file whose stat(2) st_mode is `mode` (of an open descriptor: fstat); "" when regular.
[[nodiscard]] std::string file_kind_of_mode(unsigned mode);

}  // namespace iosim::config
