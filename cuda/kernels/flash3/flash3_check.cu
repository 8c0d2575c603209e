// flash3_check: the GPU harness of the flash3 forward and backward kernels (cuda/kernels/flash3/).
//
//   flash3_check list                       the kernels of this build, one line each
//   flash3_check correctness [--small] [--kernel K]
//                                           every kernel (--kernel K: the K-th of list) on every case
//                                           of kCases (--small: the first case only, for
//                                           compute-sanitizer), fresh random inputs
//                                           (normal, seeded), O and L poisoned with NaN before the run,
//                                           against a double-precision CPU reference; relative error
//                                           ‖out − ref‖₂ / ‖ref‖₂ ≤ 2e-3 (fp16), 1e-2 (bf16), and no
//                                           NaN left. One line per (kernel, case), where O is wrong
//                                           for a failed one; exit 1 on a failure, 3 on a kernel
//                                           still running after 20 s (a hang; one HANG line).
//   flash3_check bench --batch B --heads H --n N --d D [--dtype fp16|bf16] [--causal] [--plain]
//                      [--warmup W] [--runs R]
//                                           one kernel (the overlapped one; --plain: the plain order)
//                                           timed with CUDA events: W launches, then R launches each
//                                           timed, median / min / max and TFLOP/s (4·B·H·N²·D flops,
//                                           half that causal); one line.
//   flash3_check correctness-bwd [--small] [--kernel K] [--case C]
//                                           the backward kernels (list's "bwd" lines) on the same cases:
//                                           Q, K, V, dO random, O and L from the reference, every output
//                                           and scratch buffer poisoned; dQ, dK, dV against the reference
//                                           backward, same tolerances
//   flash3_check bench-bwd --batch B --heads H --n N --d D [--dtype T] [--causal] [--warmup W] [--runs R]
//                                           the whole backward and its main kernel timed (O and L from
//                                           the forward kernel); 10·B·H·N²·D flops, half causal
// --case C (correctness, correctness-bwd): the C-th case only.
// Exit codes: 0 pass, 1 a failed check, 2 bad arguments (one line on stderr), 3 a hang, 77 no sm_90 GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda/kernels/flash3/flash3_bwd.h"
#include "cuda/kernels/flash3/flash3_fwd.h"
#include "cuda/reference/reference.h"

namespace {

using iosim::gpu::flash3::BwdArgs;
using iosim::gpu::flash3::BwdKernel;
using iosim::gpu::flash3::DType;
using iosim::gpu::flash3::FwdArgs;
using iosim::gpu::flash3::FwdKernel;

[[noreturn]] void die(const std::string& what, int code) {
  std::fprintf(stderr, "flash3_check: %s\n", what.c_str());
  std::exit(code);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e), 1);
}

/// fp16/bf16 bits of x (round to nearest even) and the value they hold.
std::uint16_t to_bits(DType t, float x, double* held) {
  std::uint16_t b;
  if (t == DType::fp16) {
    const __half h = __float2half_rn(x);
    std::memcpy(&b, &h, 2);
    *held = static_cast<double>(__half2float(h));
  } else {
    const __nv_bfloat16 h = __float2bfloat16_rn(x);
    std::memcpy(&b, &h, 2);
    *held = static_cast<double>(__bfloat162float(h));
  }
  return b;
}

double from_bits(DType t, std::uint16_t b) {
  if (t == DType::fp16) {
    __half h;
    std::memcpy(&h, &b, 2);
    return static_cast<double>(__half2float(h));
  }
  __nv_bfloat16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<double>(__bfloat162float(h));
}

struct Case {
  int heads;     // batch · query heads
  int kv_heads;  // batch · K/V heads
  int n;
  int n_kv;
  bool causal;
  const char* what;
};

/// The CPU reference's description of case `c` at head dimension `d`.
iosim::gpu::reference::Shape reference_shape(const Case& c, int d) {
  iosim::gpu::reference::Shape s;
  s.heads = c.heads;
  s.n = c.n;
  s.n_kv = c.n_kv;
  s.d = d;
  s.scale = 1.0 / std::sqrt(static_cast<double>(d));
  s.group = c.heads / c.kv_heads;
  s.causal = c.causal;
  return s;
}

/// The shape of case `c` into a kernel's arguments (FwdArgs, BwdArgs).
template <class Args>
void set_shape(Args& a, const Case& c) {
  a.heads = c.heads;
  a.kv_heads = c.kv_heads;
  a.n = c.n;
  a.n_kv = c.n_kv;
  a.causal = c.causal;
}

