// The eager schedule (standard attention as PyTorch's eager operators run it): its counts against
// naive's closed forms plus the passes PyTorch adds, its kernels and their families, and the time
// model's pricing of them at the config's measured rates (kernel_rates).
#include <doctest/doctest.h>

#include <cmath>

#include "sim/schedule/kernel_family.h"
#include "sim/timing/time_model.h"
#include "src/config/hardware_config.h"
#include "support/bad_input.h"
#include "support/cli_run.h"
#include "support/config_errors.h"
#include "support/fixtures.h"
#include "support/temp_file.h"

using namespace iosim;
using namespace iosim::test;

namespace {

HardwareSpec h200() { return config::load_hardware(std::string(IOSIM_SOURCE_DIR) + "/configs/h200.yaml"); }

struct Shape {
  std::uint64_t n, n_kv, d, batch, heads;
};

const Shape kShapes[] = {{1024, 1024, 64, 1, 1}, {1000, 1000, 64, 2, 3}, {257, 129, 128, 1, 2}, {33, 4097, 64, 1, 1}};

void check_contains(const std::string& text, const std::string& piece) {
  CAPTURE(text);
  CHECK(text.find(piece) != std::string::npos);
}

/// The loader's one line for the toy config with `text` after it.
std::string rates_error(const std::string& text) {
  const TempDir dir;
  return error_of(dir.write("m.yaml", std::string(kToyConfig) + text));
}

std::vector<std::string> kernel_names(const Schedule& s) {
  std::vector<std::string> out;
  for (const Kernel* k : s.kernels()) out.emplace_back(k->name());
  return out;
}

}  // namespace

TEST_CASE("eager forward: naive's counts and one more read and write of S (the scale's own kernel)") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.n);
    CAPTURE(s.n_kv);
    const Problem p = problem(s.n, s.d, s.batch, s.heads, s.n_kv);
    const ScheduleRun naive = count("naive", context(p));
    const ScheduleRun eager = count("eager", context(p));
    const std::uint64_t bh = s.batch * s.heads, scores = bh * s.n * s.n_kv;
    CHECK(reads(eager, Tensor::S) == reads(naive, Tensor::S) + scores);
    CHECK(writes(eager, Tensor::S) == writes(naive, Tensor::S) + scores);
    for (Tensor t : {Tensor::Q, Tensor::K, Tensor::V, Tensor::O, Tensor::P}) {
      CHECK(reads(eager, t) == reads(naive, t));
      CHECK(writes(eager, t) == writes(naive, t));
    }
    CHECK(eager.ledger.total(Level::hbm).elements().value == naive.ledger.total(Level::hbm).elements().value + 2 * scores);
    CHECK(eager.ledger.matmul_flops().value == naive.ledger.matmul_flops().value);
    CHECK(eager.ledger.vector_flops().value == naive.ledger.vector_flops().value);  // the scale moved, not added
  }
}

TEST_CASE("eager backward: naive's counts, plus dP ∘ P, the scale of dS and the copy of dK") {
  for (const Shape& s : kShapes) {
    CAPTURE(s.n);
    CAPTURE(s.n_kv);
    const Problem p = problem(s.n, s.d, s.batch, s.heads, s.n_kv);
    const ScheduleRun naive = count("naive", context(p), Pass::bwd);
    const ScheduleRun eager = count("eager", context(p), Pass::bwd);
    const std::uint64_t bh = s.batch * s.heads, scores = bh * s.n * s.n_kv, dk = bh * s.n_kv * s.d;
    CHECK(reads(eager, Tensor::dP) == reads(naive, Tensor::dP) + scores);
    CHECK(writes(eager, Tensor::dP) == writes(naive, Tensor::dP) + scores);
    CHECK(reads(eager, Tensor::P) == reads(naive, Tensor::P) + scores);
    CHECK(reads(eager, Tensor::dS) == reads(naive, Tensor::dS) + scores);
    CHECK(writes(eager, Tensor::dS) == writes(naive, Tensor::dS) + scores);
    CHECK(reads(eager, Tensor::dK) == reads(naive, Tensor::dK) + dk);
    CHECK(writes(eager, Tensor::dK) == writes(naive, Tensor::dK) + dk);
    CHECK(eager.ledger.total(Level::hbm).elements().value ==
          naive.ledger.total(Level::hbm).elements().value + 5 * scores + 2 * dk);
  }
}

TEST_CASE("eager: one pass over S whatever the row length, PyTorch's kernel sequence, no mask, no groups") {
  const Problem p = problem(100000, 64);  // naive reads S twice here (a row does not fit the SRAM)
  CHECK(reads(count("naive", context(p)), Tensor::S) == 2 * p.n * p.n_kv);
  CHECK(reads(count("eager", context(p)), Tensor::S) == 2 * p.n * p.n_kv);  // the scale's read and the softmax's

  const ScheduleContext ctx = context(problem(512, 64));
  CHECK(kernel_names(*make_schedule("eager", Pass::fwd, ctx)) ==
        std::vector<std::string>{"eager_qk", "eager_scale", "eager_softmax", "eager_pv"});
  CHECK(kernel_names(*make_schedule("eager", Pass::bwd, ctx)) ==
        std::vector<std::string>{"eager_dv", "eager_dp", "eager_ds_mul", "eager_ds", "eager_ds_scale", "eager_dq",
                                 "eager_dk", "eager_dk_copy"});
  CHECK(family_of("eager_softmax").name == "torch-softmax-fwd");
  CHECK(family_of("eager_ds").name == "torch-softmax-bwd");
  CHECK(family_of("eager_ds_mul").name == "torch-binary");
  CHECK(family_of("eager_qk").name == "library");  // cuBLAS

  Problem causal = problem(512, 64);
  causal.causal = true;
  CHECK_THROWS_WITH_AS(count("eager", context(causal)), doctest::Contains("eager: the causal mask is not modelled"),
                       InputError);
  Problem grouped = problem(512, 64, 1, 8);
  grouped.kv_heads = 2;
  CHECK_THROWS_WITH_AS(count("eager", context(grouped), Pass::bwd), doctest::Contains("eager: grouped K/V heads"),
                       InputError);
  const BadInput bad[] = {{{"-c", "h200", "--schedule", "eager", "--n", "512", "--d", "64", "--causal"},
                           "eager: the causal mask is not modelled"}};
  check_bad_inputs(bad);
}

