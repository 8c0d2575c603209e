#include "sim/schedule/kernel_family.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <vector>

#include "sim/schedule/registry.h"

namespace iosim {

namespace {

// How the families were fitted, here and in the schedules' folders (sim/schedule/<name>/families.cpp).
// Registers are fitted to ptxas -v of each family's compiled kernels (scripts/fit-registers.py), the
// per-step overhead and the dependency waits to ncu's counts and stalls of them on a GPU
// (scripts/fit-instructions.py, scripts/fit-stalls.py). results/kernel-family-fits.md says what each fit
// was made on and how well it matched. Each family's SM model (Overlap) was chosen by predicting the time
// sweeps both ways (results/validation-history.md, "Barriers: a simulated SM").

// Every schedule's own families (its folder's families.cpp, through its registry entry), in the
// catalog's order, then the generic families below, which several schedules' kernels share.
std::vector<KernelFamily> make_families() {
  std::vector<KernelFamily> f;
  for (const ScheduleEntry& s : schedule_catalog()) {
    if (s.families == nullptr) continue;
    std::vector<KernelFamily> own = s.families();
    f.insert(f.end(), std::make_move_iterator(own.begin()), std::make_move_iterator(own.end()));
  }
  // Element-wise and row kernels (initialisation, the backward's pre- and post-processing, the
  // split-KV combine): no products, loads waited for at once. Registers: a base of 40 (not measured);
  // dependency waits not measured (none: memory-bound kernels, whose loads the model waits for).
  f.push_back({.name = "elementwise",
               .source = "cuda/kernels/flash_aux.cu",
               .base_registers = 40,
               .smem_layout = SharedLayout::none});
  // Standard attention runs cuBLAS GEMMs and a softmax kernel whose inner structure iosim does not
  // describe: the roofline (each resource at its measured rate). Registers: 40 + accumulators (an
  // estimate; cuBLAS chooses its own).
  f.push_back({.name = "library",
               .source = "cuBLAS (cuda/kernels/naive.cu)",
               .model = FamilyModel::roofline,
               .base_registers = 40});
  // PyTorch's eager kernels of standard attention (the `eager` schedule; ATen's
  // vectorized_elementwise_kernel, softmax_warp_forward / cunn_SoftMaxForward*, softmax_warp_backward /
  // cunn_SoftMaxBackward*, which of them by the row length): their speed is not a resource's rate (the
  // softmax forward's depends on the row length), so each is priced at its own, measured alone.
  for (const char* name : {"torch-unary", "torch-binary", "torch-softmax-fwd", "torch-softmax-bwd"}) {
    f.push_back({.name = name,
                 .source = "PyTorch ATen (aten/src/ATen/native/cuda/SoftMax.cu, Loops.cuh)",
                 .model = FamilyModel::measured_rate,
                 .base_registers = 40});
  }
  return f;
}

}  // namespace

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> all = make_families();
  return all;
}

std::uint32_t family_registers(const KernelFamily& family, double fragment_registers) {
  const double line = family.base_registers + family.per_fragment * fragment_registers;
  return static_cast<std::uint32_t>(std::ceil(std::max({line, fragment_registers, 1.0})));
}

const RegisterSplit* register_split(const KernelFamily& family, std::uint32_t consumer_groups) {
  for (const RegisterSplit& r : family.hopper.register_splits) {
    if (r.consumer_groups == consumer_groups) return &r;
  }
  return nullptr;
}

const SpillStores* spill_stores(const KernelFamily& family, std::string_view kernel_name, std::uint64_t head_dim,
                                bool causal) {
  for (const SpillStores& s : family.spills) {
    const bool mask = s.mask == SpillMask::any || (s.mask == SpillMask::causal) == causal;
    if (s.kernel == kernel_name && s.head_dim == head_dim && mask) return &s;
  }
  return nullptr;
}

const KernelFamily& family_of(std::string_view kernel_name, KernelSource source) {
  std::string_view family = "library";
  for (const ScheduleEntry& s : schedule_catalog()) {
    const std::span<const KernelFamilyOf> kernels = source == KernelSource::iosim     ? s.kernels
                                                    : source == KernelSource::pytorch ? s.pytorch_kernels
                                                                                      : s.triton_kernels;
    for (const KernelFamilyOf& k : kernels) {
      if (k.kernel == kernel_name) family = k.family;
    }
  }
  const auto& all = kernel_families();
  return *std::find_if(all.begin(), all.end(), [&](const KernelFamily& k) { return k.name == family; });
}

}  // namespace iosim
