// The element-wise kernels around the flash schedules; each is one pass over its tensors with 16-byte
// accesses (grid-stride loops), so that it moves exactly what its description says.
//   flash1 forward, kernel A:    writes O = 0 (element type), l = 0, m = −inf (fp32).
//   flash1 backward, kernel A:   writes dQ = dK = dV = 0 (element type).
//   flash2 backward, kernel A:   reads O, dO; writes D = rowsum(dO ∘ O) (fp32) and dQacc = 0 (fp32).
//   flash2 backward, kernel C:   reads dQacc (fp32); writes dQ (element type).
//   both backwards with grouped K/V heads (group g > 1), last: reads the per-query-head dK and dV
//                                the main kernel wrote (dKexp, dVexp); writes dK, dV, each the sum over
//                                its group of g query heads (in fp32, rounded once), as FlashAttention-2
//                                sums its dk_expanded. The model's <schedule>_bwd_group_sum
//                                (sim/schedule/group_sum.h).
// Run: enqueued by the launchers of flash1_fwd.cuh, flash1_bwd.cuh and flash2_bwd.cuh.
#include "cuda/kernels/flash_aux.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "cuda/kernels/common.cuh"
#include "cuda/kernels/launch_util.cuh"
#include "cuda/kernels/tensors.h"

namespace iosim::gpu::kern {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 4096;  // grid-stride beyond this: plenty for every GPU of the target list

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

__device__ std::int64_t global_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ std::int64_t grid_threads() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

/// Zeroes `chunks` 16-byte chunks of up to three tensors and sets `rows` floats of two more.
__global__ void __launch_bounds__(kThreads)
    fill_kernel(uint4* a, uint4* b, uint4* c, std::int64_t a_chunks, std::int64_t bc_chunks, float* x, float x_value,
                float* y, float y_value, std::int64_t rows) {
  const uint4 zero = make_uint4(0, 0, 0, 0);
  for (std::int64_t i = global_thread(); i < a_chunks; i += grid_threads()) a[i] = zero;
  if (b != nullptr) {
    for (std::int64_t i = global_thread(); i < bc_chunks; i += grid_threads()) {
      b[i] = zero;
      c[i] = zero;
    }
  }
  if (x != nullptr) {
    for (std::int64_t i = global_thread(); i < rows; i += grid_threads()) {
      x[i] = x_value;
      y[i] = y_value;
    }
  }
}

/// D[row] = Σ dO[row]·O[row] over d, D/8 lanes per row (16 bytes each); dQacc = 0.
template <class T, int D>
__global__ void __launch_bounds__(kThreads)
    flash2_bwd_preprocess_kernel(const T* o, const T* dout, float* dsum, float4* dq_acc, std::int64_t rows,
                                 std::int64_t acc_chunks) {
  constexpr int kLanesPerRow = D / kChunkElems;
  constexpr int kRowsPerBlock = kThreads / kLanesPerRow;
  static_assert(kLanesPerRow <= kWarpSize && kWarpSize % kLanesPerRow == 0);
  const int sub = static_cast<int>(threadIdx.x) % kLanesPerRow;
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kRowsPerBlock; base < rows;
       base += static_cast<std::int64_t>(gridDim.x) * kRowsPerBlock) {
    const std::int64_t row = base + static_cast<int>(threadIdx.x) / kLanesPerRow;
    float acc = 0.f;
    if (row < rows) {
      const uint4 ov = *reinterpret_cast<const uint4*>(o + row * D + sub * kChunkElems);
      const uint4 dv = *reinterpret_cast<const uint4*>(dout + row * D + sub * kChunkElems);
      const std::uint32_t ow[4] = {ov.x, ov.y, ov.z, ov.w};
      const std::uint32_t dw[4] = {dv.x, dv.y, dv.z, dv.w};
#pragma unroll
      for (int w = 0; w < 4; ++w) {
        const float2 a = unpack2<T>(ow[w]);
        const float2 b = unpack2<T>(dw[w]);
        acc = fmaf(a.x, b.x, fmaf(a.y, b.y, acc));
      }
    }
#pragma unroll
    for (int off = kLanesPerRow / 2; off > 0; off /= 2) acc += __shfl_xor_sync(kFullMask, acc, off);
    if (row < rows && sub == 0) dsum[row] = acc;
  }
  const float4 zero = make_float4(0.f, 0.f, 0.f, 0.f);
  for (std::int64_t i = global_thread(); i < acc_chunks; i += grid_threads()) dq_acc[i] = zero;
}

/// dQ = dQacc, 8 elements per thread: two 16-byte loads, one 16-byte store.
template <class T>
__global__ void __launch_bounds__(kThreads) flash2_bwd_convert_kernel(const float4* dq_acc, uint4* dq, std::int64_t chunks) {
  for (std::int64_t i = global_thread(); i < chunks; i += grid_threads()) {
    const float4 a = dq_acc[2 * i];
    const float4 b = dq_acc[2 * i + 1];
    dq[i] = make_uint4(pack2<T>(a.x, a.y), pack2<T>(a.z, a.w), pack2<T>(b.x, b.y), pack2<T>(b.z, b.w));
  }
}

