// Executing the schedules on numbers (sim/exec): the executed tile order is the emitted one, correct
// runs sit at rounding level against attention in double, each online-softmax bug shows, and the two
// cases where no-rescale is quietly harmless (one K/V tile; a running max that never grows) are so.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/exec/inputs.h"
#include "sim/exec/reference.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// Records every transfer a schedule emits, in order.
class TransferLog final : public EventSink {
 public:
  void on_transfer(const Transfer& t) override { log.push_back(t); }
  void on_compute(const Compute&) override {}
  std::vector<Transfer> log;
};

/// SRAM large enough for any tile the tests ask for: execution does not depend on it.
HardwareSpec roomy() { return with_sram(8u << 20); }

std::unique_ptr<Schedule> build(const std::string& sched, Pass pass, const Problem& p, TileRequest t) {
  return make_schedule(sched, pass, context(p, roomy(), t));
}

ExecutionResult run(const std::string& sched, Pass pass, const Problem& p, TileRequest t, ExecuteOptions o) {
  return execute(*build(sched, pass, p, t), p, o);
}

ExecuteOptions options(Precision precision, Bug bug = Bug::none, double scale = 1.0) {
  ExecuteOptions o;
  o.precision = precision;
  o.bug = bug;
  o.input_scale = scale;
  return o;
}

/// The largest relative error over the outputs.
double worst(const std::vector<TensorError>& es) {
  double w = 0;
  for (const TensorError& e : es) w = std::max(w, e.rel_error);
  return w;
}

std::uint64_t nonfinite(const std::vector<TensorError>& es) {
  std::uint64_t n = 0;
  for (const TensorError& e : es) n += e.nonfinite;
  return n;
}

std::string show(const Transfer& t) {
  const char* dir = t.dir == Direction::hbm_to_sram ? "load" : t.dir == Direction::sram_to_hbm ? "store" : "reduce";
  return std::string(dir) + " " + std::string(name(t.tile.tensor)) + " rows " + std::to_string(t.tile.row) + "+" +
         std::to_string(t.tile.rows) + " cols " + std::to_string(t.tile.col) + "+" + std::to_string(t.tile.cols) +
         " ×" + std::to_string(t.times);
}

/// The index of the first transfer where the two lists differ (tensor, rows, columns, direction,
/// repeats), or the shorter length when one is a prefix of the other; nullopt when they are equal.
std::optional<std::size_t> first_difference(const std::vector<Transfer>& a, const std::vector<Transfer>& b) {
  for (std::size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
    const TileRef& x = a[k].tile;
    const TileRef& y = b[k].tile;
    const bool same = x.tensor == y.tensor && x.row == y.row && x.rows == y.rows && x.col == y.col &&
                      x.cols == y.cols && x.slice == y.slice && a[k].dir == b[k].dir && a[k].times == b[k].times;
    if (!same) return k;
  }
  if (a.size() != b.size()) return std::min(a.size(), b.size());
  return std::nullopt;
}

std::vector<Transfer> emitted(const Schedule& s) {
  TransferLog log;
  s.emit(Emitter(log, Walk::each));
  return log.log;
}

std::vector<Transfer> executed(const Schedule& s, const Problem& p) {
  ExecuteOptions o;
  o.precision = Precision::fp64;
  o.record = true;
  return execute(s, p, o).transfers;
}

/// Scores that fall along the keys, for every query: Q and K have positive entries and K's rows
/// shrink by half from one K/V tile to the next, so each later tile's scores sit below the first's.
exec::Inputs falling_scores(std::uint64_t n, std::uint64_t d, std::uint64_t bc) {
  exec::Inputs in = exec::random_inputs(n, n, d, 7, 1.0);
  in.q = in.q.cwiseAbs();
  in.k = in.k.cwiseAbs();
  for (Eigen::Index r = 0; r < in.k.rows(); ++r) {
    in.k.row(r) *= std::pow(0.5, static_cast<double>(static_cast<std::uint64_t>(r) / bc));
  }
  return in;
}