// n and n_kv ragged (not multiples of the 128 tiles), n ≠ n_kv both ways under the mask (n > n_kv: rows
// that see no key), several heads (batch > 1) and grouped-query heads. The first is --small's.
constexpr Case kCases[] = {
    {2, 2, 200, 333, true, "small: causal, n < n_kv, ragged"},
    {2, 2, 128, 128, false, "one tile"},
    {3, 3, 64, 64, false, "n below one tile"},
    {2, 2, 200, 333, false, "ragged, n < n_kv"},
    {4, 4, 1000, 1000, false, "ragged, 8 K/V tiles, batch 2 x 2 heads"},
    {3, 3, 257, 257, true, "causal, ragged"},
    {2, 2, 333, 200, true, "causal, n > n_kv (rows that see no key)"},
    {2, 2, 150, 390, true, "causal, n < n_kv"},
    {4, 2, 300, 300, true, "causal, grouped-query (2 query heads per K/V head)"},
    {2, 2, 1024, 1024, true, "causal, 8 tiles"},
    {1, 1, 2048, 1536, false, "n > n_kv, 12 K/V tiles"},
};

struct Device {
  void* q = nullptr;
  void* k = nullptr;
  void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;
  ~Device() {
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(o);
    cudaFree(lse);
  }
};

/// L in double: max_c(scale·q·k) + ln Σ exp(scale·q·k − max) over the keys row r sees; +inf if none.
std::vector<double> reference_lse(const iosim::gpu::reference::Shape& s, const std::vector<double>& q,
                                  const std::vector<double>& k) {
  std::vector<double> out(static_cast<std::size_t>(s.heads) * s.n);
  std::vector<double> row(static_cast<std::size_t>(s.n_kv));
  for (int h = 0; h < s.heads; ++h) {
    const double* qh = q.data() + static_cast<std::size_t>(h) * s.n * s.d;
    const double* kh = k.data() + static_cast<std::size_t>(h / s.group) * s.n_kv * s.d;
    for (int r = 0; r < s.n; ++r) {
      const int last = s.causal ? std::min(s.n_kv - 1, r + s.n_kv - s.n) : s.n_kv - 1;
      if (last < 0) {
        out[static_cast<std::size_t>(h) * s.n + r] = std::numeric_limits<double>::infinity();
        continue;
      }
      double mx = -std::numeric_limits<double>::infinity();
      for (int c = 0; c <= last; ++c) {
        double dot = 0;
        for (int e = 0; e < s.d; ++e) dot += qh[static_cast<std::size_t>(r) * s.d + e] * kh[static_cast<std::size_t>(c) * s.d + e];
        row[c] = s.scale * dot;
        mx = std::max(mx, row[c]);
      }
      double sum = 0;
      for (int c = 0; c <= last; ++c) sum += std::exp(row[c] - mx);
      out[static_cast<std::size_t>(h) * s.n + r] = mx + std::log(sum);
    }
  }
  return out;
}

struct Error {
  double rel = 0;
  double max_abs = 0;
  std::size_t nan = 0;  // NaN left (the poison, or computed)
  std::size_t inf_mismatch = 0;
};

Error compare(const std::vector<double>& out, const std::vector<double>& ref) {
  Error e;
  double d2 = 0, r2 = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (std::isnan(out[i])) {
      ++e.nan;
      continue;
    }
    if (std::isinf(ref[i]) || std::isinf(out[i])) {  // L of a row that sees no key: +inf both
      if (out[i] != ref[i]) ++e.inf_mismatch;
      continue;
    }
    r2 += ref[i] * ref[i];
    d2 += (out[i] - ref[i]) * (out[i] - ref[i]);
    e.max_abs = std::max(e.max_abs, std::fabs(out[i] - ref[i]));
  }
  e.rel = r2 > 0 ? std::sqrt(d2 / r2) : std::sqrt(d2);
  return e;
}

