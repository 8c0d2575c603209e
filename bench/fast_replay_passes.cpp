// The fast replay's passes one by one (FastReplay::fit's strides, then the warm run) for one request:
// each pass's stride, CPU seconds, line requests, steps and steps reused, and the sample's error, so
// that a long request's time can be split between its passes and between transfers and lines.
// Built with the benchmarks (build/bench/fast_replay_passes), or by hand like replay_costs.cpp; run as
//   fast_replay_passes CONFIG SCHEDULE fwd|bwd N D HEADS KV_HEADS CAUSAL(0|1)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "bench/lab_args.h"
#include "sim/gpu/fast_replay.h"
#include "sim/schedule/registry.h"
#include "src/config/hardware_config.h"

namespace {

void print(const char* what, std::uint32_t stride, double s, const iosim::FastKernelStats& before,
           const iosim::FastKernelStats& after, double error) {
  std::printf("%-6s stride %3u  %7.2f s  lines %12llu  steps %11llu  reused %11llu  error %.4f\n", what, stride, s,
              static_cast<unsigned long long>(after.lines - before.lines),
              static_cast<unsigned long long>(after.steps - before.steps),
              static_cast<unsigned long long>(after.steps_reused - before.steps_reused), error);
}
}  // namespace

int main(int argc, char** argv) {
  using namespace iosim;
  if (argc != 9) {
    std::fprintf(stderr, "usage: %s CONFIG SCHEDULE fwd|bwd N D HEADS KV_HEADS CAUSAL\n", argv[0]);
    return 2;
  }
  const Problem p = lab::problem_from(argv + 4);
  const ScheduleContext ctx{p, config::load_hardware(argv[1]), {}, 0, {}};
  const auto s = make_schedule(argv[2], std::string(argv[3]) == "bwd" ? Pass::bwd : Pass::fwd, ctx);
  const std::vector<const Kernel*> kernels = s->kernels();
  GpuModelOptions o;
  const FirstPass first = first_pass(*s, ctx, o);
  // fit()'s loop, pass by pass: the same strides in the same order (fast_replay.cpp), each pass on a
  // replay of its own (fit() hands the recorded blocks from one to the next: a few tenths of a percent).
  std::printf("first stride %u, budget %.0f lines, transfers %.0f\n", first.stride, first.budget, first.transfers);
  std::uint32_t stride = first.stride;
  for (;;) {
    auto r = std::make_unique<FastReplay>(ctx, o, stride);
    const double t0 = lab::cpu_seconds();
    (void)r->pass(kernels);
    const double t1 = lab::cpu_seconds();
    const double e = r->standard_error();
    print("pass", stride, t1 - t0, FastKernelStats{}, r->stats(), e);
    if (stride == 1 || e <= FastReplay::kMaxStandardError) {
      const FastKernelStats before = r->stats();
      (void)r->warm(kernels);
      print("warm", stride, lab::cpu_seconds() - t1, before, r->stats(), 0);
      break;
    }
    const double ratio = (FastReplay::kMaxStandardError / e) * (FastReplay::kMaxStandardError / e);
    std::uint32_t next = 1;
    while (next * 2 <= static_cast<double>(stride) * ratio && next * 2 < stride) next *= 2;
    next = std::max(std::min(next, stride / 2), stride / FastReplay::kMaxStrideStep);
    std::uint32_t affordable = stride;
    while (affordable > 1 && static_cast<double>(r->stats().lines * (stride / (affordable / 2))) <= first.budget) affordable /= 2;
    const bool next_misses = e * std::sqrt(static_cast<double>(next) / stride) > FastReplay::kMaxStandardError;
    stride = next_misses ? std::min(next, affordable) : next;
  }
  return 0;
}
