// What the plain lab programs of bench/ (replay_costs, fast_replay_passes, l2_analytic) share: the
// process's CPU clock, and a problem read from the arguments N D HEADS KV_HEADS CAUSAL(0|1).
#pragma once

#include <cstdlib>
#include <ctime>
#include <string>

#include "sim/core/problem.h"

namespace iosim::lab {

/// CPU seconds of this process so far.
inline double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// The problem that args[0..4] give as N D HEADS KV_HEADS CAUSAL (n_kv = n; causal when "1").
inline Problem problem_from(char** args) {
  Problem p;
  p.n = p.n_kv = std::strtoull(args[0], nullptr, 10);
  p.d = std::strtoull(args[1], nullptr, 10);
  p.heads = std::strtoull(args[2], nullptr, 10);
  p.kv_heads = std::strtoull(args[3], nullptr, 10);
  p.causal = std::string(args[4]) == "1";
  return p;
}

}  // namespace iosim::lab
