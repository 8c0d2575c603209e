// GPU tests of the causal mask and grouped-query attention (runtime parameters of every kernel:
// KernelSpec::causal, KernelSpec::kv_heads) against the double-precision CPU reference, outputs
// poisoned before each run (check_accuracy): every schedule × pass × type × head dim × compiled
// variant on shapes where the mask's diagonal crosses tiles, n ≠ n_kv both ways (n > n_kv leaves rows
// that see no key: their O and gradients are 0), n and n_kv not multiples of any tile, and groups of
// 2 to 8 query heads per K/V head (multi-query: one K/V head), with and without the mask.
// Tolerances as tests/gpu/test_kernels.cpp: 2e-3 (fp16), 1e-2 (bf16), relative, over each output.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "cuda/backend.h"
#include "cuda/kernels/tensors.h"
#include "cuda/reference/reference.h"
#include "sim/core/problem.h"

namespace {

using iosim::DType;
using iosim::gpu::Accuracy;
using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::KernelVariant;

struct Case {
  int batch;
  int heads;
  int kv_heads;  ///< 0: = heads
  int n;
  int n_kv;
  bool causal;
};

const std::vector<Case> kCases = {
    {1, 2, 0, 200, 200, true},   // causal, square, ragged
    {1, 2, 0, 200, 333, true},   // n < n_kv: every row sees the first 133 keys whole
    {1, 2, 0, 333, 200, true},   // n > n_kv: rows 0 … 132 see no key
    {2, 1, 0, 17, 45, true},     // below one tile
    {1, 4, 1, 200, 333, false},  // multi-query
    {2, 4, 2, 257, 130, false},  // grouped-query, two batches
    {1, 8, 1, 129, 129, true},   // multi-query, causal
    {1, 8, 2, 96, 150, true},    // grouped-query, causal, n < n_kv
};

constexpr std::uint64_t kSeed = 20261201;

std::string describe(const KernelSpec& s) {
  std::string t = std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd " : " bwd ") +
                  std::string(iosim::name(s.dtype)) + " d=" + std::to_string(s.d) + " B=" + std::to_string(s.batch) +
                  " H=" + std::to_string(s.heads) + " KV=" + std::to_string(iosim::gpu::kv_head_count(s)) +
                  " n=" + std::to_string(s.n) + " n_kv=" + std::to_string(s.n_kv) + (s.causal ? " causal" : "");
  if (!iosim::cuda_kernels(s.schedule)->library) {
    t += " tile " + std::to_string(s.br) + "x" + std::to_string(s.bc) + " warps " + std::to_string(s.warps) +
         " stages " + std::to_string(s.stages);
  }
  return t;
}

std::string describe(const Accuracy& a) {
  return a.tensor + ": rel_error " + std::to_string(a.rel_error) + " (tolerance " + std::to_string(a.tolerance) +
         "), max_abs_error " + std::to_string(a.max_abs_error) + ", unwritten " + std::to_string(a.unwritten);
}

std::vector<KernelVariant> variants_of(std::string_view algo, Direction pass, int d, DType t) {
  if (iosim::cuda_kernels(algo)->library) return {KernelVariant{}};
  return iosim::gpu::compiled_variants(algo, pass, d, t);
}

/// flash1 rounds O (dQ) at each K/V step: the same margin rule as tests/gpu/test_kernels.cpp.
bool flash1_error_too_close(const KernelSpec& s) {
  if (s.schedule != "flash1") return false;
  const double unit = s.dtype == DType::bf16 ? 2.3e-3 : 2.9e-4;
  const double tolerance = s.dtype == DType::bf16 ? 1e-2 : 2e-3;
  const double steps = std::ceil(static_cast<double>(s.n_kv) / s.bc);
  const double other = s.pass == Direction::fwd ? 1.0 : 3.0;
  return unit * std::sqrt(other + steps / 2) > 0.7 * tolerance;
}

}  // namespace

