#include "src/cli/gpu_spec.h"

#include <ctime>
#include <limits>

#include "cuda/window_paging.h"
#include "sim/core/error.h"
#include "sim/schedule/registry.h"

namespace iosim::cli {

namespace {

int as_int(std::uint64_t v, const char* what) {
  if (v > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
    throw InputError(std::string(what) + " is too large for the CUDA backend");
  }
  return static_cast<int>(v);
}

/// The schedule's name as its registry entry holds it (KernelSpec::schedule views it: the catalog outlives
/// the spec), after checking the entry has CUDA kernels.
std::string_view cuda_schedule(const std::string& s) {
  const ScheduleEntry* e = find_schedule(s);
  if (e == nullptr || !has_cuda_kernels(*e)) {
    throw InputError("the CUDA backend runs " + schedule_names(has_cuda_kernels) + ", not " + s);
  }
  return e->name;
}

}  // namespace

bool has_cuda_kernels(const ScheduleEntry& e) { return e.cuda.has_value(); }

std::string today() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

void require_gpu(const char* command) {
  std::string why;
  if (!gpu::available(&why)) throw InputError(std::string(command) + " needs a CUDA GPU: " + why);
}

namespace {

/// The spec's window and pages, from the problem (its page order and seed too: the block table's).
void set_window_paging(gpu::KernelSpec& s, const Problem& p) {
  s.window = as_int(p.window, "--window");
  s.page_size = as_int(p.page_size, "--page-size");
  s.page_order = p.page_order;
  s.page_seed = p.page_seed;
}

void throw_if_refused(const gpu::KernelSpec& s) {
  if (const std::string why = gpu::window_paging_unsupported(s); !why.empty()) throw InputError(why);
}

}  // namespace

void require_kernel_window_paging(const std::string& schedule, Pass pass, const Problem& p, std::uint64_t bc) {
  gpu::KernelSpec s;
  s.schedule = cuda_schedule(schedule);
  s.pass = pass == Pass::fwd ? gpu::Direction::fwd : gpu::Direction::bwd;
  s.n_kv = as_int(p.n_kv, "n_kv");
  s.causal = p.causal;
  s.bc = as_int(bc, "--bc");
  set_window_paging(s, p);
  throw_if_refused(s);
}

GpuCase gpu_case(const std::string& schedule, Pass pass, const Problem& p, const HardwareSpec& hw,
                 const TileRequest& tiles, gpu::KernelShape pinned, bool on_device) {
  GpuCase c;
  gpu::KernelSpec& s = c.spec;
  s.schedule = cuda_schedule(schedule);
  const bool decode = schedule_entry(schedule).validate.decode;  // its kernels take --kv-heads and --splits
  s.splits = pinned.splits;  // flashdecode's --splits (0: the heuristic); other schedules refuse any
  s.pass = pass == Pass::fwd ? gpu::Direction::fwd : gpu::Direction::bwd;
  s.batch = as_int(p.batch, "batch");
  s.heads = as_int(p.heads, "heads");
  s.n = as_int(p.n, "n");
  s.n_kv = as_int(p.n_kv, "n_kv");
  s.d = as_int(p.d, "d");
  s.dtype = p.dtype;
  s.kv_heads = as_int(p.kv_head_count(), "kv_heads");
  s.causal = p.causal;
  set_window_paging(s, p);
  const bool library = gpu::described(s).library;  // naive's cuBLAS picks its own tiles
  if (!library) {
    const auto compiled = gpu::compiled_tiles(s.schedule, s.pass, s.d, s.dtype);
    const int br = tiles.br ? as_int(*tiles.br, "--br") : (compiled.empty() ? 0 : compiled.front().first);
    const int bc = tiles.bc ? as_int(*tiles.bc, "--bc") : (compiled.empty() ? 0 : compiled.front().second);
    s.br = br;
    s.bc = bc;
    s.warps = pinned.warps;
    s.stages = pinned.stages;
  }
  throw_if_refused(s);  // with the kernel's tile: the page size must fit its B_c
  if (const std::string why = gpu::unsupported_in_build(s); !why.empty()) throw InputError(why);
  if (on_device) {
    if (const std::string why = gpu::unsupported(s); !why.empty()) throw InputError(why);
  }
  c.model = ScheduleContext{p, hw, {}, 0, {}};
  if (!library) {
    const gpu::KernelShape shape = gpu::kernel_shape(s);
    c.model.tiles = {static_cast<std::uint64_t>(s.br), static_cast<std::uint64_t>(s.bc)};
    c.model.kernel = {static_cast<std::uint32_t>(shape.warps), static_cast<std::uint32_t>(shape.stages)};
    c.model.splits = static_cast<std::uint64_t>(shape.splits);  // flashdecode: the kernel's (the model's heuristic)
    if (decode) s.splits = shape.splits;  // recorded with the run; the same kernels either way
  }
  return c;
}

}  // namespace iosim::cli