/// Waits for the stream's launches; a kernel still running after 20 s is taken as hung (a deadlock
/// in its barriers): one HANG line naming `what`, and exit 3 (the process's end frees the GPU).
void wait_or_die(const std::string& what) {
  for (int i = 0; i < 2000; ++i) {
    const cudaError_t e = cudaStreamQuery(nullptr);
    if (e == cudaSuccess) return;
    if (e != cudaErrorNotReady) check_cuda(e, "kernel");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::printf("HANG %s: still running after 20 s\n", what.c_str());
  std::fflush(stdout);
  std::_Exit(3);
}

/// Where O is wrong, for a failed case: the worst element, and the elements off by more than 5% of
/// the largest |ref| counted by row within the 128-row tile (in 16-row bands: the 8 warps of the
/// two consumer warpgroups) and by column (in 8-column bands) — a layout mistake shows as a pattern.
void explain(const Case& c, int d, const std::vector<double>& out, const std::vector<double>& ref) {
  double big = 0;
  for (double r : ref) big = std::max(big, std::fabs(r));
  std::size_t worst = 0;
  double worst_err = -1;
  std::vector<long> by_row(8, 0), by_col(static_cast<std::size_t>(d / 8), 0);
  long bad = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const double err = std::isnan(out[i]) ? std::numeric_limits<double>::infinity() : std::fabs(out[i] - ref[i]);
    if (err > worst_err) {
      worst_err = err;
      worst = i;
    }
    if (err > 0.05 * big) {
      ++bad;
      const auto row = static_cast<long>(i / static_cast<std::size_t>(d)) % c.n;
      ++by_row[static_cast<std::size_t>((row % 128) / 16)];
      ++by_col[static_cast<std::size_t>(static_cast<long>(i % static_cast<std::size_t>(d)) / 8)];
    }
  }
  const auto row_of = [&](std::size_t i) { return static_cast<long>(i / static_cast<std::size_t>(d)); };
  std::printf("     worst O: head %ld row %ld col %ld got %.5g want %.5g; %ld elements off > 5%% of max|ref| %.3g\n",
              row_of(worst) / c.n, row_of(worst) % c.n, static_cast<long>(worst % static_cast<std::size_t>(d)), out[worst],
              ref[worst], bad, big);
  std::printf("     by row band (row %% 128 / 16):");
  for (long x : by_row) std::printf(" %ld", x);
  std::printf("\n     by column band (col / 8):");
  for (long x : by_col) std::printf(" %ld", x);
  std::printf("\n");
}

bool run_case(const FwdKernel& kern, const Case& c, std::uint64_t seed) {
  const int d = kern.d;
  const std::size_t nq = static_cast<std::size_t>(c.heads) * c.n * d;
  const std::size_t nkv = static_cast<std::size_t>(c.kv_heads) * c.n_kv * d;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto fill = [&](std::size_t count, std::vector<std::uint16_t>& bits, std::vector<double>& held) {
    bits.resize(count);
    held.resize(count);
    for (std::size_t i = 0; i < count; ++i) bits[i] = to_bits(kern.dtype, normal(rng), &held[i]);
  };
  std::vector<std::uint16_t> qb, kb, vb;
  std::vector<double> q, k, v;
  fill(nq, qb, q);
  fill(nkv, kb, k);
  fill(nkv, vb, v);

  Device dev;
  check_cuda(cudaMalloc(&dev.q, nq * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.k, nkv * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.v, nkv * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.o, nq * 2), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&dev.lse), static_cast<std::size_t>(c.heads) * c.n * 4), "cudaMalloc");
  check_cuda(cudaMemcpy(dev.q, qb.data(), nq * 2, cudaMemcpyHostToDevice), "copy Q");
  check_cuda(cudaMemcpy(dev.k, kb.data(), nkv * 2, cudaMemcpyHostToDevice), "copy K");
  check_cuda(cudaMemcpy(dev.v, vb.data(), nkv * 2, cudaMemcpyHostToDevice), "copy V");
  // Poison: 0xFFFF is a NaN in fp16 and bf16, 0xFFFFFFFF in fp32.
  check_cuda(cudaMemset(dev.o, 0xFF, nq * 2), "poison O");
  check_cuda(cudaMemset(dev.lse, 0xFF, static_cast<std::size_t>(c.heads) * c.n * 4), "poison L");

  FwdArgs a;
  a.q = dev.q;
  a.k = dev.k;
  a.v = dev.v;
  a.o = dev.o;
  a.lse = dev.lse;
  set_shape(a, c);
  check_cuda(kern.launch(a, nullptr), "launch");
  wait_or_die(kern.label() + " heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " n " +
              std::to_string(c.n) + " n_kv " + std::to_string(c.n_kv) + (c.causal ? " causal" : " full"));

  std::vector<std::uint16_t> ob(nq);
  std::vector<float> lb(static_cast<std::size_t>(c.heads) * c.n);
  check_cuda(cudaMemcpy(ob.data(), dev.o, nq * 2, cudaMemcpyDeviceToHost), "copy O");
  check_cuda(cudaMemcpy(lb.data(), dev.lse, lb.size() * 4, cudaMemcpyDeviceToHost), "copy L");
  std::vector<double> o(nq), l(lb.size());
  for (std::size_t i = 0; i < nq; ++i) o[i] = from_bits(kern.dtype, ob[i]);
  for (std::size_t i = 0; i < lb.size(); ++i) l[i] = static_cast<double>(lb[i]);

  const iosim::gpu::reference::Shape s = reference_shape(c, d);
  const std::vector<double> o_ref = iosim::gpu::reference::attention_forward(s, q, k, v);
  const Error eo = compare(o, o_ref);
  const Error el = compare(l, reference_lse(s, q, k));
  const double tol = kern.dtype == DType::fp16 ? 2e-3 : 1e-2;
  const bool ok = eo.rel <= tol && el.rel <= tol && eo.nan == 0 && el.nan == 0 && eo.inf_mismatch == 0 &&
                  el.inf_mismatch == 0;
  std::printf("%-4s %-22s heads %d/%d n %5d n_kv %5d %-6s  O rel %.2e max %.2e nan %zu  L rel %.2e max %.2e nan %zu inf-mismatch %zu  (tol %.0e)  %s\n",
              ok ? "PASS" : "FAIL", kern.label().c_str(), c.heads, c.kv_heads, c.n, c.n_kv, c.causal ? "causal" : "full",
              eo.rel, eo.max_abs, eo.nan, el.rel, el.max_abs, el.nan, el.inf_mismatch + eo.inf_mismatch, tol, c.what);
  if (!ok) explain(c, d, o, o_ref);
  return ok;
}