const std::vector<std::string> kTiled = {"flash1", "flash2"};
const std::vector<std::string> kAll = {"naive", "flash1", "flash2"};
const std::vector<Pass> kPasses = {Pass::fwd, Pass::bwd};

}  // namespace

TEST_CASE("the executed HBM transfers are the emitted ones, in order") {
  // Compared whole: tensor, rows, columns and direction of every transfer, l and m apart as flash1
  // emits them, flash2's atomic adds into dQacc as reduces. A backward's list is its own: the forward
  // it runs first for O and the statistics is left out, as the backward schedule emits none of it.
  struct Case {
    std::uint64_t n, n_kv, d, br, bc;
  };
  for (const Case c : {Case{256, 256, 32, 64, 64}, Case{200, 130, 16, 48, 32}, Case{37, 90, 8, 16, 128}}) {
    const Problem p = problem(c.n, c.d, 1, 1, c.n_kv);
    for (const std::string& sched : kAll) {
      for (Pass pass : kPasses) {
        CAPTURE(sched);
        CAPTURE(name(pass));
        CAPTURE(c.n);
        const auto s = build(sched, pass, p, tiles(c.br, c.bc));
        const std::vector<Transfer> want = emitted(*s);
        const std::vector<Transfer> got = executed(*s, p);
        CHECK(want.size() > 2);
        const std::optional<std::size_t> k = first_difference(got, want);
        if (k) {
          FAIL("transfer " << *k << ": executed "
                           << (*k < got.size() ? show(got[*k]) : std::string("nothing")) << ", emitted "
                           << (*k < want.size() ? show(want[*k]) : std::string("nothing")));
        }
      }
    }
  }
}

TEST_CASE("the order check can fail: two steps swapped, or another tile") {
  const Problem p = problem(100, 16);
  const auto s = build("flash2", Pass::fwd, p, tiles(32, 32));
  const std::vector<Transfer> got = executed(*s, p);
  std::vector<Transfer> swapped = emitted(*s);
  REQUIRE(!first_difference(got, swapped));
  std::swap(swapped[5], swapped[6]);  // K_j and V_j of one step
  CHECK(first_difference(got, swapped) == std::optional<std::size_t>(5));
  const std::vector<Transfer> other = emitted(*build("flash2", Pass::fwd, p, tiles(32, 64)));
  CHECK(first_difference(got, other).has_value());
}

TEST_CASE("correct runs sit at rounding level: every schedule, both passes, several tiles, ragged n") {
  // fp32 bound: each output sums at most n_kv = 300 products in fp32 (u = 6e-8) through two GEMMs
  // and the exponentials; measured errors are 1e-7 to 1e-6, so 1e-5 leaves a factor of ten.
  const Problem p = problem(300, 64, 1, 1, 280);
  for (const TileRequest t : {tiles(16, 16), tiles(64, 48), tiles(128, 128), tiles(37, 300)}) {
    for (const std::string& sched : kAll) {
      for (Pass pass : kPasses) {
        CAPTURE(sched);
        CAPTURE(name(pass));
        CAPTURE(*t.br);
        CAPTURE(*t.bc);
        const ExecutionResult r64 = run(sched, pass, p, t, options(Precision::fp64));
        const ExecutionResult r32 = run(sched, pass, p, t, options(Precision::fp32));
        REQUIRE(r64.outputs.size() == (pass == Pass::fwd ? 1u : 3u));
        CHECK(r64.correct.empty());
        CHECK(worst(r64.outputs) < 1e-12);
        CHECK(worst(r32.outputs) < 1e-5);
        CHECK(worst(r32.outputs) > 1e-9);  // fp32 really ran in fp32
        CHECK(nonfinite(r32.outputs) == 0);
        CHECK(r64.max_grew.has_value() == (sched != "naive"));
      }
    }
  }
}

