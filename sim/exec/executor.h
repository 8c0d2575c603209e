// A schedule's functional executor, as its registry entry (sim/schedule/registry.h) names it: the
// forward and backward executions in each working precision (sim/exec/executors.h), and what they do
// beyond moving tiles. Each is defined beside its executions (naive.cpp, flash1_fwd.cpp, flash2_fwd.cpp).
#pragma once

#include <cstdint>

namespace iosim {

enum class Bug : std::uint8_t;

namespace exec {

template <class T>
class Hbm;
struct ExecShape;
struct ForwardStats;

template <class T>
using ForwardExecution = ForwardStats (*)(Hbm<T>&, const ExecShape&, Bug);
template <class T>
using BackwardExecution = void (*)(Hbm<T>&, const ExecShape&);

struct Executor {
  ForwardExecution<float> forward_fp32 = nullptr;
  ForwardExecution<double> forward_fp64 = nullptr;
  BackwardExecution<float> backward_fp32 = nullptr;
  BackwardExecution<double> backward_fp64 = nullptr;
  /// Its forward keeps a running max and sum: --bug breaks them, and it counts where the max grew.
  bool online_softmax = false;
  /// It keeps the n × n_kv matrices (S, P; dS, dP) in HBM, and its backward recomputes no S.
  bool scores_in_hbm = false;

  template <class T>
  [[nodiscard]] ForwardExecution<T> forward() const {
    if constexpr (sizeof(T) == sizeof(float)) {
      return forward_fp32;
    } else {
      return forward_fp64;
    }
  }
  template <class T>
  [[nodiscard]] BackwardExecution<T> backward() const {
    if constexpr (sizeof(T) == sizeof(float)) {
      return backward_fp32;
    } else {
      return backward_fp64;
    }
  }
};

extern const Executor kNaiveExecutor;
extern const Executor kFlash1Executor;
extern const Executor kFlash2Executor;

}  // namespace exec
}  // namespace iosim