int int_arg(const char* flag, const char* value) {
  char* end = nullptr;
  const long x = std::strtol(value, &end, 10);
  if (end == value || *end != '\0' || x <= 0 || x > (1L << 30)) {
    die(std::string(flag) + ": expected a positive integer, got '" + value + "'", 2);
  }
  return static_cast<int>(x);
}

struct BenchArgs {
  int batch = 0, heads = 0, n = 0, d = 0, warmup = 5, runs = 30;
  DType dtype = DType::fp16;
  bool causal = false;
  bool plain = false;  // the plain-order kernel instead of the overlapped one
};

BenchArgs parse_bench(int argc, char** argv) {
  BenchArgs b;
  auto& [batch, heads, n, d, warmup, runs, dtype, causal, plain] = b;
  for (int i = 2; i < argc; ++i) {
    const std::string f = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) die(f + ": missing value", 2);
      return argv[++i];
    };
    if (f == "--batch") batch = int_arg("--batch", value());
    else if (f == "--heads") heads = int_arg("--heads", value());
    else if (f == "--n") n = int_arg("--n", value());
    else if (f == "--d") d = int_arg("--d", value());
    else if (f == "--warmup") warmup = int_arg("--warmup", value());
    else if (f == "--runs") runs = int_arg("--runs", value());
    else if (f == "--causal") causal = true;
    else if (f == "--plain") plain = true;
    else if (f == "--dtype") {
      const std::string t = value();
      if (t == "fp16") dtype = DType::fp16;
      else if (t == "bf16") dtype = DType::bf16;
      else die("--dtype: expected fp16 or bf16, got '" + t + "'", 2);
    } else {
      die("bench: unknown option '" + f + "'", 2);
    }
  }
  if (batch == 0 || heads == 0 || n == 0 || d == 0) die("bench: --batch, --heads, --n and --d are required", 2);
  return b;
}

