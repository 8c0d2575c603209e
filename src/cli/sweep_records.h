// A sweep's output, JSON Lines: one record per point, `{"key":{…},` then the fields of the program's
// JSON for that run, on one line. Reading such files (an incomplete last line left by a killed run
// is told apart), their canonical order, and merging them.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace iosim::cli {

/// `json` on one line: the whitespace between its tokens removed, strings untouched.
[[nodiscard]] std::string minified(std::string_view json);

/// The record of a run: `{"key":` key `,` and the members of `json` (one object), on one line, '\n'.
[[nodiscard]] std::string record_line(std::string_view key, std::string_view json);

/// The key object of a record line (without its '\n'); nullopt when the line does not start with
/// `{"key":{` and a complete object.
[[nodiscard]] std::optional<std::string_view> record_key(std::string_view line);

/// Whether a line with a key is a whole record: the key followed by `,` and the run's fields, the
/// line one balanced JSON object that ends at its last byte. A key alone (`{"key":{…}}`) or a record
/// cut short is an incomplete record: its point counts as not run.
[[nodiscard]] bool record_complete(std::string_view line);

/// The canonical order of keys: byte by byte, except that runs of digits compare as numbers
/// (n 4096 before n 16384); ties broken byte by byte. A strict total order.
[[nodiscard]] bool key_less(std::string_view a, std::string_view b);

struct RecordFile {
  std::vector<std::string> lines;  ///< the complete records, in file order, without '\n'
  std::vector<std::size_t> incomplete_lines;  ///< line numbers (from 1) of incomplete records
  std::size_t complete_bytes = 0;  ///< bytes up to and with the last '\n'
  bool incomplete_tail = false;    ///< bytes after the last '\n' (a run killed while writing)
};

/// The records of `text`, the contents of the file `path`. A complete line without a key throws
/// InputError "path:line: not a sweep record"; one with a key but not a whole record is counted in
/// incomplete_lines.
[[nodiscard]] RecordFile parse_records(std::string_view text, const std::string& path);

/// Reads `path` (a missing file is an empty one when `missing_ok`): a regular file of at most
/// `max_bytes` (config/plain_file.h), then parse_records. `limit_hint` says how to allow a larger one.
[[nodiscard]] RecordFile read_records(const std::string& path, bool missing_ok, std::uint64_t max_bytes,
                                      const std::string& limit_hint);

/// `lines` sorted by key_less of their keys, a record that appears more than once kept once.
/// Two different records with one key throw InputError (runs of different programs or configs).
[[nodiscard]] std::vector<std::string> merge_records(std::vector<std::string> lines);

/// Writes `lines` (each + '\n') to `path` through a temporary file renamed over it, so that `path`
/// may be one of the inputs and a kill leaves the old file; "-" writes them to `out`.
void write_records(const std::string& path, const std::vector<std::string>& lines, std::ostream& out);

}  // namespace iosim::cli
