#include "src/cli/triton_records.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.h"
#include "src/config/compiled_record.h"
#include "src/config/search_path.h"

extern char** environ;

namespace iosim::cli {

namespace {

constexpr const char* kDriver = "iosim.triton.batch";

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The configs as the driver reads them (compile.Config's fields).
std::string configs_json(const std::vector<TritonConfig>& configs) {
  std::string out = "[";
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const TritonConfig& c = configs[i];
    if (i > 0) out += ",";
    out += "{\"kernel\":\"" + c.kernel + "\",\"block_m\":" + std::to_string(c.block_m) +
           ",\"block_n\":" + std::to_string(c.block_n) + ",\"head_dim\":" + std::to_string(c.head_dim) +
           ",\"causal\":" + (c.causal ? "true" : "false") + ",\"num_warps\":" + std::to_string(c.warps) +
           ",\"num_stages\":" + std::to_string(c.stages) + ",\"dtype\":\"" + std::string(name(c.dtype)) +
           "\",\"arch\":90}";
  }
  return out + "]";
}

/// The last non-empty line of `text` (a Python traceback's reason).
std::string last_line(const std::string& text) {
  std::string line, last;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

/// A temporary folder, removed on destruction.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "iosim-triton-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) throw InputError(std::string("--kernels triton: mkdtemp: ") + std::strerror(errno));
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace

std::vector<std::shared_ptr<const CompiledKernel>> triton_records(const std::vector<TritonConfig>& configs) {
  std::vector<std::shared_ptr<const CompiledKernel>> out;
  if (configs.empty()) return out;
  const std::string python = config::env_or("IOSIM_PYTHON", "python3");
  const TempDir tmp;
  const std::filesystem::path in = tmp.path / "configs.json", so = tmp.path / "records.json", se = tmp.path / "stderr";
  std::ofstream(in) << configs_json(configs);

  // This build's python folder first (the package with its module), then the caller's PYTHONPATH.
  std::string pythonpath = config::env_or("PYTHONPATH", "");
  std::error_code ec;
  if (std::filesystem::is_directory(IOSIM_BUILD_PYTHON_DIR, ec)) {
    pythonpath = std::string(IOSIM_BUILD_PYTHON_DIR) + (pythonpath.empty() ? "" : ":" + pythonpath);
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "PYTHONPATH=", 11) != 0) env_strings.emplace_back(*e);
  }
  if (!pythonpath.empty()) env_strings.push_back("PYTHONPATH=" + pythonpath);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args{python, "-m", kDriver};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, so.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, se.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, python.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    throw InputError("--kernels triton needs " + python + " (" + std::strerror(rc) +
                     "): set IOSIM_PYTHON to a Python with triton (pip install triton)");
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw InputError(std::string("--kernels triton: waiting for the compiler: ") + std::strerror(errno));
  }
  const std::string first = configs.front().kernel + " " + std::to_string(configs.front().block_m) + "x" + std::to_string(configs.front().block_n) +
                            (configs.size() > 1 ? " and " + std::to_string(configs.size() - 1) + " more configs" : "");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string why = last_line(read_file(se));
    if (why.find("No module named 'triton'") != std::string::npos) {
      throw InputError("--kernels triton needs Triton for " + python + " (pip install triton): " + why);
    }
    throw InputError("--kernels triton: " + python + " -m " + kDriver + " failed on " + first + ": " +
                     (why.empty() ? "exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) : why));
  }
  std::vector<CompiledKernel> records = config::parse_compiled_records(read_file(so));
  if (records.size() != configs.size()) {
    throw InputError("--kernels triton: asked for " + std::to_string(configs.size()) + " records (" + first +
                     "), got " + std::to_string(records.size()));
  }
  for (CompiledKernel& k : records) out.push_back(std::make_shared<const CompiledKernel>(std::move(k)));
  return out;
}

}  // namespace iosim::cli
