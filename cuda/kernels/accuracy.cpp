// check_accuracy(): one run of a KernelSpec on seeded N(0, 1) inputs, its outputs poisoned first,
// compared with the double-precision reference (cuda/reference).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/accuracy_compare.h"
#include "cuda/kernels/decode_plan.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/paged_kv.h"
#include "cuda/kernels/tensors.h"
#include "cuda/reference/reference.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu {

namespace {

class Stream {
 public:
  Stream() { IOSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { static_cast<void>(cudaStreamDestroy(s_)); }  // a destructor cannot throw
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

}  // namespace

std::vector<Accuracy> check_accuracy(const KernelSpec& spec, std::uint64_t seed) {
  if (const std::string why = unsupported(spec); !why.empty()) throw std::runtime_error("check_accuracy: " + why);
  if (described(spec).decode) return detail::check_decode_accuracy(spec, seed);
  const Stream stream;
  detail::AttentionBuffers buf(spec);
  buf.fill_inputs(seed, stream.get());
  if (spec.pass == Direction::bwd) detail::prepare_backward(spec, buf, stream.get());
  buf.poison_outputs(stream.get());
  detail::launch(spec, buf, stream.get());
  IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream.get()));

  const reference::Shape shape{spec.batch * spec.heads, spec.n,          spec.n_kv,  spec.d,
                               1.0 / std::sqrt(static_cast<double>(spec.d)), group_size(spec), spec.causal,
                               spec.window};
  const std::vector<double> q = buf.to_host(Tensor::Q, stream.get());
  std::vector<double> k = buf.to_host(Tensor::K, stream.get());
  std::vector<double> v = buf.to_host(Tensor::V, stream.get());
  if (spec.page_size > 0) {  // the reference reads K and V in token order
    const std::vector<std::int32_t> table = detail::block_table_of(spec);
    k = detail::unpage(spec, table, k);
    v = detail::unpage(spec, table, v);
  }
  const double tolerance = detail::tolerance_of(spec.dtype);
  std::vector<Accuracy> result;
  if (spec.pass == Direction::fwd) {
    result.push_back(detail::compare(Tensor::O, buf.to_host(Tensor::O, stream.get()), reference::attention_forward(shape, q, k, v),
                             tolerance));
  } else {
    const reference::Gradients g = reference::attention_backward(shape, q, k, v, buf.to_host(Tensor::dO, stream.get()));
    result.push_back(detail::compare(Tensor::dQ, buf.to_host(Tensor::dQ, stream.get()), g.dq, tolerance));
    result.push_back(detail::compare(Tensor::dK, buf.to_host(Tensor::dK, stream.get()), g.dk, tolerance));
    result.push_back(detail::compare(Tensor::dV, buf.to_host(Tensor::dV, stream.get()), g.dv, tolerance));
  }
  return result;
}

}  // namespace iosim::gpu
