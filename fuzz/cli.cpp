// Fuzz target: the command line in-process, iosim::cli::run with an argv made of the input's lines.
// The contract: exit 0, 1 or 2, and on 2 nothing on stdout and exactly one line on stderr. Inputs
// that could write files (--out, --json-out, -o) or ask for large problems (a number above 128 and
// below 2^64: the work estimates of the speed issue, not parsing) are skipped.
#include <cctype>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/support.h"
#include "src/cli/app.h"

namespace {

bool writes_files(const std::string& arg) {
  if (arg.find("out") != std::string::npos) return true;
  return arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' && arg.find('o') != std::string::npos;
}

/// A run of digits whose value is above 128 and that fits 64 bits (longer runs cannot parse).
bool large_number(const std::string& arg) {
  for (std::size_t i = 0; i < arg.size();) {
    if (std::isdigit(static_cast<unsigned char>(arg[i])) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < arg.size() && std::isdigit(static_cast<unsigned char>(arg[j])) != 0) ++j;
    while (i < j - 1 && arg[i] == '0') ++i;
    const std::size_t digits = j - i;
    if (digits > 3 && digits < 20) return true;
    if (digits == 3 && std::stoi(arg.substr(i, 3)) > 128) return true;
    i = j;
  }
  return false;
}

std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 1024) return 0;
  std::vector<std::string> args{"iosim"};
  std::string cur;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty()) args.push_back(cur);
  if (args.size() > 25) return 0;
  for (const std::string& a : args) {
    if (writes_files(a) || large_number(a) || a.find('\0') != std::string::npos) return 0;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int code = iosim::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  if (code != 0 && code != 1 && code != 2) iosim::fuzz::finding("exit code " + std::to_string(code));
  if (code == 2) {
    if (!out.str().empty()) iosim::fuzz::finding("exit 2 with output on stdout");
    if (lines(err.str()) != 1) iosim::fuzz::finding("exit 2 with " + std::to_string(lines(err.str())) + " lines on stderr");
  }
  return 0;
}
