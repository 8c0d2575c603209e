#include "src/cli/sweep_records.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "sim/core/error.h"
#include "src/config/plain_file.h"
#include "src/config/yaml_map.h"

namespace iosim::cli {

namespace {

constexpr std::string_view kRecordStart = "{\"key\":";

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// -1, 0, 1: the digit runs a[i..), b[j..) as numbers; i and j move past them.
int compare_numbers(std::string_view a, std::size_t& i, std::string_view b, std::size_t& j) {
  const auto run = [](std::string_view s, std::size_t& k) {
    while (k < s.size() && s[k] == '0' && k + 1 < s.size() && is_digit(s[k + 1])) ++k;  // leading zeros
    const std::size_t start = k;
    while (k < s.size() && is_digit(s[k])) ++k;
    return s.substr(start, k - start);
  };
  const std::string_view x = run(a, i), y = run(b, j);
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  const int c = x.compare(y);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

int natural_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      if (const int c = compare_numbers(a, i, b, j); c != 0) return c;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i;
    ++j;
  }
  if (i < a.size() || j < b.size()) return i < a.size() ? 1 : -1;
  return 0;
}

}  // namespace

std::string minified(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  bool in_string = false, escaped = false;
  for (const char c : json) {
    if (in_string) {
      out += c;
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (c == '"') in_string = true;
    out += c;
  }
  return out;
}

std::string record_line(std::string_view key, std::string_view json) {
  const std::string body = minified(json);
  if (body.size() < 2 || body.front() != '{') throw std::logic_error("record_line: not a JSON object");
  std::string out(kRecordStart);
  out += key;
  if (body != "{}") out += ',';
  out.append(body, 1);
  out += '\n';
  return out;
}

std::optional<std::string_view> record_key(std::string_view line) {
  if (line.substr(0, kRecordStart.size()) != kRecordStart) return std::nullopt;
  const std::size_t start = kRecordStart.size();
  if (start >= line.size() || line[start] != '{') return std::nullopt;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t k = start; k < line.size(); ++k) {
    const char c = line[k];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return line.substr(start, k + 1 - start);
    }
  }
  return std::nullopt;
}

bool record_complete(std::string_view line) {
  const std::optional<std::string_view> key = record_key(line);
  if (!key) return false;
  // After the key: `,"` and the run's first member (a key alone is no record).
  const std::size_t after = kRecordStart.size() + key->size();
  if (after + 1 >= line.size() || line[after] != ',' || line[after + 1] != '"') return false;
  // The whole line one object: brackets balance, and close for the first time at the last byte.
  int depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t k = 0; k < line.size(); ++k) {
    const char c = line[k];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return k + 1 == line.size();
      if (depth < 0) return false;
    }
  }
  return false;
}

bool key_less(std::string_view a, std::string_view b) {
  const int c = natural_compare(a, b);
  return c != 0 ? c < 0 : a < b;
}

RecordFile parse_records(std::string_view text, const std::string& path) {
  RecordFile f;
  std::size_t start = 0, line_no = 1;
  for (;;) {
    const std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) break;
    const std::string_view line(text.data() + start, nl - start);
    if (!record_key(line)) {
      throw InputError(path + ":" + std::to_string(line_no) + ": not a sweep record (a line starting {\"key\":{…}): '" +
                       config::printable(line) + "'");
    }
    if (record_complete(line)) {
      f.lines.emplace_back(line);
    } else {
      f.incomplete_lines.push_back(line_no);
    }
    start = nl + 1;
    ++line_no;
  }
  f.complete_bytes = start;
  f.incomplete_tail = start < text.size();
  return f;
}

RecordFile read_records(const std::string& path, bool missing_ok, std::uint64_t max_bytes,
                        const std::string& limit_hint) {
  const std::optional<std::string> text = config::read_regular_file(path, max_bytes, "a records file", limit_hint);
  if (!text) {
    if (missing_ok) return {};
    throw InputError(path + ": no such file");
  }
  return parse_records(*text, path);
}

std::vector<std::string> merge_records(std::vector<std::string> lines) {
  std::stable_sort(lines.begin(), lines.end(), [](const std::string& a, const std::string& b) {
    return key_less(*record_key(a), *record_key(b));
  });
  std::vector<std::string> out;
  for (std::string& l : lines) {
    if (!out.empty() && *record_key(out.back()) == *record_key(l)) {
      if (out.back() != l) {
        throw InputError(std::string("two different records for the point ") + config::printable(*record_key(l)) +
                         " (from different configs or versions of iosim?)");
      }
      continue;
    }
    out.push_back(std::move(l));
  }
  return out;
}

void write_records(const std::string& path, const std::vector<std::string>& lines, std::ostream& out) {
  if (path == "-") {
    for (const std::string& l : lines) out << l << '\n';
    out.flush();
    return;
  }
  // Not a FIFO or a device: the rename would replace it, and opening the temporary file could block.
  config::require_regular_file(path, "a records file");
  const std::string tmp = path + ".tmp";
  config::require_regular_file(tmp, "the temporary records file");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw InputError(tmp + ": cannot be written");
    for (const std::string& l : lines) f << l << '\n';
    f.flush();
    if (!f) throw InputError(tmp + ": cannot be written");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path + ": cannot be written (" + ec.message() + ")");
}

}  // namespace iosim::cli