int bench(const BenchArgs& args) {
  const auto& [batch, heads, n, d, warmup, runs, dtype, causal, plain] = args;
  const auto& all = iosim::gpu::flash3::fwd_kernels();
  const auto it = std::find_if(all.begin(), all.end(), [&](const FwdKernel& k) { return k.d == d && k.dtype == dtype && k.overlap != plain; });
  if (it == all.end()) {
    die("bench: no " + std::string(plain ? "plain " : "") + "kernel for " + name(dtype) + " d=" + std::to_string(d) +
            " in this build",
        2);
  }
  const std::size_t elems = static_cast<std::size_t>(batch) * heads * n * d;
  Device dev;
  check_cuda(cudaMalloc(&dev.q, elems * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.k, elems * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.v, elems * 2), "cudaMalloc");
  check_cuda(cudaMalloc(&dev.o, elems * 2), "cudaMalloc");
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&dev.lse), static_cast<std::size_t>(batch) * heads * n * 4), "cudaMalloc");
  {  // inputs: small random values (the timing does not depend on them; NaN-free)
    std::vector<std::uint16_t> host(elems);
    std::mt19937_64 rng(7);
    std::normal_distribution<float> normal(0.f, 1.f);
    double held;
    for (auto& b : host) b = to_bits(dtype, normal(rng), &held);
    check_cuda(cudaMemcpy(dev.q, host.data(), elems * 2, cudaMemcpyHostToDevice), "copy");
    check_cuda(cudaMemcpy(dev.k, host.data(), elems * 2, cudaMemcpyHostToDevice), "copy");
    check_cuda(cudaMemcpy(dev.v, host.data(), elems * 2, cudaMemcpyHostToDevice), "copy");
  }
  FwdArgs a;
  a.q = dev.q;
  a.k = dev.k;
  a.v = dev.v;
  a.o = dev.o;
  a.lse = dev.lse;
  a.heads = batch * heads;
  a.kv_heads = batch * heads;
  a.n = n;
  a.n_kv = n;
  a.causal = causal;
  for (int i = 0; i < warmup; ++i) check_cuda(it->launch(a, nullptr), "launch");
  wait_or_die("bench " + it->label() + " n " + std::to_string(n) + (causal ? " causal" : " full") + " (warm-up)");
  cudaEvent_t t0, t1;
  check_cuda(cudaEventCreate(&t0), "event");
  check_cuda(cudaEventCreate(&t1), "event");
  std::vector<float> ms(static_cast<std::size_t>(runs));
  for (int i = 0; i < runs; ++i) {
    check_cuda(cudaEventRecord(t0), "event");
    check_cuda(it->launch(a, nullptr), "launch");
    check_cuda(cudaEventRecord(t1), "event");
    check_cuda(cudaEventSynchronize(t1), "kernel");
    check_cuda(cudaEventElapsedTime(&ms[static_cast<std::size_t>(i)], t0, t1), "event");
  }
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  std::vector<std::uint16_t> ob(std::min<std::size_t>(elems, 1 << 20));
  check_cuda(cudaMemcpy(ob.data(), dev.o, ob.size() * 2, cudaMemcpyDeviceToHost), "copy O");
  const auto nans = static_cast<std::size_t>(
      std::count_if(ob.begin(), ob.end(), [&](std::uint16_t b) { return std::isnan(from_bits(dtype, b)); }));
  std::sort(ms.begin(), ms.end());
  const double median = ms[ms.size() / 2];
  const double flops = 4.0 * batch * heads * static_cast<double>(n) * n * d * (causal ? 0.5 : 1.0);
  std::printf("bench flash3%s %s d%d batch %d heads %d n %d %-6s  median %.4f ms  min %.4f  max %.4f  %.1f TFLOP/s  (%d runs; NaN in the first %zu of O: %zu)\n",
              plain ? "-plain" : "", name(dtype), d, batch, heads, n, causal ? "causal" : "full", median, static_cast<double>(ms.front()),
              static_cast<double>(ms.back()), flops / (median * 1e-3) / 1e12, runs, ob.size(), nans);
  return nans == 0 ? 0 : 1;
}

/// Device buffers of one backward run, freed at the end.
struct BwdDevice {
  std::vector<void*> ptrs;
  void* alloc(std::size_t bytes, bool poison) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");
    ptrs.push_back(p);
    if (poison) check_cuda(cudaMemset(p, 0xFF, bytes), "poison");
    return p;
  }
  ~BwdDevice() {
    for (void* p : ptrs) cudaFree(p);
  }
};

