// The executors: one per schedule and pass, each the schedule's algorithm on numbers, in its loop
// order, moving every tile through Hbm exactly as the schedule in sim/schedule/ emits it. Templated on
// the working precision (float, double; instantiated in each file).
//
// Forward executors read Q, K, V from HBM and leave there O and the statistics their backward needs
// (naive: P; flash1: l and m; flash2: L). Backward executors read those and dO and leave dQ, dK, dV.
#pragma once

#include <cstdint>

#include "sim/exec/execute.h"
#include "sim/exec/hbm.h"

namespace iosim::exec {

/// What a forward execution observed of its running max.
struct ForwardStats {
  /// (row, K/V tile) updates where a finite running max grew: a rescale factor below 1 was applied.
  std::uint64_t max_grew = 0;
};

template <class T>
void naive_forward(Hbm<T>& hbm, const ExecShape& s);
template <class T>
void naive_backward(Hbm<T>& hbm, const ExecShape& s);

template <class T>
ForwardStats flash1_forward(Hbm<T>& hbm, const ExecShape& s, Bug bug);
template <class T>
void flash1_backward(Hbm<T>& hbm, const ExecShape& s);

template <class T>
ForwardStats flash2_forward(Hbm<T>& hbm, const ExecShape& s, Bug bug);
template <class T>
void flash2_backward(Hbm<T>& hbm, const ExecShape& s);

}  // namespace iosim::exec