TEST_CASE("each bug is well above rounding when there are several K/V tiles") {
  const Problem p = problem(256, 64);
  for (const std::string& sched : kTiled) {
    for (Pass pass : kPasses) {
      for (Bug bug : {Bug::no_rescale, Bug::wrong_l}) {
        CAPTURE(sched);
        CAPTURE(name(pass));
        CAPTURE(name(bug));
        const ExecutionResult r = run(sched, pass, p, tiles(32, 32), options(Precision::fp64, bug));
        REQUIRE(r.max_grew.has_value());
        CHECK(*r.max_grew > 0);
        CHECK(worst(r.correct) < 1e-12);
        CHECK(worst(r.outputs) > 1e-3);
        CHECK(nonfinite(r.outputs) == 0);  // quietly wrong: every value finite
        if (pass == Pass::bwd && bug == Bug::no_rescale) {
          // l and m are right, so the recomputed P and dV = Pᵀ dO are too: the bug reaches the
          // gradients only through O, in D = rowsum(dO ∘ O), hence dQ and dK.
          REQUIRE(r.outputs.size() == 3);
          CHECK(r.outputs[2].tensor == Tensor::dV);
          CHECK(r.outputs[2].rel_error < 1e-12);
          CHECK(r.outputs[0].rel_error > 1e-3);
          CHECK(r.outputs[1].rel_error > 1e-3);
        }
      }
    }
  }
}

TEST_CASE("no-max: exact until e^S overflows, then inf and NaN in fp32, where the correct run stays finite") {
  const Problem p = problem(256, 64);
  for (const std::string& sched : kTiled) {
    CAPTURE(sched);
    // Scores of order 1: e^S fits fp32, and without the max the sums are as exact as with it.
    const ExecutionResult small = run(sched, Pass::fwd, p, tiles(64, 64), options(Precision::fp32, Bug::no_max));
    CHECK(worst(small.outputs) < 1e-5);
    // Q and K × 10 at d = 64: scores of a few hundred, e^S beyond fp32's 3.4e38.
    for (Pass pass : kPasses) {
      CAPTURE(name(pass));
      const ExecutionResult big = run(sched, pass, p, tiles(64, 64), options(Precision::fp32, Bug::no_max, 10.0));
      CHECK(nonfinite(big.outputs) > 0);
      CHECK(nonfinite(big.correct) == 0);
      // Scores near 100 carry fp32 rounding of 100·u in the exponent: 1e-4 relative at most.
      CHECK(worst(big.correct) < 1e-3);
    }
    // fp64 holds e^S up to S = 709: the same inputs are fine there.
    const ExecutionResult wide = run(sched, Pass::fwd, p, tiles(64, 64), options(Precision::fp64, Bug::no_max, 10.0));
    CHECK(nonfinite(wide.outputs) == 0);
  }
}

TEST_CASE("one K/V tile: the rescale factor is never below 1, so no-rescale is the correct run") {
  const Problem p = problem(200, 64, 1, 1, 96);
  for (const std::string& sched : kTiled) {
    for (Precision prec : {Precision::fp64, Precision::fp32}) {
      CAPTURE(sched);
      const ExecutionResult r = run(sched, Pass::fwd, p, tiles(32, 128), options(prec, Bug::no_rescale));
      REQUIRE(r.max_grew.has_value());
      CHECK(*r.max_grew == 0);
      REQUIRE(r.outputs.size() == 1);
      CHECK(r.outputs[0].rel_error == r.correct[0].rel_error);
      CHECK(r.outputs[0].max_abs_error == r.correct[0].max_abs_error);
    }
    // The same problem with several K/V tiles does break.
    const ExecutionResult several = run(sched, Pass::fwd, p, tiles(32, 16), options(Precision::fp64, Bug::no_rescale));
    CHECK(*several.max_grew > 0);
    CHECK(worst(several.outputs) > 1e-3);
  }
}

