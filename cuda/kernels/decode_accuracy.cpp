// check_decode_accuracy(): one run of a flashdecode spec (split and combine kernels) on seeded N(0, 1)
// inputs, every output (O, L and the partials) poisoned first, against softmax(scale · Q Kᵀ) V and
// L = ln Σ exp(scale · Q Kᵀ) computed in double, each query head reading its group's K/V head (a paged
// cache gathered into token order through the block table first). Causal, position i sees keys
// c ≤ i + n_kv − n, with a window W only those > i + n_kv − n − W (sim/core/mask.h); a row that sees
// none has O = 0 and L = −inf.
// Cost: 2 · batch · heads · n · n_kv · d flops in double: keep n small where n_kv is large.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuda/kernels/accuracy_compare.h"
#include "cuda/kernels/decode_plan.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/paged_kv.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu::detail {

namespace {

struct Reference {
  std::vector<double> o;  ///< [batch · heads, n, d]
  std::vector<double> l;  ///< [batch · heads, n]
};

Reference decode_reference(const KernelSpec& s, const std::vector<double>& q, const std::vector<double>& k,
                           const std::vector<double>& v) {
  const auto kvh = static_cast<std::size_t>(kv_heads_of(s)), heads = static_cast<std::size_t>(s.heads);
  const std::size_t group = heads / kvh;
  const auto d = static_cast<std::size_t>(s.d), n_kv = static_cast<std::size_t>(s.n_kv);
  const auto n = static_cast<std::size_t>(s.n), batch = static_cast<std::size_t>(s.batch);
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.d));
  Reference r;
  r.o.assign(q.size(), 0.0);
  r.l.assign(q.size() / d, 0.0);
  std::vector<double> score(n_kv);
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t qh = b * heads + h;
      const std::size_t kh = b * kvh + h / group;
      const double* kp = k.data() + kh * n_kv * d;
      const double* vp = v.data() + kh * n_kv * d;
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t row = qh * n + i;
        const double* qr = q.data() + row * d;
        const auto diag = static_cast<std::int64_t>(i + n_kv) - static_cast<std::int64_t>(n);  // i's last key
        const std::size_t end = s.causal ? static_cast<std::size_t>(std::clamp<std::int64_t>(diag + 1, 0, s.n_kv)) : n_kv;
        const std::size_t begin =
            s.causal && s.window > 0
                ? static_cast<std::size_t>(std::clamp<std::int64_t>(diag - s.window + 1, 0, static_cast<std::int64_t>(end)))
                : 0;
        if (begin == end) {
          r.l[row] = -INFINITY;
          continue;
        }
        double mx = -INFINITY;
        for (std::size_t j = begin; j < end; ++j) {
          double dot = 0;
          for (std::size_t c = 0; c < d; ++c) dot += qr[c] * kp[j * d + c];
          score[j] = scale * dot;
          mx = std::fmax(mx, score[j]);
        }
        double sum = 0;
        double* orow = r.o.data() + row * d;
        for (std::size_t j = begin; j < end; ++j) {
          const double p = std::exp(score[j] - mx);
          sum += p;
          for (std::size_t c = 0; c < d; ++c) orow[c] += p * vp[j * d + c];
        }
        for (std::size_t c = 0; c < d; ++c) orow[c] /= sum;
        r.l[row] = mx + std::log(sum);
      }
    }
  }
  return r;
}

}  // namespace

std::vector<Accuracy> check_decode_accuracy(const KernelSpec& spec, std::uint64_t seed) {
  cudaStream_t stream = nullptr;
  IOSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct Guard {
    cudaStream_t s;
    ~Guard() { static_cast<void>(cudaStreamDestroy(s)); }  // a destructor cannot throw
  } guard{stream};
  AttentionBuffers buf(spec);
  buf.fill_inputs(seed, stream);
  buf.poison_outputs(stream);
  launch(spec, buf, stream);
  IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> k = buf.to_host(Tensor::K, stream), v = buf.to_host(Tensor::V, stream);
  if (spec.page_size > 0) {  // the reference reads K and V in token order
    const std::vector<std::int32_t> table = block_table_of(spec);
    k = unpage(spec, table, k);
    v = unpage(spec, table, v);
  }
  const Reference ref = decode_reference(spec, buf.to_host(Tensor::Q, stream), k, v);
  const double tolerance = tolerance_of(spec.dtype);
  return {compare(Tensor::O, buf.to_host(Tensor::O, stream), ref.o, tolerance),
          compare(Tensor::L, buf.to_host(Tensor::L, stream), ref.l, tolerance)};
}

}  // namespace iosim::gpu::detail