/// The backward on one case: Q, K, V, dO random (normal), O and L from the double-precision reference
/// (O rounded to the element type), every output and scratch buffer poisoned with NaN; dQ, dK, dV
/// against the reference's gradients (rel. error ≤ 2e-3 fp16, 1e-2 bf16, no NaN).
bool run_bwd_case(const BwdKernel& kern, const Case& c, std::uint64_t seed) {
  const int d = kern.d;
  const std::size_t nq = static_cast<std::size_t>(c.heads) * c.n * d;
  const std::size_t nkv = static_cast<std::size_t>(c.kv_heads) * c.n_kv * d;
  const std::size_t nkv_exp = static_cast<std::size_t>(c.heads) * c.n_kv * d;
  const std::size_t rows = static_cast<std::size_t>(c.heads) * c.n;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto fill = [&](std::size_t count, std::vector<std::uint16_t>& bits, std::vector<double>& held) {
    bits.resize(count);
    held.resize(count);
    for (std::size_t i = 0; i < count; ++i) bits[i] = to_bits(kern.dtype, normal(rng), &held[i]);
  };
  std::vector<std::uint16_t> qb, kb, vb, dob;
  std::vector<double> q, k, v, dout;
  fill(nq, qb, q);
  fill(nkv, kb, k);
  fill(nkv, vb, v);
  fill(nq, dob, dout);
  const iosim::gpu::reference::Shape s = reference_shape(c, d);
  const std::vector<double> o_ref = iosim::gpu::reference::attention_forward(s, q, k, v);
  const std::vector<double> l_ref = reference_lse(s, q, k);
  std::vector<std::uint16_t> ob(nq);
  double held;
  for (std::size_t i = 0; i < nq; ++i) ob[i] = to_bits(kern.dtype, static_cast<float>(o_ref[i]), &held);
  std::vector<float> lb(rows);
  for (std::size_t i = 0; i < rows; ++i) lb[i] = static_cast<float>(l_ref[i]);

  BwdDevice dev;
  BwdArgs a;
  auto upload = [&](const std::vector<std::uint16_t>& h) {
    void* p = dev.alloc(h.size() * 2, false);
    check_cuda(cudaMemcpy(p, h.data(), h.size() * 2, cudaMemcpyHostToDevice), "copy");
    return p;
  };
  a.q = upload(qb);
  a.k = upload(kb);
  a.v = upload(vb);
  a.o = upload(ob);
  a.dout = upload(dob);
  auto* lse = static_cast<float*>(dev.alloc(rows * 4, false));
  check_cuda(cudaMemcpy(lse, lb.data(), rows * 4, cudaMemcpyHostToDevice), "copy L");
  a.lse = lse;
  a.dsum = static_cast<float*>(dev.alloc(rows * 4, true));
  a.dq_acc = static_cast<float*>(dev.alloc(nq * 4, true));
  a.dq = dev.alloc(nq * 2, true);
  a.dk = dev.alloc(nkv * 2, true);
  a.dv = dev.alloc(nkv * 2, true);
  if (c.heads != c.kv_heads) {
    a.dk_exp = dev.alloc(nkv_exp * 2, true);
    a.dv_exp = dev.alloc(nkv_exp * 2, true);
  }
  set_shape(a, c);
  check_cuda(kern.launch(a, nullptr), "launch");
  wait_or_die(kern.label() + " heads " + std::to_string(c.heads) + "/" + std::to_string(c.kv_heads) + " n " +
              std::to_string(c.n) + " n_kv " + std::to_string(c.n_kv) + (c.causal ? " causal" : " full"));
  check_cuda(cudaGetLastError(), "kernel");
  auto download = [&](const void* p, std::size_t count) {
    std::vector<std::uint16_t> h(count);
    check_cuda(cudaMemcpy(h.data(), p, count * 2, cudaMemcpyDeviceToHost), "copy back");
    std::vector<double> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = from_bits(kern.dtype, h[i]);
    return out;
  };
  const std::vector<double> dq = download(a.dq, nq), dk = download(a.dk, nkv), dv = download(a.dv, nkv);
  const iosim::gpu::reference::Gradients g = iosim::gpu::reference::attention_backward(s, q, k, v, dout);
  const Error eq = compare(dq, g.dq), ek = compare(dk, g.dk), ev = compare(dv, g.dv);
  const double tol = kern.dtype == DType::fp16 ? 2e-3 : 1e-2;
  const bool ok = eq.rel <= tol && ek.rel <= tol && ev.rel <= tol && eq.nan + ek.nan + ev.nan == 0 &&
                  eq.inf_mismatch + ek.inf_mismatch + ev.inf_mismatch == 0;
  std::printf("%-4s %-22s heads %d/%d n %5d n_kv %5d %-6s  dQ rel %.2e  dK rel %.2e  dV rel %.2e  nan %zu/%zu/%zu  (tol %.0e)  %s\n",
              ok ? "PASS" : "FAIL", kern.label().c_str(), c.heads, c.kv_heads, c.n, c.n_kv, c.causal ? "causal" : "full",
              eq.rel, ek.rel, ev.rel, eq.nan, ek.nan, ev.nan, tol, c.what);
  if (!ok) {
    std::printf("     dQ:");
    explain(c, d, dq, g.dq);
    Case ckv = c;
    ckv.n = c.n_kv;
    std::printf("     dK:");
    explain(ckv, d, dk, g.dk);
    std::printf("     dV:");
    explain(ckv, d, dv, g.dv);
  }
  return ok;
}

