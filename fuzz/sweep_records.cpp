// Fuzz target: a records file through the three ways iosim reads one: parse_records and
// merge_records directly; a run that resumes (`iosim sweep SPEC -o FILE`, a fixed 4-point sweep on
// teaching.yaml); and `iosim sweep merge FILE -o -`. Promises: bad input is one line (InputError, or
// exit 2 with one line on stderr and nothing on stdout); a run that succeeds leaves a file of whole
// records only, in canonical order, each of the sweep's points exactly once; a merge prints whole
// records in canonical order, each key once.
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/support.h"
#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/sweep_records.h"
#include "src/config/yaml_map.h"

namespace {

constexpr const char* kSpec = R"(hardware: teaching
problems: [{n: [16, 32], d: 16}]
schedules: [naive, flash2]
)";

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Run {
  int code;
  std::string out, err;
};

Run cli(std::vector<std::string> args) {
  args.insert(args.begin(), "iosim");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = iosim::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  Run r{code, out.str(), err.str()};
  if (code != 0 && code != 2) iosim::fuzz::finding("exit code " + std::to_string(code));
  if (code == 2) {
    if (!r.out.empty()) iosim::fuzz::finding("exit 2 with output on stdout");
    if (count_lines(r.err) != 1) {
      iosim::fuzz::finding("exit 2 with " + std::to_string(count_lines(r.err)) + " lines on stderr: " +
                           iosim::config::printable(r.err));
    }
  }
  return r;
}

/// Whole records, strictly increasing keys: what a finished run or a merge writes.
void check_canonical(const std::string& text, const char* what) {
  const iosim::cli::RecordFile f = iosim::cli::parse_records(text, what);
  if (f.incomplete_tail || !f.incomplete_lines.empty()) iosim::fuzz::finding(std::string(what) + ": an incomplete record");
  for (std::size_t i = 1; i < f.lines.size(); ++i) {
    if (!iosim::cli::key_less(*iosim::cli::record_key(f.lines[i - 1]), *iosim::cli::record_key(f.lines[i]))) {
      iosim::fuzz::finding(std::string(what) + ": records out of order or repeated");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const iosim::cli::RecordFile f = iosim::cli::parse_records(text, "fuzz.jsonl");
    for (const std::string& l : f.lines) {
      if (!iosim::cli::record_key(l) || !iosim::cli::record_complete(l)) iosim::fuzz::finding("a kept line is no record");
    }
    (void)iosim::cli::merge_records(f.lines);
  } catch (const iosim::InputError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) {
      iosim::fuzz::finding("a message of two lines: " + iosim::config::printable(e.what()));
    }
  }

  static const std::string spec = iosim::fuzz::as_file(reinterpret_cast<const std::uint8_t*>(kSpec),
                                                       std::char_traits<char>::length(kSpec), "-records-spec.yaml");
  const std::string file = iosim::fuzz::as_file(data, size, "-records.jsonl");
  const Run merged = cli({"sweep", "merge", file, "-o", "-"});
  if (merged.code == 0) check_canonical(merged.out, "merge's output");

  const Run run = cli({"sweep", spec, "-o", file, "-q"});
  if (run.code == 0) {
    const std::string after = slurp(file);
    check_canonical(after, "the resumed file");
    const Run listed = cli({"sweep", spec, "--list"});
    std::istringstream keys(listed.out);
    for (std::string l; std::getline(keys, l);) {
      if (after.find("{\"key\":" + l.substr(l.find('\t') + 1) + ",") == std::string::npos) {
        iosim::fuzz::finding("the resumed file lacks a point: " + l);
      }
    }
    const Run pending = cli({"sweep", spec, "-o", file, "--pending"});
    if (pending.code != 0 || pending.out != "\n") iosim::fuzz::finding("points pending after a run: " + pending.out);
  }
  return 0;
}
