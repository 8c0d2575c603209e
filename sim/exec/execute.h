// Functional execution of a schedule: the algorithm run on numbers, tile by tile, in the order the
// schedule emits its transfers, and compared with attention computed in double.
//
// One head of random Q, K, V (and dO for the backward) drawn from a seed is executed in fp32 or fp64
// (Eigen, the working precision of every value, statistics included) by the executor of the schedule
// (sim/exec/naive.cpp, flash1_*.cpp, flash2_*.cpp): same tiles, same loops, every HBM access through
// one recorder (sim/exec/hbm.h), so tests can check the executed transfers against the emitted ones.
// Optionally with one of the classic online-softmax bugs, beside a correct run of the same inputs.
// Not executed: causal masks, grouped-query attention, flashdecode and dtiled (check_execution says so).
// The problem's element type (--dtype) plays no part: storage and arithmetic use the precision asked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/problem.h"
#include "sim/core/transfer.h"

namespace iosim {

class Schedule;
enum class Pass : std::uint8_t;

/// The working precision of an execution.
enum class Precision : std::uint8_t { fp32, fp64 };

/// The online-softmax bugs an execution can inject into flash1 and flash2 (docs/execution.md).
enum class Bug : std::uint8_t {
  none,
  no_rescale,  ///< the old O not multiplied by e^{m_old − m_new} when the running max grows
  no_max,      ///< no max subtracted: e^S of the raw scores (overflows in fp32 for large scores)
  wrong_l,     ///< l_new = l_old + rowsum(P̃): the old sum (and flash1's new one) not rescaled
};

[[nodiscard]] constexpr std::string_view name(Precision p) { return p == Precision::fp32 ? "fp32" : "fp64"; }
[[nodiscard]] std::string_view name(Bug b);
[[nodiscard]] std::optional<Precision> parse_precision(std::string_view s);
[[nodiscard]] std::optional<Bug> parse_bug(std::string_view s);

/// The largest n and n_kv executed: the reference keeps the n × n_kv probabilities in double.
inline constexpr std::uint64_t kMaxExecutedLength = 4096;

struct ExecuteOptions {
  Precision precision = Precision::fp32;
  std::uint64_t seed = 1;     ///< of the random Q, K, V, dO
  double input_scale = 1.0;   ///< Q and K are multiplied by it (large values provoke overflow)
  Bug bug = Bug::none;
  bool record = false;        ///< keep the executed HBM transfers (ExecutionResult::transfers)
};

/// The error of one output tensor against the double-precision reference.
struct TensorError {
  Tensor tensor = Tensor::O;
  double max_abs_error = 0;  ///< max |out − ref|; NaN when an output is not finite
  double rel_error = 0;      ///< ‖out − ref‖_F / ‖ref‖_F; NaN when an output is not finite
  std::uint64_t nonfinite = 0;  ///< outputs that are inf or NaN
};

struct ExecutionResult {
  ExecuteOptions options;
  std::uint64_t heads_executed = 1;  ///< head 0 of batch 0: every head runs the same algorithm
  std::vector<TensorError> outputs;  ///< the run as asked (with the bug): O, or dQ, dK, dV
  std::vector<TensorError> correct;  ///< the same inputs without the bug; empty when the bug is none
  /// flash1 and flash2: how many times (row, K/V tile) a finite running max grew in the forward pass,
  /// i.e. a rescale factor e^{m_old − m_new} below 1 was applied; counted in the correct run.
  std::optional<std::uint64_t> max_grew;
  /// With options.record: the HBM transfers of the pass executed (a backward's own, not those of the
  /// forward that produced its O and statistics), in order, each with times = 1.
  std::vector<Transfer> transfers;
};

/// Throws InputError (one line) unless `schedule`'s pass `pass` can be executed on `p` with `o`.
void check_execution(std::string_view schedule, Pass pass, const Problem& p, const ExecuteOptions& o);

/// Executes head 0 of `s` (built for `p`) on inputs drawn from o.seed. Throws as check_execution.
[[nodiscard]] ExecutionResult execute(const Schedule& s, const Problem& p, const ExecuteOptions& o);

}  // namespace iosim