TEST_CASE("scores falling along the keys: the running max never grows, and no-rescale is harmless") {
  const std::uint64_t n = 192, d = 32, bc = 32;
  const Problem p = problem(n, d);
  const exec::Inputs in = falling_scores(n, d, bc);
  for (const std::string& sched : kTiled) {
    CAPTURE(sched);
    const auto s = build(sched, Pass::fwd, p, tiles(48, bc));
    const ExecutionResult nr = exec::execute(*s, p, options(Precision::fp64, Bug::no_rescale), in);
    REQUIRE(nr.max_grew.has_value());
    CHECK(*nr.max_grew == 0);
    CHECK(worst(nr.correct) < 1e-12);
    CHECK(worst(nr.outputs) < 1e-12);
    // wrong-l: flash2 shifts every tile's P̃ by the running max, so with a max that never grows its
    // wrong-l is harmless too; flash1 shifts P̃ by the tile's own max and must rescale l̃.
    const ExecutionResult wl = exec::execute(*s, p, options(Precision::fp64, Bug::wrong_l), in);
    if (sched == "flash2") {
      CHECK(worst(wl.outputs) < 1e-12);
    } else {
      CHECK(worst(wl.outputs) > 1e-3);
    }
  }
  // The random inputs of the same shape do make the max grow, and no-rescale show.
  for (const std::string& sched : kTiled) {
    const ExecutionResult r = run(sched, Pass::fwd, p, tiles(48, bc), options(Precision::fp64, Bug::no_rescale));
    CHECK(*r.max_grew > 0);
    CHECK(worst(r.outputs) > 1e-3);
  }
}

TEST_CASE("the inputs are the seed's") {
  const Problem p = problem(64, 16);
  ExecuteOptions a = options(Precision::fp32);
  const ExecutionResult r1 = run("flash2", Pass::fwd, p, tiles(16, 16), a);
  const ExecutionResult r2 = run("flash2", Pass::fwd, p, tiles(16, 16), a);
  a.seed = 2;
  const ExecutionResult r3 = run("flash2", Pass::fwd, p, tiles(16, 16), a);
  CHECK(r1.outputs[0].rel_error == r2.outputs[0].rel_error);
  CHECK(r1.outputs[0].rel_error != r3.outputs[0].rel_error);
  const exec::Inputs x = exec::random_inputs(2, 3, 4, 9, 3.0), y = exec::random_inputs(2, 3, 4, 9, 1.0);
  CHECK(x.q(1, 2) == doctest::Approx(3.0 * y.q(1, 2)));
  CHECK(x.v(2, 3) == y.v(2, 3));
}

TEST_CASE("what cannot be executed is refused with one line") {
  const ExecuteOptions o = options(Precision::fp32);
  Problem big = problem(4097, 64);
  CHECK_THROWS_WITH_AS(check_execution("flash2", Pass::fwd, big, o), doctest::Contains("at most 4096"), InputError);
  big = problem(64, 64, 1, 1, 5000);
  CHECK_THROWS_AS(check_execution("flash2", Pass::fwd, big, o), InputError);
  Problem causal = problem(64, 64);
  causal.causal = true;
  CHECK_THROWS_WITH_AS(check_execution("flash1", Pass::fwd, causal, o), doctest::Contains("causal"), InputError);
  Problem gqa = problem(64, 64, 1, 4);
  gqa.kv_heads = 2;
  CHECK_THROWS_WITH_AS(check_execution("flash1", Pass::fwd, gqa, o), doctest::Contains("grouped-query"), InputError);
  CHECK_THROWS_WITH_AS(check_execution("flashdecode", Pass::fwd, problem(1, 64, 1, 1, 64), o),
                       doctest::Contains("not flashdecode"), InputError);
  CHECK_THROWS_WITH_AS(check_execution("naive", Pass::fwd, problem(64, 64), options(Precision::fp32, Bug::wrong_l)),
                       doctest::Contains("naive has none"), InputError);
  CHECK_THROWS_AS(check_execution("flash2", Pass::fwd, problem(64, 64), options(Precision::fp32, Bug::none, -1)),
                  InputError);
  CHECK_NOTHROW(check_execution("flash2", Pass::bwd, problem(4096, 128, 8, 16), o));
  CHECK(parse_bug("no-rescale") == Bug::no_rescale);
  CHECK(!parse_bug("rescale").has_value());
  CHECK(parse_precision("fp64") == Precision::fp64);
  CHECK(!parse_precision("fp16").has_value());
}