/// The backward timed: the whole backward (preprocess, main kernel, dQ conversion) and the main
/// kernel alone, CUDA events around each launch, W warm-up launches, median of R. 10·B·H·N²·D flops
/// (half that causal).
int bench_bwd(const BenchArgs& args) {
  const auto& [batch, heads, n, d, warmup, runs, dtype, causal, plain] = args;
  (void)plain;
  const auto& all = iosim::gpu::flash3::bwd_kernels();
  const auto it = std::find_if(all.begin(), all.end(), [&](const BwdKernel& k) { return k.d == d && k.dtype == dtype; });
  if (it == all.end()) die(std::string("bench-bwd: no backward kernel for ") + name(dtype) + " d=" + std::to_string(d), 2);
  const std::size_t elems = static_cast<std::size_t>(batch) * heads * n * d;
  const std::size_t rows = static_cast<std::size_t>(batch) * heads * n;
  BwdDevice dev;
  std::vector<std::uint16_t> host(elems);
  std::mt19937_64 rng(7);
  std::normal_distribution<float> normal(0.f, 1.f);
  double held;
  auto random_tensor = [&]() {
    for (auto& b : host) b = to_bits(dtype, normal(rng), &held);
    void* p = dev.alloc(elems * 2, false);
    check_cuda(cudaMemcpy(p, host.data(), elems * 2, cudaMemcpyHostToDevice), "copy");
    return p;
  };
  BwdArgs a;
  a.q = random_tensor();
  a.k = random_tensor();
  a.v = random_tensor();
  a.dout = random_tensor();
  FwdArgs f;  // O and L from the forward kernel of the same type and d, where this build has one
  f.q = a.q;
  f.k = a.k;
  f.v = a.v;
  f.o = dev.alloc(elems * 2, false);
  f.lse = static_cast<float*>(dev.alloc(rows * 4, false));
  f.heads = f.kv_heads = batch * heads;
  f.n = f.n_kv = n;
  f.causal = causal;
  const auto& fwd = iosim::gpu::flash3::fwd_kernels();
  const auto fit = std::find_if(fwd.begin(), fwd.end(), [&](const FwdKernel& k) { return k.d == d && k.dtype == dtype; });
  if (fit == fwd.end()) die("bench-bwd: no forward kernel to make O and L", 2);
  check_cuda(fit->launch(f, nullptr), "forward");
  a.o = f.o;
  a.lse = f.lse;
  a.dsum = static_cast<float*>(dev.alloc(rows * 4, false));
  a.dq_acc = static_cast<float*>(dev.alloc(elems * 4, false));
  a.dq = dev.alloc(elems * 2, true);
  a.dk = dev.alloc(elems * 2, true);
  a.dv = dev.alloc(elems * 2, true);
  a.heads = a.kv_heads = batch * heads;
  a.n = a.n_kv = n;
  a.causal = causal;
  auto time = [&](cudaError_t (*launch)(const BwdArgs&, cudaStream_t), const char* what) {
    for (int i = 0; i < warmup; ++i) check_cuda(launch(a, nullptr), "launch");
    wait_or_die(std::string("bench-bwd ") + what + " (warm-up)");
    cudaEvent_t t0, t1;
    check_cuda(cudaEventCreate(&t0), "event");
    check_cuda(cudaEventCreate(&t1), "event");
    std::vector<float> ms(static_cast<std::size_t>(runs));
    for (int i = 0; i < runs; ++i) {
      check_cuda(cudaEventRecord(t0), "event");
      check_cuda(launch(a, nullptr), "launch");
      check_cuda(cudaEventRecord(t1), "event");
      check_cuda(cudaEventSynchronize(t1), "kernel");
      check_cuda(cudaEventElapsedTime(&ms[static_cast<std::size_t>(i)], t0, t1), "event");
    }
    cudaEventDestroy(t0);
    cudaEventDestroy(t1);
    std::sort(ms.begin(), ms.end());
    return ms;
  };
  const std::vector<float> full = time(it->launch, "whole");
  const std::vector<float> main_only = time(it->launch_main, "main");
  std::vector<std::uint16_t> ob(std::min<std::size_t>(elems, 1 << 20));
  std::size_t nans = 0;
  for (void* p : {a.dq, a.dk, a.dv}) {
    check_cuda(cudaMemcpy(ob.data(), p, ob.size() * 2, cudaMemcpyDeviceToHost), "copy");
    nans += static_cast<std::size_t>(std::count_if(ob.begin(), ob.end(), [&](std::uint16_t b) { return std::isnan(from_bits(dtype, b)); }));
  }
  const double flops = 10.0 * batch * heads * static_cast<double>(n) * n * d * (causal ? 0.5 : 1.0);
  const double med = full[full.size() / 2], med_main = main_only[main_only.size() / 2];
  std::printf("bench-bwd flash3 %s d%d batch %d heads %d n %d %-6s  median %.4f ms  min %.4f  max %.4f  %.1f TFLOP/s  main kernel %.4f ms %.1f TFLOP/s  (%d runs; NaN in dQ/dK/dV heads: %zu)\n",
              name(dtype), d, batch, heads, n, causal ? "causal" : "full", med, static_cast<double>(full.front()),
              static_cast<double>(full.back()), flops / (med * 1e-3) / 1e12, med_main, flops / (med_main * 1e-3) / 1e12, runs, nans);
  return nans == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) die("usage: flash3_check list | correctness [--small] | bench --batch B --heads H --n N --d D [...]", 2);
  const std::string cmd = argv[1];
  const auto& all = iosim::gpu::flash3::fwd_kernels();
  const auto& all_bwd = iosim::gpu::flash3::bwd_kernels();
  if (cmd == "list") {
    for (const auto& k : all) std::printf("%s  %d threads  %d B shared\n", k.label().c_str(), k.threads, k.smem_bytes);
    for (const auto& k : all_bwd) std::printf("%s  %d threads  %d B shared\n", k.label().c_str(), k.threads, k.smem_bytes);
    return 0;
  }
  const bool backward = cmd == "correctness-bwd" || cmd == "bench-bwd";
  if (cmd != "correctness" && cmd != "bench" && !backward) {
    die("unknown command '" + cmd + "' (list, correctness, bench, correctness-bwd, bench-bwd)", 2);
  }
  BenchArgs bench_args;
  bool small = false;
  int only_case = -1;  // --case C: the C-th of kCases only (1-based)
  int only = -1;  // --kernel K: the K-th kernel of `list` only (1-based on the command line)
  if (cmd == "bench" || cmd == "bench-bwd") {
    bench_args = parse_bench(argc, argv);
  } else {
    for (int i = 2; i < argc; ++i) {
      const std::string f = argv[i];
      if (f == "--small") {
        small = true;
      } else if (f == "--case" && i + 1 < argc) {
        only_case = int_arg("--case", argv[++i]) - 1;
      } else if (f == "--kernel" && i + 1 < argc) {
        only = int_arg("--kernel", argv[++i]) - 1;
        const std::size_t count = backward ? all_bwd.size() : all.size();
        if (only >= static_cast<int>(count)) {
          die("--kernel: " + std::to_string(only + 1) + " is past the " + std::to_string(count) + " kernels of this build", 2);
        }
      } else {
        die("correctness: unknown option '" + f + "' (--small, --kernel K, --case C)", 2);
      }
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "flash3_check: no GPU, skipped\n");
    return 77;
  }
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9 || prop.minor != 0) {
    std::fprintf(stderr, "flash3_check: %s is sm_%d%d, the kernels are sm_90a: skipped\n", prop.name, prop.major, prop.minor);
    return 77;
  }
  if (cmd == "bench") return bench(bench_args);
  if (cmd == "bench-bwd") return bench_bwd(bench_args);
  int failed = 0, total = 0;
  std::uint64_t seed = 1;
  if (backward) {
    for (std::size_t ki = 0; ki < all_bwd.size(); ++ki) {
      if (only >= 0 && static_cast<int>(ki) != only) continue;
      int ci = 0;
      for (const auto& c : kCases) {
        if (only_case >= 0 && ci++ != only_case) continue;
        ++total;
        if (!run_bwd_case(all_bwd[ki], c, seed++)) ++failed;
        if (small) break;
      }
    }
    std::printf("flash3_check correctness-bwd on %s: %d of %d passed\n", prop.name, total - failed, total);
    return failed == 0 ? 0 : 1;
  }
  for (std::size_t ki = 0; ki < all.size(); ++ki) {
    if (only >= 0 && static_cast<int>(ki) != only) continue;
    const auto& k = all[ki];
    int ci = 0;
    for (const auto& c : kCases) {
      if (only_case >= 0 && ci++ != only_case) continue;
      ++total;
      if (!run_case(k, c, seed++)) ++failed;
      if (small) break;
    }
  }
  std::printf("flash3_check correctness on %s: %d of %d passed\n", prop.name, total - failed, total);
  return failed == 0 ? 0 : 1;
}
