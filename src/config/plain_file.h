// Files the sweep reads and writes (sweep files, scenarios they name, records files) must be regular
// files: a FIFO would block the open for ever, and /dev/zero or /dev/urandom never end. These helpers
// tell such files apart without opening them in a way that blocks, and read a regular file only after
// its size is checked against a limit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace iosim::config {

/// What `path` is when it is not a regular file ("a FIFO", "a character device", "a directory", …: checked_file.h's names);
/// nullopt for a regular file or a path where nothing is (stat(2), which never blocks).
[[nodiscard]] std::optional<std::string> not_a_regular_file(const std::string& path);

/// Throws InputError "path: is a FIFO, not a regular file (what)" when not_a_regular_file says so.
/// `what` names what the file was meant to be ("a sweep file", "a records file").
void require_regular_file(const std::string& path, const std::string& what);

/// The bytes of `path`, opened without blocking (O_NONBLOCK) and checked to be a regular file of at
/// most `max_bytes` before a byte is read; nullopt when there is no such file. Throws InputError,
/// one line naming the path, otherwise. `limit_hint` ends the too-large message (how to allow it).
[[nodiscard]] std::optional<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes,
                                                           const std::string& what, const std::string& limit_hint);

}  // namespace iosim::config
