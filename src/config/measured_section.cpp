#include "src/config/measured_section.h"

#include <cstdio>
#include <filesystem>
#include <string_view>
#include <vector>

#include "src/config/checked_file.h"
#include "src/config/hardware_config.h"
#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

constexpr std::string_view kKey = "measured:";

/// The lines of `text`, each with its line terminator (the last may have none).
std::vector<std::string_view> lines_of(const std::string& text) {
  std::vector<std::string_view> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t nl = text.find('\n', at);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.emplace_back(text.data() + at, end - at);
    at = end;
  }
  return lines;
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r\n") == std::string_view::npos; }
bool is_indented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }
bool is_comment(std::string_view line) { return !line.empty() && line[0] == '#'; }

/// Whether `line` is the top-level key `measured:`; throws for `measured: <a value on the line>`.
bool is_measured_key(std::string_view line, const std::string& file, std::size_t number) {
  if (line.substr(0, kKey.size()) != kKey) return false;
  std::string_view rest = line.substr(kKey.size());
  const std::size_t first = rest.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && rest[first] != '#') {
    throw ConfigError(file + ":" + std::to_string(number) +
                      ": measured: is written in flow style; write it as a block (one key a line) to rewrite it");
  }
  return true;
}

}  // namespace

std::string replace_measured_section(const std::string& text, const std::string& section, const std::string& file,
                                     const std::vector<std::string>& keep) {
  const std::vector<std::string_view> lines = lines_of(text);
  std::size_t start = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!is_measured_key(lines[i], file, i + 1)) continue;
    if (start != lines.size()) {
      throw ConfigError(file + ":" + std::to_string(i + 1) + ": a second top-level measured: key");
    }
    start = i;
  }
  if (start == lines.size()) {
    std::string out = text;
    if (!out.empty() && out.back() != '\n') out += '\n';
    return out + section;
  }
  std::size_t end = start + 1;  // one past the section's last indented line
  for (std::size_t i = start + 1; i < lines.size(); ++i) {
    if (is_indented(lines[i]) && !is_blank(lines[i])) {
      end = i + 1;
    } else if (!is_blank(lines[i]) && !is_comment(lines[i])) {
      break;
    }
  }
  // The kept keys' lines of the old section, in their order, placed before the new one's date.
  std::string kept;
  for (std::size_t i = start + 1; i < end; ++i) {
    const std::string_view l = lines[i];
    const std::size_t k = l.find_first_not_of(" \t");
    if (!is_indented(l) || k == std::string_view::npos) continue;
    for (const std::string& key : keep) {
      if (l.substr(k, key.size()) == key && l.substr(k + key.size(), 1) == ":") kept += std::string(l);
    }
  }
  if (!kept.empty() && kept.back() != '\n') kept += '\n';
  std::string merged = section;
  const std::size_t date = merged.rfind("\n  date:");
  merged.insert(date == std::string::npos ? merged.size() : date + 1, kept);
  std::size_t head = 0;
  for (std::size_t i = 0; i < start; ++i) head += lines[i].size();
  std::size_t cut = head;
  for (std::size_t i = start; i < end; ++i) cut += lines[i].size();
  // A section that ended the file without a final newline: the replacement brings its own.
  return text.substr(0, head) + merged + text.substr(cut);
}

void write_measured_section(const std::string& file, const std::string& section,
                            const std::vector<std::string>& keep) {
  const std::string text = read_regular_file(file, kMaxYamlFileBytes, "a config");
  const std::string updated = replace_measured_section(text, section, file, keep);
  const std::string tmp = file + ".iosim-tmp";
  try {
    write_regular_file(tmp, updated);
  } catch (const ConfigError&) {
    if (special_file_kind(tmp).empty()) std::remove(tmp.c_str());  // a partial file of ours, not another's FIFO
    throw;
  }
  try {
    (void)load_hardware(tmp);
  } catch (const ConfigError& e) {
    std::remove(tmp.c_str());
    throw ConfigError(std::string("the rewritten config would not load (") + e.what() + "); " + file + " left as it was");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw ConfigError(file + ": cannot replace: " + ec.message());
  }
}

}  // namespace iosim::config