TEST_CASE("a measured rate: a measured row length's own, log-linear between, the nearest outside") {
  const KernelRate r{"torch-softmax-fwd", {1024, 4096}, {2000, 1000}, ""};
  CHECK(rate_at(r, 1024) == 2000);
  CHECK(rate_at(r, 4096) == 1000);
  CHECK(rate_at(r, 2048) == doctest::Approx(1500));  // halfway in log2
  CHECK(rate_at(r, 512) == 2000);
  CHECK(rate_at(r, 65536) == 1000);
  CHECK(rate_at(KernelRate{"torch-unary", {}, {4300}, ""}, 12345) == 4300);
}

TEST_CASE("eager's library kernels are priced at the config's measured rates: bytes ÷ rate + launch") {
  const HardwareSpec hw = h200();
  const ScheduleContext ctx = context(problem(4096, 128, 4, 16), hw);
  const auto s = make_schedule("eager", Pass::fwd, ctx);
  const Prediction pred = predict(*s, ctx);
  const TimePrediction t = predict_time(*s, ctx, pred, hw);
  REQUIRE(t.kernels.size() == 4);
  const double launch = pipeline_figure(hw, &PipelineSpec::launch_us) * 1e-6;
  for (std::size_t i : {1u, 2u}) {
    const KernelTime& k = t.kernels[i];
    CAPTURE(k.name);
    const KernelRate* rate = kernel_rate(hw, k.family);
    REQUIRE(rate != nullptr);
    const double bytes = static_cast<double>(pred.kernels[i].l2_read_sectors + pred.kernels[i].l2_write_sectors) *
                         pred.sector_bytes;
    CHECK(bytes == doctest::Approx(2.0 * 4 * 16 * 4096 * 4096 * 2));  // S read, S (or P) written: fp16
    CHECK(k.binding == "measured");
    CHECK(k.total_s == doctest::Approx(launch + bytes / (rate_at(*rate, 4096) * 1e9)));
  }
  CHECK(t.kernels[2].family == "torch-softmax-fwd");
  CHECK(t.kernels[0].family == "library");

  // Without the measurements (a100.yaml has none) the same kernels take the roofline.
  const ScheduleContext a = context(problem(4096, 128, 4, 16));
  const auto sa = make_schedule("eager", Pass::fwd, a);
  const TimePrediction ta = predict_time(*sa, a, predict(*sa, a), a.hardware);
  CHECK(ta.kernels[2].family == "library");
  CHECK(ta.kernels[2].binding != "measured");
}

TEST_CASE("kernel_rates: read as written; a bad entry is one line naming the key") {
  const TempDir dir;
  const HardwareSpec hw = config::load_hardware(dir.write(
      "ok.yaml", std::string(kToyConfig) + "kernel_rates:\n    - {family: torch-unary, gb_per_s: 4304}\n"
                 "    - {family: torch-softmax-fwd, row_lengths: [1024, 4096], gb_per_s: [2741, 1293], source: a run}\n"));
  REQUIRE(hw.kernel_rates.size() == 2);
  CHECK(kernel_rate(hw, "torch-unary")->gb_per_s == std::vector<double>{4304});
  CHECK(kernel_rate(hw, "torch-softmax-fwd")->row_lengths == std::vector<std::uint64_t>{1024, 4096});
  CHECK(kernel_rate(hw, "torch-softmax-fwd")->source == "a run");
  CHECK(kernel_rate(hw, "torch-binary") == nullptr);

  check_contains(rates_error("kernel_rates:\n    - {family: fa2-fwd, gb_per_s: 100}\n"),
                      "kernel_rates[0].family: 'fa2-fwd' is not a family priced by measured rates (known: "
                      "torch-unary");
  check_contains(
      rates_error("kernel_rates:\n    - {family: torch-softmax-fwd, row_lengths: [1024, 2048], gb_per_s: [1]}\n"),
      "kernel_rates[0].gb_per_s: expected 2 rates (one a row length), got 1");
  check_contains(
      rates_error("kernel_rates:\n    - {family: torch-softmax-fwd, row_lengths: [2048, 1024], gb_per_s: [1, 2]}\n"),
      "kernel_rates[0].row_lengths: expected increasing row lengths");
  check_contains(
      rates_error("kernel_rates:\n    - {family: torch-unary, gb_per_s: 1}\n    - {family: torch-unary, gb_per_s: 2}\n"),
      "kernel_rates[1].family: 'torch-unary' is given twice");
  check_contains(rates_error("kernel_rates:\n    - {family: torch-unary, gb_per_s: -1}\n"),
                      "kernel_rates[0].gb_per_s: expected a positive number");
  check_contains(rates_error("kernel_rates:\n    - {family: torch-unary}\n"),
                      "kernel_rates[0].gb_per_s: missing (required)");
}
