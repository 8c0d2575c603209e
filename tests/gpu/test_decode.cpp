// GPU tests of the flashdecode kernels (cuda/kernels/flashdecode.cuh: split and combine, packed and per
// query head) against a double-precision CPU reference (cuda/kernels/decode_accuracy.cpp), every output
// poisoned before the run: 1 to 64 query rows, K/V caches up to 131,072 keys, ragged sizes, grouped-
// query, multi-query and multi-head, the split count of the model's heuristic and forced ones.
//
// Errors to expect (inputs N(0, 1)): P rounded to the element type before P·V and O rounded once
// (partials stay fp32), as in flash2's forward: about 4e-4 (fp16) and 3-4e-3 (bf16), against 2e-3 and
// 1e-2.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>
#include <string_view>

#include "cuda/backend.h"
#include "cuda/kernels/decode_plan.h"
#include "cuda/kernels/tensors.h"
#include "sim/schedule/flashdecode/flashdecode.h"

namespace {

using iosim::DType;
using iosim::Tensor;
using iosim::gpu::Accuracy;
using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::KernelVariant;

struct Case {
  int batch, heads, kv_heads, n, n_kv, splits;
};

// Ragged n_kv (not a multiple of B_c, and a last tile of fewer than 64 keys), n = 1 … 64, a packed row
// count above one tile (group 4 × 17 = 68 rows), group 1, 4 and 8, forced uneven splits.
const std::vector<Case> kCases = {
    {1, 32, 8, 1, 4096, 0}, {2, 8, 2, 17, 5000, 0}, {1, 4, 1, 64, 1000, 0}, {3, 6, 6, 5, 333, 0},
    {1, 8, 2, 3, 3001, 7},  {1, 2, 2, 1, 700, 3},   {2, 16, 2, 2, 20000, 0}};
// The longest cache of the issue: 131,072 keys, few heads (the reference costs 2 · n · n_kv · d per head).
const Case kLong = {1, 4, 1, 2, 131072, 0};

constexpr std::uint64_t kSeed = 20261201;

KernelSpec spec_of(std::string_view algo, const Case& c, int d, DType t, const KernelVariant& v) {
  KernelSpec s{algo, Direction::fwd, c.batch, c.heads, c.n, c.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
  s.kv_heads = c.kv_heads;
  s.splits = c.splits;
  return s;
}

std::string describe(const KernelSpec& s) {
  return std::string(s.schedule) + " " + std::string(iosim::name(s.dtype)) + " d=" + std::to_string(s.d) +
         " B=" + std::to_string(s.batch) + " H=" + std::to_string(s.heads) + " Hkv=" + std::to_string(s.kv_heads) +
         " n=" + std::to_string(s.n) + " n_kv=" + std::to_string(s.n_kv) + " stages " + std::to_string(s.stages) +
         " splits " + std::to_string(iosim::gpu::detail::decode_plan(s).splits);
}

std::string describe(const Accuracy& a) {
  return a.tensor + ": rel_error " + std::to_string(a.rel_error) + " (tolerance " + std::to_string(a.tolerance) +
         "), max_abs_error " + std::to_string(a.max_abs_error) + ", unwritten " + std::to_string(a.unwritten);
}

void check(const KernelSpec& spec) {
  const std::string why = iosim::gpu::unsupported(spec);
  REQUIRE_MESSAGE(why.empty(), describe(spec) << ": " << why);
  for (const Accuracy& a : iosim::gpu::check_accuracy(spec, kSeed)) {
    CHECK_MESSAGE(a.passed(), describe(spec) << ": " << describe(a));
  }
}

}  // namespace

TEST_CASE("flashdecode: every compiled variant matches the double-precision reference") {
  for (const std::string_view algo : {"flashdecode", "flashdecode-heads"}) {
    for (const DType t : {DType::fp16, DType::bf16}) {
      for (const int d : {64, 128}) {
        const std::vector<KernelVariant> variants = iosim::gpu::compiled_variants(algo, Direction::fwd, d, t);
        REQUIRE(variants.size() == 3);  // 3, 1 and 2 K/V stages
        for (const KernelVariant& v : variants) {
          for (const Case& c : kCases) check(spec_of(algo, c, d, t, v));
        }
        check(spec_of(algo, kLong, d, t, variants.front()));
      }
    }
  }
}

TEST_CASE("flashdecode: the split count is the model's, and a split run goes through the combine") {
  const int sms = iosim::gpu::device_info().sm_count;
  // The decoding speed target's shape: batch 8, 32 query heads on 8 K/V heads, one query, 32,768 keys,
  // d = 128.
  const Case c = {8, 32, 8, 1, 32768, 0};
  iosim::Problem p;
  p.batch = 8;
  p.heads = 32;
  p.kv_heads = 8;
  p.n = 1;
  p.n_kv = 32768;
  p.d = 128;
  for (const std::string_view algo : {"flashdecode", "flashdecode-heads"}) {
    const KernelVariant v = iosim::gpu::compiled_variants(algo, Direction::fwd, 128, DType::fp16).front();
    CHECK(v.br == 64);
    CHECK(v.bc == 128);
    const KernelSpec s = spec_of(algo, c, 128, DType::fp16, v);
    const bool packed = iosim::cuda_kernels(algo)->packed_heads;
    const auto model = iosim::flashdecode_splits(p, {64, 128}, static_cast<std::uint64_t>(sms), packed);
    CHECK(iosim::gpu::kernel_shape(s).splits == static_cast<int>(model));
    const bool split = model > 1;
    CHECK(iosim::gpu::detail::tensor_elements(s, Tensor::Opart) == (split ? model * 8 * 32 * 128 : 0));
    check(s);
  }
}

TEST_CASE("flashdecode: what it cannot run is refused in one line") {
  const KernelVariant v = iosim::gpu::compiled_variants("flashdecode", Direction::fwd, 64, DType::fp16).front();
  KernelSpec s = spec_of("flashdecode", {1, 8, 3, 1, 100, 0}, 64, DType::fp16, v);
  CHECK(iosim::gpu::unsupported(s).find("kv_heads (3) must divide heads (8)") != std::string::npos);
  s.kv_heads = 2;
  s.splits = 129;
  CHECK(iosim::gpu::unsupported(s).find("splits = 129") != std::string::npos);
  s.splits = 0;
  s.pass = Direction::bwd;
  CHECK(iosim::gpu::unsupported(s).find("no backward") != std::string::npos);
  KernelSpec f2{"flash2", Direction::fwd, 1, 8, 64, 64, 64, DType::fp16, 128, 64};
  f2.splits = 4;
  CHECK(iosim::gpu::unsupported(f2).find("flash2 has no K/V splits") != std::string::npos);
}
