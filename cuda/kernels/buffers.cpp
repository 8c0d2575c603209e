// AttentionBuffers: one cudaMalloc per tensor a KernelSpec touches (cuda/kernels/tensors.h), random
// inputs, NaN poison, and copies back to the host as doubles.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/kernels/fill.h"
#include "cuda/kernels/host_convert.h"
#include "cuda/kernels/launch.h"
#include "cuda/kernels/naive.h"
#include "cuda/kernels/paged_kv.h"
#include "cuda/kernels/tensors.h"
#include "cuda/runtime/check.h"

namespace iosim::gpu::detail {

namespace {

/// A byte whose repetition is a NaN in fp16, bf16 and fp32 (0xFFFF…: all-ones exponent, mantissa ≠ 0).
constexpr int kPoisonByte = 0xFF;

std::uint64_t mix_seed(std::uint64_t seed, Tensor t) {
  std::uint64_t x = seed + 0x9E3779B97F4A7C15ull * (index(t) + 1);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

void check_shape(const KernelSpec& s) {
  if (s.batch < 1 || s.heads < 1 || s.n < 1 || s.n_kv < 1 || s.d < 1) {
    throw std::invalid_argument("AttentionBuffers: batch, heads, n, n_kv and d must be at least 1 (got batch " +
                                std::to_string(s.batch) + ", heads " + std::to_string(s.heads) + ", n " +
                                std::to_string(s.n) + ", n_kv " + std::to_string(s.n_kv) + ", d " +
                                std::to_string(s.d) + ")");
  }
  if (s.kv_heads < 0 || s.heads % kv_head_count(s) != 0) {
    throw std::invalid_argument("AttentionBuffers: kv_heads (" + std::to_string(s.kv_heads) + ") must divide heads (" +
                                std::to_string(s.heads) + ")");
  }
  if (s.dtype != DType::fp16 && s.dtype != DType::bf16) {
    throw std::invalid_argument("AttentionBuffers: the element type must be fp16 or bf16, not " +
                                std::string(name(s.dtype)));
  }
}

}  // namespace

struct AttentionBuffers::Impl {
  std::array<void*, kTensorCount> ptr{};
  std::array<std::uint64_t, kTensorCount> count{};

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() {
    for (void* p : ptr) {
      if (p != nullptr) static_cast<void>(cudaFree(p));  // a destructor cannot throw; nothing to recover
    }
  }
};

AttentionBuffers::AttentionBuffers(const KernelSpec& spec) : spec_(spec), impl_(nullptr) {
  check_shape(spec);
  auto impl = std::make_unique<Impl>();
  for (const Tensor t : held_tensors(spec)) {
    const std::size_t i = index(t);
    impl->count[i] = tensor_elements(spec, t);
    IOSIM_CUDA_CHECK(cudaMalloc(&impl->ptr[i], tensor_bytes(spec, t)));
  }
  if (described(spec).library) naive_prepare();
  impl_ = impl.release();
}

AttentionBuffers::~AttentionBuffers() { delete impl_; }

void AttentionBuffers::fill_inputs(std::uint64_t seed, cudaStream_t stream) {
  for (const Tensor t : input_tensors(spec_)) fill_normal(device(t), elements(t), spec_.dtype, mix_seed(seed, t), stream);
  if (spec_.page_size > 0) {  // the block table: the model's, so that the pages lie where it counts them
    const std::vector<std::int32_t> table = block_table_of(spec_);
    IOSIM_CUDA_CHECK(cudaMemcpyAsync(device(Tensor::BT), table.data(), table.size() * sizeof(std::int32_t),
                                     cudaMemcpyHostToDevice, stream));
    IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream));  // `table` leaves scope
  }
}

void AttentionBuffers::poison_outputs(cudaStream_t stream) {
  for (const Tensor t : written_tensors(spec_)) {
    IOSIM_CUDA_CHECK(cudaMemsetAsync(device(t), kPoisonByte, tensor_bytes(spec_, t), stream));
  }
}

void* AttentionBuffers::device(Tensor t) const { return impl_->ptr[index(t)]; }

void* AttentionBuffers::grad_per_query_head(Tensor t) const {
  const Tensor scratch = t == Tensor::dK ? Tensor::dKexp : t == Tensor::dV ? Tensor::dVexp : t;
  return elements(scratch) > 0 ? device(scratch) : device(t);
}

std::uint64_t AttentionBuffers::elements(Tensor t) const { return impl_->count[index(t)]; }

std::vector<double> AttentionBuffers::to_host(Tensor t, cudaStream_t stream) const {
  const std::uint64_t count = elements(t);
  if (count == 0) return {};
  std::vector<double> out(count);
  if (storage_type(t, spec_.dtype) == DType::fp32) {
    std::vector<float> raw(count);
    IOSIM_CUDA_CHECK(cudaMemcpyAsync(raw.data(), device(t), count * sizeof(float), cudaMemcpyDeviceToHost, stream));
    IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < count; ++i) out[i] = static_cast<double>(raw[i]);
  } else {
    std::vector<std::uint16_t> raw(count);
    IOSIM_CUDA_CHECK(
        cudaMemcpyAsync(raw.data(), device(t), count * sizeof(std::uint16_t), cudaMemcpyDeviceToHost, stream));
    IOSIM_CUDA_CHECK(cudaStreamSynchronize(stream));
    const bool fp16 = spec_.dtype == DType::fp16;
    for (std::size_t i = 0; i < count; ++i) out[i] = fp16 ? half_bits_to_double(raw[i]) : bf16_bits_to_double(raw[i]);
  }
  return out;
}

}  // namespace iosim::gpu::detail
