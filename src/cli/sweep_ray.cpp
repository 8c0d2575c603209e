// `iosim sweep … --engine ray`: starts scripts/sweep-ray.py, which runs the points as Ray tasks (each
// task `iosim sweep SPEC --points … -o -`) and appends their records to the output, then merges it
// into the canonical order. This process waits for it and returns its exit code.
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "src/cli/cmd_sweep.h"
#include "src/config/search_path.h"

extern char** environ;

namespace iosim::cli {

namespace {

constexpr const char* kInstallRay = "pip install ray (or scripts/setup --ray)";

std::string absolute(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(path, ec);
  return ec ? path : p.string();
}

}  // namespace

int run_sweep_on_ray(const SweepFlags& f, bool quiet) {
  const std::string python = config::env_or("IOSIM_PYTHON", "python3");
  const std::string driver = config::env_or("IOSIM_RAY_DRIVER", IOSIM_RAY_DRIVER);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(driver, ec)) {
    throw InputError("--engine ray: its driver " + driver + " is missing (set IOSIM_RAY_DRIVER to scripts/sweep-ray.py)");
  }
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw InputError("--engine ray: cannot find this program's path (/proc/self/exe: " + ec.message() + ")");

  std::vector<std::string> args{python, driver, "--iosim", self.string(), "--spec", absolute(f.spec),
                                "--out", absolute(f.out)};
  const auto add = [&](const char* flag, const std::string& v) {
    if (v.empty()) return;
    args.emplace_back(flag);
    args.push_back(v);
  };
  add("--address", f.ray_address);
  add("--workers", f.workers ? std::to_string(*f.workers) : "");
  add("--chunk", f.chunk ? std::to_string(*f.chunk) : "");
  add("--max-time", f.max_time);
  add("--max-memory", f.max_memory);
  if (quiet) args.emplace_back("--quiet");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::cout.flush();
  std::cerr.flush();
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (rc != 0) {
    throw InputError("--engine ray needs " + python + " with Ray (" + std::strerror(rc) + "): " + kInstallRay);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("--engine ray: waiting for the driver: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  throw std::runtime_error("--engine ray: the driver was killed by signal " + std::to_string(WTERMSIG(status)));
}

}  // namespace iosim::cli