namespace {

Eigen::Index idx(std::size_t i) { return static_cast<Eigen::Index>(i); }

/// Attention written as plain loops in long double, independent of the reference's Eigen expressions.
std::vector<std::vector<long double>> loop_attention(const exec::Inputs& in) {
  const auto n = static_cast<std::size_t>(in.q.rows()), nkv = static_cast<std::size_t>(in.k.rows());
  const auto d = static_cast<std::size_t>(in.q.cols());
  const long double tau = 1.0L / std::sqrt(static_cast<long double>(d));
  std::vector<std::vector<long double>> o(n, std::vector<long double>(d, 0.0L));
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<long double> s(nkv);
    long double mx = -INFINITY, sum = 0;
    for (std::size_t c = 0; c < nkv; ++c) {
      s[c] = 0;
      for (std::size_t x = 0; x < d; ++x) s[c] += static_cast<long double>(in.q(idx(r), idx(x))) * in.k(idx(c), idx(x));
      s[c] *= tau;
      mx = std::max(mx, s[c]);
    }
    for (std::size_t c = 0; c < nkv; ++c) sum += std::exp(s[c] - mx);
    for (std::size_t c = 0; c < nkv; ++c) {
      const long double p = std::exp(s[c] - mx) / sum;
      for (std::size_t x = 0; x < d; ++x) o[r][x] += p * in.v(idx(c), idx(x));
    }
  }
  return o;
}

/// The loss whose gradients the backward computes: Σ O ∘ dO.
long double loss(const exec::Inputs& in) {
  const auto o = loop_attention(in);
  long double l = 0;
  for (std::size_t r = 0; r < o.size(); ++r) {
    for (std::size_t x = 0; x < o[r].size(); ++x) l += o[r][x] * in.dout(idx(r), idx(x));
  }
  return l;
}

}  // namespace

TEST_CASE("the reference is attention: plain loops agree with it, and its gradients with finite differences") {
  const exec::Inputs in = exec::random_inputs(5, 7, 3, 11, 1.5);
  const exec::MatrixD o = exec::reference_forward(in);
  const auto want = loop_attention(in);
  for (std::size_t r = 0; r < want.size(); ++r) {
    for (std::size_t x = 0; x < want[r].size(); ++x) CHECK(o(idx(r), idx(x)) == doctest::Approx(double(want[r][x])).epsilon(1e-12));
  }
  // Central differences of Σ O ∘ dO in long double: step 1e-5, error O(h²) ≈ 1e-10 against gradients O(1).
  const exec::Gradients g = exec::reference_backward(in);
  const auto check = [&](exec::MatrixD exec::Inputs::* m, const exec::MatrixD& grad, const char* name) {
    for (Eigen::Index r = 0; r < grad.rows(); ++r) {
      for (Eigen::Index c = 0; c < grad.cols(); ++c) {
        exec::Inputs up = in, down = in;
        const double h = 1e-5;
        (up.*m)(r, c) += h;
        (down.*m)(r, c) -= h;
        const double numeric = static_cast<double>((loss(up) - loss(down)) / (2 * h));
        CHECK_MESSAGE(grad(r, c) == doctest::Approx(numeric).epsilon(1e-7), name, " ", r, ",", c);
      }
    }
  };
  check(&exec::Inputs::q, g.dq, "dQ");
  check(&exec::Inputs::k, g.dk, "dK");
  check(&exec::Inputs::v, g.dv, "dV");
}
