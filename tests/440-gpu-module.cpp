// The GPU module (libiosim_gpu.so, cuda/loader): opened only by the commands that need the GPU, found
// next to the binary, and a one-line error with exit 2 when it or a library it needs is missing.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "support/cli_run.h"

using namespace iosim::test;

namespace {

const std::string kMeasure = "measure -c h200 --n 1024 --d 64 --schedule flash2";

std::string module_next_to_binary() {
  return (std::filesystem::path(IOSIM_BINARY).parent_path() / "libiosim_gpu.so").string();
}

/// `env` (VAR=value ...) then the binary with `args`, as a process.
CliResult with_env(const std::string& env, const std::string& args) {
  return process_with_env(env, args);
}

/// A copy of the module with every `from` in its bytes replaced by `to` (same length): a library it
/// needs that does not exist, or an entry point under another name.
std::string patched_copy(const TempDir& dir, const std::string& from, const std::string& to) {
  REQUIRE(from.size() == to.size());
  std::ifstream in(module_next_to_binary(), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!bytes.empty());
  std::size_t replaced = 0;
  for (std::size_t at = bytes.find(from); at != std::string::npos; at = bytes.find(from, at + to.size())) {
    bytes.replace(at, from.size(), to);
    ++replaced;
  }
  REQUIRE(replaced > 0);
  return dir.write("libiosim_gpu.so", bytes);
}

}  // namespace

TEST_CASE("the module is built next to the binary") {
  CHECK(std::filesystem::exists(module_next_to_binary()));
}

TEST_CASE("the main command, --help and --version never open the GPU module") {
  for (const char* args : {"--config a100.yaml --n 8192 --d 64", "--help", "--version", "tiles --help"}) {
    CAPTURE(args);
    const CliResult r = with_env("IOSIM_GPU_MODULE=/nonexistent/libiosim_gpu.so", args);
    CHECK(r.code == 0);
    CHECK(r.err.empty());
  }
  // The dynamic loader's own account: no libiosim_gpu.so, no CUDA library is opened.
  const CliResult traced = with_env("LD_DEBUG=files", "--config a100.yaml --n 8192 --d 64");
  CHECK(traced.code == 0);
  CHECK(traced.err.find("libiosim_gpu") == std::string::npos);
  CHECK(traced.err.find("libcu") == std::string::npos);
  CHECK(traced.err.find("libyaml-cpp") != std::string::npos);  // the trace did run
}

TEST_CASE("measure opens the module found next to the binary") {
  const CliResult traced = with_env("LD_DEBUG=files", kMeasure);
  CHECK(traced.err.find("libiosim_gpu.so") != std::string::npos);
  const CliResult r = process(kMeasure);
  if (r.code == 0) {
    MESSAGE("a GPU is present: measure ran");
    return;
  }
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("cannot load the GPU module") == std::string::npos);  // it loaded: the backend answered
}

TEST_CASE("a missing module, a missing library, a file that is no module: one line, exit 2") {
  TempDir dir;
  struct Case {
    std::string module;
    std::string says;
  };
  const Case cases[] = {
      {"/nonexistent/libiosim_gpu.so", "cannot load the GPU module /nonexistent/libiosim_gpu.so: cannot open shared object file"},
      {patched_copy(dir, "libstdc++.so.6", "libstdc++.so.X"), "libstdc++.so.X: cannot open shared object file"},
  };
  for (const Case& c : cases) {
    for (const std::string& cmd : {kMeasure, std::string("calibrate"), std::string("validate -c h200 --quick")}) {
      CAPTURE(cmd);
      const CliResult r = with_env("IOSIM_GPU_MODULE=" + c.module, cmd);
      CAPTURE(r.err);
      CHECK(r.code == 2);
      CHECK(lines(r.err) == 1);
      CHECK(r.out.empty());
      CHECK(r.err.find(c.says) != std::string::npos);
    }
  }
  TempDir other;
  const std::string renamed = patched_copy(other, "iosim_gpu_backend", "iosim_gpu_backenX");
  const CliResult r = with_env("IOSIM_GPU_MODULE=" + renamed, kMeasure);
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(lines(r.err) == 1);
  CHECK(r.err.find("is not an iosim GPU module") != std::string::npos);
}
