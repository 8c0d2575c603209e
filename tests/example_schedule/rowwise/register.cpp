// rowwise's registry entry (registry.h says what an entry holds).
#include <array>
#include <vector>

#include "sim/schedule/registry.h"

namespace iosim {

namespace example {
std::unique_ptr<Schedule> make_rowwise_fwd(const ScheduleContext& ctx);  // rowwise.cpp
std::vector<KernelFamily> rowwise_families();                           // families.cpp
}  // namespace example

namespace {

constexpr std::array kRowwiseKernels = {KernelFamilyOf{"rowwise_fwd", "rowwise"}};

}  // namespace

ScheduleEntry register_rowwise() {
  return ScheduleEntry{.name = "rowwise",
                       .summary = "exact softmax with a whole row block of S on chip (the worked example)",
                       .fwd = &example::make_rowwise_fwd,
                       .kernels = kRowwiseKernels,
                       .families = &example::rowwise_families};
}

}  // namespace iosim
