// cuda/backend.h for the iosim program: each function opens the GPU module on first use (dlopen) and
// calls its table. Commands that never touch the GPU never load CUDA, cuBLAS or CUPTI.
#include "cuda/loader/loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <stdexcept>

#include "cuda/loader/backend_table.h"
#include "sim/core/error.h"

namespace iosim::gpu {

namespace {

struct Loaded {
  const BackendTable* table = nullptr;
  std::string error;  ///< why `table` is null
};

std::string executable_dir() {
  std::array<char, 4096> buf{};
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  std::string path(buf.data(), static_cast<std::size_t>(n));
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

std::string one_line(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

Loaded open_module() {
  const std::string path = module_path();
  // RTLD_NOW: a missing symbol or library fails here, in one message, not in the middle of a run.
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* e = ::dlerror();  // clears itself: read once
    std::string why = one_line(e != nullptr ? e : "dlopen failed");
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);  // dlerror names the file itself
    return {nullptr, "cannot load the GPU module " + path + ": " + why};
  }
  using Entry = const BackendTable* (*)();
  void* sym = ::dlsym(handle, "iosim_gpu_backend");
  if (sym == nullptr) return {nullptr, path + " is not an iosim GPU module (no iosim_gpu_backend)"};
  const BackendTable* t = reinterpret_cast<Entry>(sym)();
  if (t == nullptr || t->abi != kBackendAbi || t->table_size != sizeof(BackendTable) ||
      t->layout != backend_layout()) {
    return {nullptr, path + " was built from other sources than this iosim (the backend's interface differs); "
                            "rebuild both"};
  }
  return {t, {}};
}

const Loaded& loaded() {
  static const Loaded l = open_module();  // thread-safe, once
  return l;
}

/// The table, or InputError (exit 2: what is missing is part of the installation, not a GPU fault).
const BackendTable& table() {
  const Loaded& l = loaded();
  if (l.table == nullptr) throw InputError(l.error);
  return *l.table;
}

}  // namespace

std::string module_path() {
  if (const char* env = std::getenv("IOSIM_GPU_MODULE"); env != nullptr && *env != '\0') return env;
  return executable_dir() + "/" + kModuleFile;
}

std::string load_module() { return loaded().error; }

bool available(std::string* why) {
  const Loaded& l = loaded();
  if (l.table == nullptr) {
    if (why != nullptr) *why = l.error;
    return false;
  }
  return l.table->available(why);
}

DeviceInfo device_info() { return table().device_info(); }

std::vector<std::pair<int, int>> compiled_tiles(std::string_view schedule, Direction pass, int d, DType dtype) {
  return table().compiled_tiles(schedule, pass, d, dtype);
}

std::vector<KernelVariant> compiled_variants(std::string_view schedule, Direction pass, int d, DType dtype) {
  return table().compiled_variants(schedule, pass, d, dtype);
}

KernelShape kernel_shape(const KernelSpec& spec) { return table().kernel_shape(spec); }

std::string unsupported(const KernelSpec& spec) {
  const Loaded& l = loaded();
  return l.table == nullptr ? l.error : l.table->unsupported(spec);
}

std::string unsupported_in_build(const KernelSpec& spec) {
  const Loaded& l = loaded();
  return l.table == nullptr ? l.error : l.table->unsupported_in_build(spec);
}

std::vector<Accuracy> check_accuracy(const KernelSpec& spec, std::uint64_t seed) {
  return table().check_accuracy(spec, seed);
}

Measurement measure(const KernelSpec& spec, const MeasureOptions& opt) { return table().measure(spec, opt); }

Ceilings measure_ceilings() { return table().measure_ceilings(); }

PipelineSpec measure_pipeline() { return table().measure_pipeline(); }

}  // namespace iosim::gpu