/// out[h] = Σ_{i<group} in[h·group + i] for heads of `per_head` 16-byte chunks, dK and dV at once.
template <class T>
__global__ void __launch_bounds__(kThreads)
    group_sum_kernel(const uint4* dk_in, const uint4* dv_in, uint4* dk, uint4* dv, std::int64_t chunks,
                     std::int64_t per_head, int group) {
  for (std::int64_t i = global_thread(); i < 2 * chunks; i += grid_threads()) {
    const bool is_v = i >= chunks;
    const std::int64_t c = is_v ? i - chunks : i;
    const uint4* const in = is_v ? dv_in : dk_in;
    const std::int64_t first = (c / per_head) * group * per_head + c % per_head;
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    for (int g = 0; g < group; ++g) {
      const uint4 x = in[first + g * per_head];
      const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const float2 f = unpack2<T>(w[k]);
        acc[2 * k] += f.x;
        acc[2 * k + 1] += f.y;
      }
    }
    (is_v ? dv : dk)[c] = make_uint4(pack2<T>(acc[0], acc[1]), pack2<T>(acc[2], acc[3]), pack2<T>(acc[4], acc[5]),
                                     pack2<T>(acc[6], acc[7]));
  }
}

}  // namespace
}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {
namespace {

/// 16-byte chunks of a 16-bit tensor.
std::int64_t chunks16(const AttentionBuffers& buf, Tensor t) {
  return static_cast<std::int64_t>(buf.elements(t) / kern::kChunkElems);
}

template <class T, int D>
void preprocess(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const std::int64_t rows = head_rows(spec, spec.n);
  const std::int64_t acc_chunks = static_cast<std::int64_t>(buf.elements(Tensor::dQacc) / 4);
  constexpr int kRowsPerBlock = kern::kThreads / (D / kern::kChunkElems);
  const std::int64_t blocks =
      std::clamp<std::int64_t>((rows + kRowsPerBlock - 1) / kRowsPerBlock, 1, kern::kMaxBlocks);
  kern::flash2_bwd_preprocess_kernel<T, D><<<static_cast<unsigned>(blocks), kern::kThreads, 0, stream>>>(
      device_ptr<const T>(buf, Tensor::O), device_ptr<const T>(buf, Tensor::dO), device_ptr<float>(buf, Tensor::D),
      device_ptr<float4>(buf, Tensor::dQacc), rows, acc_chunks);
  IOSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void launch_flash1_fwd_init(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const std::int64_t chunks = chunks16(buf, Tensor::O);
  const std::int64_t rows = head_rows(spec, spec.n);
  kern::fill_kernel<<<kern::blocks_for(std::max(chunks, rows)), kern::kThreads, 0, stream>>>(
      device_ptr<uint4>(buf, Tensor::O), nullptr, nullptr, chunks, 0, device_ptr<float>(buf, Tensor::l), 0.f,
      device_ptr<float>(buf, Tensor::m), -INFINITY, rows);
  IOSIM_CUDA_CHECK_LAUNCH();
}

void launch_flash1_bwd_init(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  // dK, dV as the main kernel writes them: per query head when K/V heads are shared.
  const std::uint64_t expanded = expanded_grad_elements(spec);
  const std::int64_t q_chunks = chunks16(buf, Tensor::dQ);
  const std::int64_t kv_chunks =
      expanded > 0 ? static_cast<std::int64_t>(expanded / kern::kChunkElems) : chunks16(buf, Tensor::dK);
  kern::fill_kernel<<<kern::blocks_for(std::max(q_chunks, kv_chunks)), kern::kThreads, 0, stream>>>(
      device_ptr<uint4>(buf, Tensor::dQ), static_cast<uint4*>(buf.grad_per_query_head(Tensor::dK)),
      static_cast<uint4*>(buf.grad_per_query_head(Tensor::dV)), q_chunks, kv_chunks, nullptr, 0.f, nullptr, 0.f, 0);
  IOSIM_CUDA_CHECK_LAUNCH();
}

void launch_flash2_bwd_preprocess(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const bool fp16 = spec.dtype == DType::fp16;
  if (spec.d == 64) {
    fp16 ? preprocess<__half, 64>(spec, buf, stream) : preprocess<__nv_bfloat16, 64>(spec, buf, stream);
  } else {
    fp16 ? preprocess<__half, 128>(spec, buf, stream) : preprocess<__nv_bfloat16, 128>(spec, buf, stream);
  }
}

void launch_flash2_bwd_convert(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const std::int64_t chunks = chunks16(buf, Tensor::dQ);
  const auto* acc = device_ptr<const float4>(buf, Tensor::dQacc);
  auto* dq = device_ptr<uint4>(buf, Tensor::dQ);
  if (spec.dtype == DType::fp16) {
    kern::flash2_bwd_convert_kernel<__half><<<kern::blocks_for(chunks), kern::kThreads, 0, stream>>>(acc, dq, chunks);
  } else {
    kern::flash2_bwd_convert_kernel<__nv_bfloat16><<<kern::blocks_for(chunks), kern::kThreads, 0, stream>>>(acc, dq,
                                                                                                           chunks);
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

void launch_group_sum_kv_grads(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  if (expanded_grad_elements(spec) == 0) return;
  const std::int64_t chunks = chunks16(buf, Tensor::dK);
  const std::int64_t per_head = static_cast<std::int64_t>(spec.n_kv) * spec.d / kern::kChunkElems;
  const auto* dk_in = static_cast<const uint4*>(buf.grad_per_query_head(Tensor::dK));
  const auto* dv_in = static_cast<const uint4*>(buf.grad_per_query_head(Tensor::dV));
  const unsigned blocks = kern::blocks_for(2 * chunks);
  if (spec.dtype == DType::fp16) {
    kern::group_sum_kernel<__half><<<blocks, kern::kThreads, 0, stream>>>(
        dk_in, dv_in, device_ptr<uint4>(buf, Tensor::dK), device_ptr<uint4>(buf, Tensor::dV), chunks, per_head,
        group_size(spec));
  } else {
    kern::group_sum_kernel<__nv_bfloat16><<<blocks, kern::kThreads, 0, stream>>>(
        dk_in, dv_in, device_ptr<uint4>(buf, Tensor::dK), device_ptr<uint4>(buf, Tensor::dV), chunks, per_head,
        group_size(spec));
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace iosim::gpu::detail
