// Running the command line in-process (iosim::cli::run) or as a real process (the built binary).
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>

#include "src/cli/app.h"
#include "support/temp_file.h"

namespace iosim::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

/// `iosim args...` in this process.
inline CliResult cli(const std::vector<std::string>& args) {
  std::vector<std::string> owned{"iosim"};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const std::string& a : owned) argv.push_back(a.c_str());
  std::ostringstream out, err;
  CliResult r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline CliResult cli(std::initializer_list<std::string> args) { return cli(std::vector<std::string>(args)); }

/// The program the process tests run: the build's, or IOSIM_TEST_BINARY's (a build of another commit,
/// to see a test fail before its fix).
inline std::string iosim_binary() {
  const char* other = std::getenv("IOSIM_TEST_BINARY");
  return other != nullptr && *other != '\0' ? other : IOSIM_BINARY;
}

/// `env` (VAR=value ..., or shell commands ending in ';'; may be empty) then `iosim args` as a child
/// process through the shell, so `args` may redirect its streams (`>/dev/full`, `>&-`); stderr captured
/// apart. A process still running after `timeout_s` is killed (exit code 124 or 137): a regression that
/// hangs fails its test instead of hanging the suite.
inline CliResult process_with_env(const std::string& env, const std::string& args, int timeout_s = 300) {
  TempDir dir;
  const std::string err_path = dir.path() + "/stderr";
  const std::string cmd = env + " timeout -k 5 " + std::to_string(timeout_s) + " " + iosim_binary() + " " + args +
                          " 2>" + err_path;
  CliResult r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), got);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err_path);
  r.err.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return r;
}

/// `iosim args` as a child process through the shell; stderr captured apart.
inline CliResult process(const std::string& args, int timeout_s = 300) { return process_with_env("", args, timeout_s); }

/// JSON is YAML 1.2: yaml-cpp parses iosim's JSON output (and throws if it is malformed).
inline YAML::Node parse_json(const std::string& text) { return YAML::Load(text); }

/// Number of lines in `s` (a trailing newline does not start a line).
inline std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

}  // namespace iosim::test
