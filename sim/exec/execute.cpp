// execute(): checks the request, draws the inputs, runs the schedule's executor in the precision asked
// (the correct run, and the bugged one beside it), and measures each output against the reference.
#include "sim/exec/execute.h"

#include <array>
#include <cmath>
#include <limits>
#include <string>

#include "sim/core/error.h"
#include "sim/core/progress.h"
#include "sim/exec/executor.h"
#include "sim/exec/executors.h"
#include "sim/exec/inputs.h"
#include "sim/exec/reference.h"
#include "sim/schedule/registry.h"

namespace iosim {

namespace {

constexpr std::array<std::string_view, 4> kBugNames = {"none", "no-rescale", "no-max", "wrong-l"};

bool executed(const ScheduleEntry& e) { return e.executor != nullptr; }
bool online_softmax(const ScheduleEntry& e) { return executed(e) && e.executor->online_softmax; }

}  // namespace

std::string_view name(Bug b) { return kBugNames[static_cast<std::size_t>(b)]; }

std::optional<Precision> parse_precision(std::string_view s) {
  if (s == "fp32") return Precision::fp32;
  if (s == "fp64") return Precision::fp64;
  return std::nullopt;
}

std::optional<Bug> parse_bug(std::string_view s) {
  for (std::size_t i = 0; i < kBugNames.size(); ++i) {
    if (kBugNames[i] == s) return static_cast<Bug>(i);
  }
  return std::nullopt;
}

void check_execution(std::string_view schedule, Pass /*both passes of each run*/, const Problem& p,
                     const ExecuteOptions& o) {
  const std::string s(schedule);
  const ScheduleEntry& e = schedule_entry(schedule);
  if (!executed(e)) {
    throw InputError("--execute runs " + schedule_names(executed) + ", not " + s + " (choose with --schedule)");
  }
  if (o.bug != Bug::none && !online_softmax(e)) {
    throw InputError("--bug " + std::string(name(o.bug)) + " breaks the online softmax of " +
                     schedule_names(online_softmax) + "; " + s + " has none (add --schedule " +
                     schedule_names(online_softmax, ",", ",") + ")");
  }
  if (p.n > kMaxExecutedLength || p.n_kv > kMaxExecutedLength) {
    throw InputError("--execute needs n and n_kv of at most " + std::to_string(kMaxExecutedLength) + " (got n " +
                     std::to_string(p.n) + ", n_kv " + std::to_string(p.n_kv) + ")");
  }
  if (p.causal) throw InputError("--execute does not run causal masks (drop --causal)");
  if (p.kv_head_count() != p.heads) {
    throw InputError("--execute does not run grouped-query attention (drop --kv-heads)");
  }
  if (!std::isfinite(o.input_scale) || o.input_scale <= 0) {
    throw InputError("--input-scale must be a positive number (got " + std::to_string(o.input_scale) + ")");
  }
}

namespace exec {

namespace {

template <class T>
Matrix<T> cast(const MatrixD& m) {
  return m.template cast<T>();
}

/// The inputs as the working precision holds them: the reference is computed from these, so the
/// errors are those of the schedule's arithmetic, not of rounding the inputs.
template <class T>
Inputs rounded(const Inputs& in) {
  return {cast<T>(in.q).template cast<double>(), cast<T>(in.k).template cast<double>(),
          cast<T>(in.v).template cast<double>(), cast<T>(in.dout).template cast<double>()};
}

template <class T>
TensorError compare(Tensor t, const Matrix<T>& out, const MatrixD& ref) {
  TensorError e{t, 0, 0, 0};
  for (Eigen::Index i = 0; i < out.size(); ++i) e.nonfinite += std::isfinite(out.data()[i]) ? 0u : 1u;
  if (e.nonfinite > 0) {
    e.max_abs_error = e.rel_error = std::numeric_limits<double>::quiet_NaN();
    return e;
  }
  const MatrixD diff = out.template cast<double>() - ref;
  e.max_abs_error = diff.cwiseAbs().maxCoeff();
  const double norm = ref.norm();
  e.rel_error = norm > 0 ? diff.norm() / norm : diff.norm();
  return e;
}

struct Run {
  std::vector<TensorError> errors;
  std::uint64_t max_grew = 0;
  std::vector<Transfer> transfers;
};

struct Target {
  std::string_view schedule;
  const Executor* executor;
  Pass pass;
  ExecShape shape;
};

/// The reference outputs of the pass: O, or the gradients.
struct Expected {
  MatrixD o;
  Gradients g;
};

template <class T>
ForwardStats forward(Hbm<T>& hbm, const Target& t, Bug bug) {
  return t.executor->forward<T>()(hbm, t.shape, bug);
}

template <class T>
void backward(Hbm<T>& hbm, const Target& t) {
  t.executor->backward<T>()(hbm, t.shape);
}

/// One execution in precision T. A backward first runs the same schedule's forward (with the
/// backward's tiles, and the bug) for the O and statistics it reads; only its own transfers are kept.
template <class T>
Run run(const Target& t, const Inputs& in, const Expected& ref, Bug bug, bool record) {
  Hbm<T> hbm(t.shape);
  hbm.put(Tensor::Q, cast<T>(in.q));
  hbm.put(Tensor::K, cast<T>(in.k));
  hbm.put(Tensor::V, cast<T>(in.v));
  if (t.pass == Pass::bwd) hbm.put(Tensor::dO, cast<T>(in.dout));
  const ForwardStats stats = forward(hbm, t, bug);
  Run r;
  r.max_grew = stats.max_grew;
  if (t.pass == Pass::fwd) {
    r.errors.push_back(compare(Tensor::O, hbm.get(Tensor::O), ref.o));
  } else {
    hbm.clear_transfers();
    backward(hbm, t);
    r.errors.push_back(compare(Tensor::dQ, hbm.get(Tensor::dQ), ref.g.dq));
    r.errors.push_back(compare(Tensor::dK, hbm.get(Tensor::dK), ref.g.dk));
    r.errors.push_back(compare(Tensor::dV, hbm.get(Tensor::dV), ref.g.dv));
  }
  if (record) r.transfers = hbm.transfers();
  return r;
}

template <class T>
ExecutionResult execute_in(const Target& t, const Inputs& given, const ExecuteOptions& o) {
  // Progress in steps: the reference, the correct run, the bugged run.
  const std::string what = "execute " + std::string(t.schedule) + " " + (t.pass == Pass::fwd ? "fwd" : "bwd") +
                           ": reference and runs";
  const std::uint64_t steps = o.bug == Bug::none ? 2 : 3;
  report_progress(what, 0, steps);
  const Inputs in = rounded<T>(given);
  Expected ref;
  if (t.pass == Pass::fwd) {
    ref.o = reference_forward(in);
  } else {
    ref.g = reference_backward(in);
  }
  report_progress(what, 1, steps);
  ExecutionResult res;
  res.options = o;
  Run correct = run<T>(t, in, ref, Bug::none, o.record && o.bug == Bug::none);
  report_progress(what, 2, steps);
  if (t.executor->online_softmax) res.max_grew = correct.max_grew;
  if (o.bug == Bug::none) {
    res.outputs = std::move(correct.errors);
    res.transfers = std::move(correct.transfers);
    return res;
  }
  Run bugged = run<T>(t, in, ref, o.bug, o.record);
  report_progress(what, 3, steps);
  res.outputs = std::move(bugged.errors);
  res.correct = std::move(correct.errors);
  res.transfers = std::move(bugged.transfers);
  return res;
}

void check_shape(const MatrixD& m, std::uint64_t rows, std::uint64_t cols, const char* what) {
  if (m.rows() != idx(rows) || m.cols() != idx(cols)) {
    throw InputError(std::string("execute: ") + what + " is " + std::to_string(m.rows()) + " × " +
                     std::to_string(m.cols()) + ", the problem needs " + std::to_string(rows) + " × " +
                     std::to_string(cols));
  }
}

}  // namespace

ExecutionResult execute(const Schedule& s, const Problem& p, const ExecuteOptions& o, const Inputs& in) {
  check_execution(s.name(), s.pass(), p, o);
  check_shape(in.q, p.n, p.d, "Q");
  check_shape(in.k, p.n_kv, p.d, "K");
  check_shape(in.v, p.n_kv, p.d, "V");
  if (s.pass() == Pass::bwd) check_shape(in.dout, p.n, p.d, "dO");
  const std::uint64_t passes = s.variant().starts_with("two-pass") ? 2 : 1;
  const Target t{s.name(), schedule_entry(s.name()).executor, s.pass(), ExecShape{p.n, p.n_kv, p.d, s.tiles().br, s.tiles().bc, passes}};
  return o.precision == Precision::fp32 ? execute_in<float>(t, in, o) : execute_in<double>(t, in, o);
}

}  // namespace exec

ExecutionResult execute(const Schedule& s, const Problem& p, const ExecuteOptions& o) {
  check_execution(s.name(), s.pass(), p, o);
  return exec::execute(s, p, o, exec::random_inputs(p.n, p.n_kv, p.d, o.seed, o.input_scale));
}

}  // namespace iosim
