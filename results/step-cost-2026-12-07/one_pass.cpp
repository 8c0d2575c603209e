// One fast-replay pass at a given stride (profiling driver): one_pass CONFIG SCHEDULE fwd|bwd N D HEADS KV CAUSAL STRIDE
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include "bench/lab_args.h"
#include "sim/gpu/fast_replay.h"
#include "sim/schedule/registry.h"
#include "src/config/hardware_config.h"
int main(int argc, char** argv) {
  using namespace iosim;
  const Problem p = lab::problem_from(argv + 4);
  const ScheduleContext ctx{p, config::load_hardware(argv[1]), {}, 0, {}};
  const auto s = make_schedule(argv[2], std::string(argv[3]) == "bwd" ? Pass::bwd : Pass::fwd, ctx);
  const std::vector<const Kernel*> kernels = s->kernels();
  GpuModelOptions o;
  const auto stride = static_cast<std::uint32_t>(std::atoi(argv[9]));
  auto r = std::make_unique<FastReplay>(ctx, o, stride);
  const double t0 = lab::cpu_seconds();
  (void)r->pass(kernels);
  std::printf("stride %u %.3f s lines %llu steps %llu reused %llu err %.6f\n", stride, lab::cpu_seconds() - t0,
              (unsigned long long)r->stats().lines, (unsigned long long)r->stats().steps,
              (unsigned long long)r->stats().steps_reused, r->standard_error());
}
