// GPU tests of the attention kernels (cuda/kernels) against the double-precision CPU reference
// (cuda/reference), over every schedule × pass × type × head dim × compiled variant (tile × warps ×
// K/V stages), on ragged shapes.
//
// What the errors should be (‖out − ref‖ / ‖ref‖, inputs N(0, 1), so scores of order 1): each rounding
// to the element type adds a relative error of about u/√3 (u = 2^-11 for fp16, 2^-8 for bf16, so about
// 3e-4 and 2.3e-3). A forward rounds P and O (naive also S): about 4e-4 (fp16) and 3-4e-3 (bf16). A
// backward rounds P, dS (naive also dP) and its outputs: about 5e-4 and 4-5e-3. flash1 also rounds
// O (forward) or dQ (backward) at each of its T_c = ⌈n_kv / B_c⌉ steps; later steps shrink the
// earlier errors, which adds about √(T_c/2) roundings: at T_c = 16, 7e-3 in bf16 against a tolerance
// of 1e-2. Shapes where this estimate exceeds 0.7 × tolerance are listed, not run, so that a pass
// stays meaningful.
#include <doctest/doctest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "cuda/backend.h"
#include "cuda/kernels/launch.h"
#include "cuda/runtime/check.h"

namespace {

using iosim::DType;
using iosim::Tensor;
using iosim::gpu::Accuracy;
using iosim::gpu::Direction;
using iosim::gpu::KernelSpec;
using iosim::gpu::KernelVariant;

struct Shape {
  int batch;
  int heads;
  int n;
  int n_kv;
};

// Ragged in every way: n and n_kv not multiples of any tile, n ≠ n_kv, n below one tile, several heads.
const std::vector<Shape> kShapes = {{1, 2, 200, 333}, {3, 1, 257, 257}, {1, 2, 512, 512}, {2, 1, 17, 45}};

constexpr std::uint64_t kSeed = 20240611;

std::string describe(const KernelSpec& s) {
  std::string t = std::string(s.schedule) + (s.pass == Direction::fwd ? " fwd " : " bwd ") +
                  std::string(iosim::name(s.dtype)) + " d=" + std::to_string(s.d) + " B=" + std::to_string(s.batch) +
                  " H=" + std::to_string(s.heads) + " n=" + std::to_string(s.n) + " n_kv=" + std::to_string(s.n_kv);
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

/// The estimate of the header comment, as a fraction of the tolerance; flash1 only (the others do
/// not grow with the number of tiles).
bool flash1_error_too_close(const KernelSpec& s) {
  if (s.schedule != "flash1") return false;
  const double unit = s.dtype == DType::bf16 ? 2.3e-3 : 2.9e-4;
  const double tolerance = s.dtype == DType::bf16 ? 1e-2 : 2e-3;
  const double steps = std::ceil(static_cast<double>(s.n_kv) / s.bc);
  const double other = s.pass == Direction::fwd ? 1.0 : 3.0;  // roundings besides the per-step ones
  return unit * std::sqrt(other + steps / 2) > 0.7 * tolerance;
}

/// Every variant to test for a schedule: the compiled ones, or one of zeros for naive (cuBLAS tiles).
std::vector<KernelVariant> variants_of(std::string_view algo, Direction pass, int d, DType t) {
  if (iosim::cuda_kernels(algo)->library) return {KernelVariant{}};
  return iosim::gpu::compiled_variants(algo, pass, d, t);
}

class Stream {
 public:
  Stream() { IOSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { static_cast<void>(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

/// O of one forward run of `spec` on the inputs of `seed`.
std::vector<double> forward_output(const KernelSpec& spec, std::uint64_t seed) {
  const Stream stream;
  iosim::gpu::detail::AttentionBuffers buf(spec);
  buf.fill_inputs(seed, stream.get());
  buf.poison_outputs(stream.get());
  iosim::gpu::detail::launch(spec, buf, stream.get());
  return buf.to_host(Tensor::O, stream.get());
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff2 = 0, ref2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff2 += (a[i] - b[i]) * (a[i] - b[i]);
    ref2 += b[i] * b[i];
  }
  return std::sqrt(diff2 / ref2);
}

KernelSpec variant_spec(std::string_view algo, Direction pass, const Shape& sh, int d, DType t,
                        const KernelVariant& v) {
  return KernelSpec{algo, pass, sh.batch, sh.heads, sh.n, sh.n_kv, d, t, v.br, v.bc, v.warps, v.stages};
}

KernelSpec default_spec(std::string_view algo, Direction pass, const Shape& sh, int d, DType t) {
  KernelSpec s{algo, pass, sh.batch, sh.heads, sh.n, sh.n_kv, d, t, 0, 0};
  if (!iosim::cuda_kernels(algo)->library) {
    const auto tiles = iosim::gpu::compiled_tiles(algo, pass, d, t);
    REQUIRE_MESSAGE(!tiles.empty(), "no compiled tile for " << describe(s));
    s.br = tiles.front().first;
    s.bc = tiles.front().second;
  }
  return s;
}

}  // namespace

TEST_CASE("every compiled kernel matches the double-precision reference") {
  for (const std::string_view algo : {"naive", "flash1", "flash2"}) {
    for (const Direction pass : {Direction::fwd, Direction::bwd}) {
      for (const DType t : {DType::fp16, DType::bf16}) {
        for (const int d : {64, 128}) {
          for (const KernelVariant& v : variants_of(algo, pass, d, t)) {
            for (const Shape& sh : kShapes) {
              const KernelSpec spec = variant_spec(algo, pass, sh, d, t, v);
              if (const std::string why = iosim::gpu::unsupported(spec); !why.empty()) {
                MESSAGE("not run: " << describe(spec) << ": " << why);
                continue;
              }
              if (flash1_error_too_close(spec)) {
                MESSAGE("not run: " << describe(spec) << ": the rounding of O/dQ at each of its "
                                    << (sh.n_kv + v.bc - 1) / v.bc << " steps leaves the tolerance too little margin");
                continue;
              }
              for (const Accuracy& a : iosim::gpu::check_accuracy(spec, kSeed)) {
                CHECK_MESSAGE(a.passed(), describe(spec) << ": " << describe(a));
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the accuracy check sees an unwritten output") {
  // A flash2 forward with its O poisoned and nothing launched must report every element unwritten:
  // the poison is a NaN in the element type and check_accuracy's counting finds it.
  const KernelSpec spec = default_spec("flash2", Direction::fwd, {1, 1, 64, 64}, 64, DType::fp16);
  const Stream stream;
  iosim::gpu::detail::AttentionBuffers buf(spec);
  buf.poison_outputs(stream.get());
  std::uint64_t nan = 0;
  for (const double x : buf.to_host(Tensor::O, stream.get())) nan += std::isnan(x) ? 1u : 0u;
  CHECK(nan == buf.elements(Tensor::O));
}

TEST_CASE("flash2 forward gives the same bits on every run, every variant (race detector)") {
  // n_kv = 777 takes 7 to 25 K/V tiles: every stage of a 3-stage ring is refilled several times.
  for (const DType t : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      for (const KernelVariant& v : variants_of("flash2", Direction::fwd, d, t)) {
        const KernelSpec spec = variant_spec("flash2", Direction::fwd, {2, 2, 1000, 777}, d, t, v);
        if (const std::string why = iosim::gpu::unsupported(spec); !why.empty()) {
          MESSAGE("not run: " << describe(spec) << ": " << why);
          continue;
        }
        const Stream stream;
        iosim::gpu::detail::AttentionBuffers buf(spec);
        buf.fill_inputs(kSeed, stream.get());
        std::vector<std::vector<double>> runs;
        for (int run = 0; run < 2; ++run) {
          buf.poison_outputs(stream.get());
          iosim::gpu::detail::launch(spec, buf, stream.get());
          std::vector<double> o = buf.to_host(Tensor::O, stream.get());
          const std::vector<double> l = buf.to_host(Tensor::L, stream.get());
          o.insert(o.end(), l.begin(), l.end());
          runs.push_back(std::move(o));
        }
        std::uint64_t differ = 0, nan = 0;
        for (std::size_t i = 0; i < runs[0].size(); ++i) {
          nan += std::isnan(runs[0][i]) ? 1u : 0u;
          differ += runs[0][i] != runs[1][i] ? 1u : 0u;  // NaN ≠ NaN: counted here as well
        }
        CHECK_MESSAGE(nan == 0, describe(spec) << ": " << nan << " NaN in O and L");
        CHECK_MESSAGE(differ == 0, describe(spec) << ": " << differ << " elements of O and L differ between two runs");
      }
    }
  }
}

TEST_CASE("naive, flash1 and flash2 forward agree with each other") {
  const Shape sh{1, 3, 300, 300};
  for (const DType t : {DType::fp16, DType::bf16}) {
    for (const int d : {64, 128}) {
      const double tolerance = t == DType::bf16 ? 1e-2 : 2e-3;
      const std::vector<double> naive = forward_output(default_spec("naive", Direction::fwd, sh, d, t), kSeed);
      const std::vector<double> f1 = forward_output(default_spec("flash1", Direction::fwd, sh, d, t), kSeed);
      const std::vector<double> f2 = forward_output(default_spec("flash2", Direction::fwd, sh, d, t), kSeed);
      const std::string what = std::string(iosim::name(t)) + " d=" + std::to_string(d);
      // Each is within the tolerance of the exact result, so within twice of one another.
      CHECK_MESSAGE(relative_difference(f2, naive) <= 2 * tolerance, what << ": flash2 vs naive "
                                                                          << relative_difference(f2, naive));
      CHECK_MESSAGE(relative_difference(f1, naive) <= 2 * tolerance, what << ": flash1 vs naive "
                                                                          << relative_difference(f1, naive));
      CHECK_MESSAGE(relative_difference(f1, f2) <= 2 * tolerance, what << ": flash1 vs flash2 "
                                                                       << relative_difference(f1, f2));
    }
  }
}

TEST_CASE("compiled tiles and unsupported specs") {
  using iosim::gpu::compiled_tiles;
  using iosim::gpu::unsupported;
  const auto first = [](std::string_view a, Direction p, int d, DType t) {
    const auto tiles = compiled_tiles(a, p, d, t);
    return tiles.empty() ? std::pair{0, 0} : tiles.front();
  };
  CHECK(compiled_tiles("naive", Direction::fwd, 64, DType::fp16).empty());
  CHECK(compiled_tiles("flash2", Direction::fwd, 96, DType::fp16).empty());
  CHECK(first("flash2", Direction::fwd, 64, DType::fp16) == std::pair{128, 64});
  CHECK(first("flash2", Direction::fwd, 128, DType::bf16) == std::pair{64, 64});
  CHECK(first("flash1", Direction::fwd, 64, DType::fp16) == std::pair{64, 128});
  CHECK(first("flash1", Direction::fwd, 128, DType::fp16) == std::pair{128, 128});
  CHECK(first("flash1", Direction::bwd, 128, DType::bf16) == std::pair{64, 64});
  CHECK(first("flash2", Direction::bwd, 64, DType::fp16) == std::pair{64, 64});

  const KernelSpec ok = default_spec("flash2", Direction::fwd, {1, 1, 100, 100}, 64, DType::fp16);
  CHECK(unsupported(ok).empty());
  KernelSpec s = ok;
  s.d = 96;
  CHECK(unsupported(s).find("d = 96") != std::string::npos);
  s = ok;
  s.dtype = DType::fp32;
  CHECK(unsupported(s).find("fp32") != std::string::npos);
  s = ok;
  s.n = 0;
  CHECK(!unsupported(s).empty());
  s = ok;
  s.br = 16;
  s.bc = 16;
  CHECK(unsupported(s).find("not compiled") != std::string::npos);
  s = ok;
  s.br = s.bc = 0;
  CHECK(unsupported(s).find("no tile") != std::string::npos);
}

TEST_CASE("compiled variants: defaults first, warps and stages honoured") {
  using iosim::gpu::compiled_tiles;
  using iosim::gpu::compiled_variants;
  using iosim::gpu::kernel_shape;
  using iosim::gpu::unsupported;
  for (const std::string_view a : {"flash1", "flash2"}) {
    for (const Direction p : {Direction::fwd, Direction::bwd}) {
      for (const DType t : {DType::fp16, DType::bf16}) {
        for (const int d : {64, 128}) {
          const auto variants = compiled_variants(a, p, d, t);
          const auto tiles = compiled_tiles(a, p, d, t);
          REQUIRE(!variants.empty());
          CHECK(tiles.front() == std::pair{variants.front().br, variants.front().bc});
          for (std::size_t i = 0; i < tiles.size(); ++i) {
            for (std::size_t j = i + 1; j < tiles.size(); ++j) CHECK(tiles[i] != tiles[j]);
          }
          for (const KernelVariant& v : variants) {
            const KernelSpec pinned = variant_spec(a, p, {1, 1, 100, 100}, d, t, v);
            const iosim::gpu::KernelShape shape = kernel_shape(pinned);
            CHECK_MESSAGE(shape.warps == v.warps, describe(pinned));
            CHECK_MESSAGE(shape.stages == v.stages, describe(pinned));
            // Warps and stages left at 0: the tile's first variant.
            const KernelSpec loose = variant_spec(a, p, {1, 1, 100, 100}, d, t, {v.br, v.bc, 0, 0});
            const auto first = std::find_if(variants.begin(), variants.end(),
                                            [&](const KernelVariant& w) { return w.br == v.br && w.bc == v.bc; });
            CHECK(kernel_shape(loose).warps == first->warps);
            CHECK(kernel_shape(loose).stages == first->stages);
          }
        }
      }
    }
  }
  // The default kernel is today's: 4 warps, K/V double-buffered.
  const KernelSpec def = default_spec("flash2", Direction::fwd, {1, 1, 100, 100}, 64, DType::fp16);
  CHECK(kernel_shape(def).warps == 4);
  CHECK(kernel_shape(def).stages == 2);
  KernelSpec s = def;
  s.warps = 3;
  CHECK(unsupported(s).find("not compiled") != std::string::npos);
  s = def;
  s.stages = -1;
  CHECK(unsupported(s).find("warps and stages") != std::string::npos);

  // A full-menu build (more than the default compiled): every variant of the rules of
  // cuda/kernels/flash2_fwd.cuh, counted by hand. d = 64: B_r = 64 (4 warps) and 128 (8 warps) with
  // B_c ∈ {32, 64, 128}, B_r = 128 (4 warps) and 256 (8 warps) with B_c ∈ {32, 64}, each with 1, 2
  // and 3 stages: 30. d = 128: B_r = 64 (4 warps) and 128 (8 warps) with B_c ∈ {32, 64}: 12.
  const auto f2 = [](int d) { return compiled_variants("flash2", Direction::fwd, d, DType::fp16); };
  if (f2(64).size() > 1) {
    CHECK(f2(64).size() == 30);
    CHECK(f2(128).size() == 12);
    const auto has = [&](int d, KernelVariant v) {
      const auto all = f2(d);
      return std::any_of(all.begin(), all.end(), [&](const KernelVariant& w) {
        return w.br == v.br && w.bc == v.bc && w.warps == v.warps && w.stages == v.stages;
      });
    };
    CHECK(has(64, {256, 64, 8, 3}));
    CHECK(has(64, {64, 128, 4, 1}));
    CHECK(has(128, {128, 64, 8, 2}));
    CHECK(!has(64, {128, 128, 4, 2}));  // 224 fragment registers
    CHECK(!has(128, {64, 128, 4, 2}));  // ptxas spills
    // B_r = 256 has no 4-warp variant: its default is 8 warps, 2 stages.
    const KernelSpec big = variant_spec("flash2", Direction::fwd, {1, 1, 100, 100}, 64, DType::fp16, {256, 64, 0, 0});
    CHECK(kernel_shape(big).warps == 8);
    CHECK(kernel_shape(big).stages == 2);
  } else {
    MESSAGE("lean build: one flash2 forward variant per (d, type); the full-menu checks need -DIOSIM_CUDA_FULL_TILES=ON");
  }
}