TEST_CASE("causal and grouped-query kernels match the double-precision reference") {
  int run = 0;
  for (const std::string_view algo : {"naive", "flash1", "flash2"}) {
    for (const Direction pass : {Direction::fwd, Direction::bwd}) {
      for (const DType t : {DType::fp16, DType::bf16}) {
        for (const int d : {64, 128}) {
          for (const KernelVariant& v : variants_of(algo, pass, d, t)) {
            for (const Case& c : kCases) {
              KernelSpec spec{algo, pass, c.batch, c.heads, c.n, c.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
              spec.kv_heads = c.kv_heads;
              spec.causal = c.causal;
              if (const std::string why = iosim::gpu::unsupported(spec); !why.empty()) {
                MESSAGE("not run: " << describe(spec) << ": " << why);
                continue;
              }
              if (flash1_error_too_close(spec)) {
                MESSAGE("not run: " << describe(spec) << ": too many rounding steps for the tolerance");
                continue;
              }
              ++run;
              for (const Accuracy& a : iosim::gpu::check_accuracy(spec, kSeed)) {
                CHECK_MESSAGE(a.passed(), describe(spec) << ": " << describe(a));
              }
            }
          }
        }
      }
    }
  }
  CHECK(run > 0);
}

TEST_CASE("the reference's mask and grouping (so that the cases above can fail)") {
  // Causal, n = n_kv: row 0 sees key 0 only, so O[0] = V[0]; with n > n_kv the first n − n_kv rows
  // see nothing (O = 0) and the next sees key 0 only. Grouped: two query heads on one K/V head give
  // what two heads on a duplicated K/V give, with dK, dV the sum of the two heads'.
  namespace ref = iosim::gpu::reference;
  const int n = 5, d = 3;
  std::vector<double> q(2 * n * d), k(2 * n * d), v(2 * n * d), dout(2 * n * d);
  for (std::size_t i = 0; i < q.size(); ++i) {
    q[i] = std::sin(1.0 + static_cast<double>(i));
    k[i] = std::cos(2.0 + 0.5 * static_cast<double>(i));
    v[i] = std::sin(0.3 * static_cast<double>(i * i));
    dout[i] = std::cos(0.7 * static_cast<double>(i));
  }
  const std::vector<double> q1(q.begin(), q.begin() + n * d), k1(k.begin(), k.begin() + n * d),
      v1(v.begin(), v.begin() + n * d);
  const std::vector<double> o = ref::attention_forward({1, n, n, d, 0.5, 1, true}, q1, k1, v1);
  const auto un = static_cast<std::size_t>(n), ud = static_cast<std::size_t>(d);
  for (std::size_t c = 0; c < ud; ++c) CHECK(o[c] == doctest::Approx(v1[c]).epsilon(1e-12));
  const std::vector<double> k2(k1.begin(), k1.begin() + 2 * d), v2(v1.begin(), v1.begin() + 2 * d);
  const std::vector<double> o_wide = ref::attention_forward({1, n, 2, d, 0.5, 1, true}, q1, k2, v2);
  for (std::size_t r = 0; r < un - 2; ++r) {
    for (std::size_t c = 0; c < ud; ++c) CHECK(o_wide[r * ud + c] == 0.0);
  }
  for (std::size_t c = 0; c < ud; ++c) CHECK(o_wide[(un - 2) * ud + c] == doctest::Approx(v2[c]).epsilon(1e-12));
  const std::vector<double> o_full = ref::attention_forward({1, n, n, d, 0.5, 1, false}, q1, k1, v1);
  CHECK(std::abs(o_full[0] - o[0]) > 1e-3);  // the mask changes row 0

  std::vector<double> kk(k1), vv(v1);
  kk.insert(kk.end(), k1.begin(), k1.end());
  vv.insert(vv.end(), v1.begin(), v1.end());
  const ref::Gradients grouped = ref::attention_backward({2, n, n, d, 0.5, 2, true}, q, k1, v1, dout);
  const ref::Gradients dup = ref::attention_backward({2, n, n, d, 0.5, 1, true}, q, kk, vv, dout);
  REQUIRE(grouped.dk.size() == k1.size());
  for (std::size_t i = 0; i < q.size(); ++i) CHECK(grouped.dq[i] == doctest::Approx(dup.dq[i]).epsilon(1e-12));
  for (std::size_t i = 0; i < k1.size(); ++i) {
    CHECK(grouped.dk[i] == doctest::Approx(dup.dk[i] + dup.dk[i + k1.size()]).epsilon(1e-12));
    CHECK(grouped.dv[i] == doctest::Approx(dup.dv[i] + dup.dv[i + v1.size()]).epsilon(1e-12));
  }
}

TEST_CASE("kv_heads must divide heads") {
  KernelSpec s{"flash2", Direction::fwd, 1, 4, 128, 128, 64, DType::fp16, 128, 64};
  s.kv_heads = 3;
  CHECK(iosim::gpu::unsupported(s).find("kv_heads") != std::string::npos);
  s.kv_heads = -1;
  CHECK(iosim::gpu::unsupported(s).find("kv_heads") != std::string::npos);
}

TEST_CASE("a grouped-query flash backward's buffers hold the model's dKexp, dVexp; nothing else does") {
  // The tensor table's rows (sim/core/tensor.h): the per-query-head dK, dV the main kernel writes and
  // the group sum reads, sized as the model sizes them (sim/schedule/group_sum.h).
  for (const std::string_view algo : {"naive", "flash1", "flash2"}) {
    for (const int kv : {0, 2}) {
      KernelSpec s{algo, Direction::bwd, 2, 8, 96, 150, 64, DType::fp16, 64, 64};
      s.kv_heads = kv;
      iosim::Problem p;
      p.batch = 2;
      p.heads = 8;
      p.kv_heads = static_cast<std::uint64_t>(kv);
      p.n = 96;
      p.n_kv = 150;
      p.d = 64;
      const bool scratch = !iosim::cuda_kernels(algo)->library && kv != 0;
      CAPTURE(describe(s));
      const std::vector<iosim::Tensor> held = iosim::gpu::detail::held_tensors(s);
      const bool holds = std::find(held.begin(), held.end(), iosim::Tensor::dKexp) != held.end();
      CHECK(holds == scratch);
      CHECK(iosim::gpu::detail::expanded_grad_elements(s) == (scratch ? 2u * 8 * 150 * 64 : 0u));
      if (scratch) {
        CHECK(iosim::gpu::detail::tensor_elements(s, iosim::Tensor::dVexp) == iosim::tensor_elements(p, iosim::Tensor::dVexp));
      }
      CHECK(iosim::gpu::detail::tensor_elements(s, iosim::Tensor::dK) == iosim::tensor_elements(p, iosim::Tensor::dK));
    }
  }
}
