// naive — standard attention (Algorithm 0 of the FlashAttention paper) and its backward, with every
// n × n_kv intermediate in HBM. GEMMs are cublasGemmStridedBatchedEx over batch·kv_heads (fp16/bf16
// in and out, fp32 compute), each over the group·n query rows of a K/V head (grouped-query attention:
// dK and dV come out summed over the group); the row kernels are one block per row. A causal mask, and
// a sliding window of W keys ending at each row's diagonal, are applied by the softmax kernel as it reads
// S (S is computed whole, as the model counts it); a row that sees no key (n > n_kv) gets P = 0, and so
// the backward's dS is 0 wherever P is.
//
// Forward:   S = scale·Q Kᵀ  (cuBLAS; reads Q, K, writes S)
//            P = softmax(S)  (row kernel; reads S once when a row fits the shared memory one block may
//                             use, cudaDevAttrMaxSharedMemoryPerBlockOptin, else twice: max and sum
//                             online, then normalise; writes P)
//            O = P V         (cuBLAS; reads P, V, writes O)
// Backward:  dV = Pᵀ dO; dP = dO Vᵀ (cuBLAS; dP in the element type)
//            dS = P ∘ (dP − rowsum(P ∘ dP)) (row kernel; reads rows of P and dP once when a row of each
//                             fits, else twice; writes dS in the element type)
//            dQ = scale·dS K; dK = scale·dSᵀ Q (cuBLAS)
// Row-major [rows × cols] buffers are column-major [cols × rows] to cuBLAS, so each product C = A·B is
// asked for as Cᵀ = Bᵀ·Aᵀ (the comments beside the calls give the column-major reading).
// Rows are read with 16-byte accesses when n_kv is a multiple of 8 (rows 16-byte aligned), else with
// 2-byte accesses (still coalesced: the same sectors).
//
// Run: iosim::gpu::detail::launch with KernelSpec{"naive", …}; tested in tests/gpu/test_kernels.cpp.
#include "cuda/kernels/naive.h"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "cuda/kernels/common.cuh"
#include "cuda/kernels/launch_util.cuh"

#define IOSIM_CUBLAS_CHECK(call)                                                                 \
  do {                                                                                           \
    const cublasStatus_t iosim_st_ = (call);                                                     \
    if (iosim_st_ != CUBLAS_STATUS_SUCCESS) {                                                    \
      ::iosim::gpu::throw_cuda(#call, cublasGetStatusString(iosim_st_), __FILE__, __LINE__);     \
    }                                                                                            \
  } while (0)

namespace iosim::gpu::kern {
namespace {

constexpr int kRowThreads = 256;
constexpr int kRowWarps = kRowThreads / kWarpSize;
constexpr std::size_t kRowReserve = 256;  ///< bytes of the block's shared memory kept for reductions

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

/// The reduction of v over the block, returned to every thread. `scratch` holds kRowWarps floats.
template <class Op>
__device__ float block_reduce(float v, float* scratch, Op op) {
#pragma unroll
  for (int off = kWarpSize / 2; off > 0; off /= 2) v = op(v, __shfl_xor_sync(kFullMask, v, off));
  __syncthreads();  // the previous reduction's readers are done with scratch
  if (threadIdx.x % kWarpSize == 0) scratch[threadIdx.x / kWarpSize] = v;
  __syncthreads();
  v = scratch[0];
#pragma unroll
  for (int w = 1; w < kRowWarps; ++w) v = op(v, scratch[w]);
  return v;
}

/// (m, s) ← the online-softmax merge of (m, s) and (m2, s2): s = Σ exp(x − m) over both sets.
__device__ void online_merge(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  if (mn == -INFINITY) return;  // both empty
  s = s * expf(m - mn) + s2 * expf(m2 - mn);
  m = mn;
}

/// Eight elements of a 16-byte chunk as floats.
template <class T>
__device__ void unpack8(const uint4& x, float (&f)[8]) {
  const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 p = unpack2<T>(w[i]);
    f[2 * i] = p.x;
    f[2 * i + 1] = p.y;
  }
}
template <class T>
__device__ uint4 pack8(const float (&f)[8]) {
  return make_uint4(pack2<T>(f[0], f[1]), pack2<T>(f[2], f[3]), pack2<T>(f[4], f[5]), pack2<T>(f[6], f[7]));
}

/// The elements of one row, in chunks: 8 per 16-byte chunk when kVec, else 1. Chunk c of a row is
/// always handled by thread c % blockDim.x, so a thread re-reads only what it cached itself.
template <class T, bool kVec>
struct RowChunks {
  static constexpr int kWidth = kVec ? 8 : 1;
  __device__ static int count(int ncols) { return kVec ? ncols / 8 : ncols; }
  __device__ static void load(const T* row, int c, float (&f)[kWidth]) {
    if constexpr (kVec) {
      unpack8<T>(reinterpret_cast<const uint4*>(row)[c], f);
    } else {
      f[0] = to_float(row[c]);
    }
  }
  __device__ static void store(T* row, int c, const float (&f)[kWidth]) {
    if constexpr (kVec) {
      reinterpret_cast<uint4*>(row)[c] = pack8<T>(f);
    } else {
      row[c] = static_cast<T>(f[0]);
    }
  }
  __device__ static void copy(T* dst, const T* src, int c) {
    if constexpr (kVec) {
      reinterpret_cast<uint4*>(dst)[c] = reinterpret_cast<const uint4*>(src)[c];
    } else {
      dst[c] = src[c];
    }
  }
};

/// The keys one row sees, [first, last]: elements of chunk c outside them set to −inf.
struct Visible {
  int first, last;
};

template <int W>
__device__ void mask_chunk(float (&f)[W], int c, Visible v) {
#pragma unroll
  for (int e = 0; e < W; ++e) {
    if (c * W + e > v.last || c * W + e < v.first) f[e] = -INFINITY;
  }
}

/// The keys row `row` (over all heads, `n` rows each) sees: up to row mod n + n_kv − n when causal, else
/// every key; with a window of W keys (causal only) the W ending there. last < 0 when it sees none (P = 0).
__device__ Visible visible_keys(std::int64_t row, int n, int ncols, bool causal, int window) {
  const int last = causal ? static_cast<int>(row % n) + ncols - n : ncols - 1;
  return {window > 0 ? last - window + 1 : 0, last};
}

/// exp(x − m) with the maximum m of a row that may have no visible key (m = −inf): then 0.
__device__ float exp_shifted(float x, float m) { return m == -INFINITY ? 0.f : expf(x - m); }

/// P = softmax(S) row by row, S read once: the row is cached in shared memory (ncols elements).
template <class T, bool kVec>
__global__ void __launch_bounds__(kRowThreads) softmax_one_pass_kernel(const T* s, T* p, int ncols, int n, bool causal,
                                                                           int window) {
  using R = RowChunks<T, kVec>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const cache = reinterpret_cast<T*>(smem_raw);
  __shared__ float scratch[kRowWarps];
  const std::int64_t row = blockIdx.x;
  const T* const src = s + row * ncols;
  T* const dst = p + row * ncols;
  const int chunks = R::count(ncols);
  const Visible seen = visible_keys(row, n, ncols, causal, window);
  float f[R::kWidth];
  float mx = -INFINITY;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::copy(cache, src, c);
    R::load(cache, c, f);
    mask_chunk(f, c, seen);
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) mx = fmaxf(mx, f[e]);
  }
  mx = block_reduce(mx, scratch, MaxOp{});
  float sum = 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::load(cache, c, f);
    mask_chunk(f, c, seen);
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) sum += exp_shifted(f[e], mx);
  }
  sum = block_reduce(sum, scratch, SumOp{});
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::load(cache, c, f);
    mask_chunk(f, c, seen);
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) f[e] = exp_shifted(f[e], mx) * inv;
    R::store(dst, c, f);
  }
}

/// P = softmax(S) row by row, S read twice: max and sum online, then normalise.
template <class T, bool kVec>
__global__ void __launch_bounds__(kRowThreads) softmax_two_pass_kernel(const T* s, T* p, int ncols, int n, bool causal,
                                                                           int window) {
  using R = RowChunks<T, kVec>;
  __shared__ float scratch_m[kRowWarps];
  __shared__ float scratch_s[kRowWarps];
  const std::int64_t row = blockIdx.x;
  const T* const src = s + row * ncols;
  T* const dst = p + row * ncols;
  const int chunks = R::count(ncols);
  const Visible seen = visible_keys(row, n, ncols, causal, window);
  float f[R::kWidth];
  float m = -INFINITY, sum = 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::load(src, c, f);
    mask_chunk(f, c, seen);
    float cm = f[0];
#pragma unroll
    for (int e = 1; e < R::kWidth; ++e) cm = fmaxf(cm, f[e]);
    float cs = 0.f;
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) cs += exp_shifted(f[e], cm);
    online_merge(m, sum, cm, cs);
  }
#pragma unroll
  for (int off = kWarpSize / 2; off > 0; off /= 2) {
    const float m2 = __shfl_xor_sync(kFullMask, m, off);
    const float s2 = __shfl_xor_sync(kFullMask, sum, off);
    online_merge(m, sum, m2, s2);
  }
  if (threadIdx.x % kWarpSize == 0) {
    scratch_m[threadIdx.x / kWarpSize] = m;
    scratch_s[threadIdx.x / kWarpSize] = sum;
  }
  __syncthreads();
  m = scratch_m[0];
  sum = scratch_s[0];
#pragma unroll
  for (int w = 1; w < kRowWarps; ++w) online_merge(m, sum, scratch_m[w], scratch_s[w]);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::load(src, c, f);
    mask_chunk(f, c, seen);
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) f[e] = exp_shifted(f[e], m) * inv;
    R::store(dst, c, f);
  }
}

/// dS = P ∘ (dP − rowsum(P ∘ dP)) row by row. kOnePass: rows of P and dP cached in shared memory
/// (2·ncols elements) and read once; otherwise read twice.
template <class T, bool kVec, bool kOnePass>
__global__ void __launch_bounds__(kRowThreads) dsoftmax_kernel(const T* p, const T* dp, T* ds, int ncols) {
  using R = RowChunks<T, kVec>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* const p_cache = reinterpret_cast<T*>(smem_raw);
  T* const dp_cache = p_cache + ncols;  // ncols·2 bytes: 16-byte aligned when kVec
  __shared__ float scratch[kRowWarps];
  const std::int64_t row = blockIdx.x;
  const T* p_row = p + row * ncols;
  const T* dp_row = dp + row * ncols;
  T* const ds_row = ds + row * ncols;
  const int chunks = R::count(ncols);
  float fp[R::kWidth], fd[R::kWidth];
  float dot = 0.f;
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    if constexpr (kOnePass) {
      R::copy(p_cache, p_row, c);
      R::copy(dp_cache, dp_row, c);
      R::load(p_cache, c, fp);
      R::load(dp_cache, c, fd);
    } else {
      R::load(p_row, c, fp);
      R::load(dp_row, c, fd);
    }
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) dot = fmaf(fp[e], fd[e], dot);
  }
  dot = block_reduce(dot, scratch, SumOp{});
  if constexpr (kOnePass) {
    p_row = p_cache;
    dp_row = dp_cache;
  }
  for (int c = static_cast<int>(threadIdx.x); c < chunks; c += kRowThreads) {
    R::load(p_row, c, fp);
    R::load(dp_row, c, fd);
#pragma unroll
    for (int e = 0; e < R::kWidth; ++e) fp[e] *= fd[e] - dot;
    R::store(ds_row, c, fp);
  }
}

}  // namespace
}  // namespace iosim::gpu::kern

namespace iosim::gpu::detail {
namespace {

constexpr std::size_t kCublasWorkspaceBytes = std::size_t{32} << 20;  // cuBLAS's recommendation for Hopper

std::mutex g_cublas_mutex;
cublasHandle_t g_cublas = nullptr;  // created once, never destroyed (its teardown at exit would race the runtime's)
void* g_cublas_workspace = nullptr;

/// The handle, bound to `stream` with the preallocated workspace (cublasSetStream resets the
/// workspace to cuBLAS's own pool, which could allocate inside a measured range).
cublasHandle_t cublas_on(cudaStream_t stream) {
  const std::lock_guard<std::mutex> lock(g_cublas_mutex);
  if (g_cublas == nullptr) throw CudaError("naive: cuBLAS is not initialised (AttentionBuffers calls naive_prepare)");
  IOSIM_CUBLAS_CHECK(cublasSetStream(g_cublas, stream));
  IOSIM_CUBLAS_CHECK(cublasSetWorkspace(g_cublas, g_cublas_workspace, kCublasWorkspaceBytes));
  return g_cublas;
}

/// C = op(A)·op(B)·alpha over batch·heads, column-major as cuBLAS sees it.
struct Gemm {
  cublasHandle_t handle;
  cudaDataType_t type;
  int batch;
  void operator()(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha, const void* a, int lda,
                  long long stride_a, const void* b, int ldb, long long stride_b, void* c, int ldc,
                  long long stride_c) const {
    const float beta = 0.f;
    IOSIM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, ta, tb, m, n, k, &alpha, a, type, lda, stride_a, b, type, ldb,
                                                  stride_b, &beta, c, type, ldc, stride_c, batch, CUBLAS_COMPUTE_32F,
                                                  CUBLAS_GEMM_DEFAULT));
  }
};

/// One GEMM per K/V head: the group's query heads are adjacent in Q, S, P, O (and their gradients),
/// so a group is one matrix of group·n rows against its K/V head (GQA; group = 1 for multi-head).
Gemm gemm_for(const KernelSpec& spec, cudaStream_t stream) {
  return Gemm{cublas_on(stream), spec.dtype == DType::fp16 ? CUDA_R_16F : CUDA_R_16BF, spec.batch * kv_head_count(spec)};
}

std::uint64_t smem_optin() {
  int device = 0;
  IOSIM_CUDA_CHECK(cudaGetDevice(&device));
  int optin = 0;
  IOSIM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return static_cast<std::uint64_t>(optin);
}

std::uint64_t row_bytes(const KernelSpec& spec) { return static_cast<std::uint64_t>(spec.n_kv) * size_bytes(spec.dtype); }

template <class T, bool kVec>
void softmax_rows(const KernelSpec& spec, const T* s, T* p, bool one_pass, cudaStream_t stream) {
  const auto rows = static_cast<unsigned>(head_rows(spec, spec.n));
  if (one_pass) {
    const auto kernel = kern::softmax_one_pass_kernel<T, kVec>;
    const std::size_t bytes = row_bytes(spec);
    allow_dynamic_smem(kernel, bytes);
    kernel<<<rows, kern::kRowThreads, bytes, stream>>>(s, p, spec.n_kv, spec.n, spec.causal, spec.window);
  } else {
    kern::softmax_two_pass_kernel<T, kVec>
        <<<rows, kern::kRowThreads, 0, stream>>>(s, p, spec.n_kv, spec.n, spec.causal, spec.window);
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

template <class T, bool kVec>
void dsoftmax_rows(const KernelSpec& spec, const T* p, const T* dp, T* ds, bool one_pass, cudaStream_t stream) {
  const auto rows = static_cast<unsigned>(head_rows(spec, spec.n));
  if (one_pass) {
    const auto kernel = kern::dsoftmax_kernel<T, kVec, true>;
    const std::size_t bytes = 2 * row_bytes(spec);
    allow_dynamic_smem(kernel, bytes);
    kernel<<<rows, kern::kRowThreads, bytes, stream>>>(p, dp, ds, spec.n_kv);
  } else {
    kern::dsoftmax_kernel<T, kVec, false><<<rows, kern::kRowThreads, 0, stream>>>(p, dp, ds, spec.n_kv);
  }
  IOSIM_CUDA_CHECK_LAUNCH();
}

template <class T>
void forward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const Gemm gemm = gemm_for(spec, stream);
  const int n = group_size(spec) * spec.n, nkv = spec.n_kv, d = spec.d;  // n: query rows of a group
  const long long nd = static_cast<long long>(n) * d, kvd = static_cast<long long>(nkv) * d;
  const long long nn = static_cast<long long>(n) * nkv;
  const float scale = 1.f / std::sqrt(static_cast<float>(d));
  T* const s = device_ptr<T>(buf, Tensor::S);
  T* const p = device_ptr<T>(buf, Tensor::P);
  // Sᵀ (n_kv × n) = K (Kᵀ stored, transposed) · Qᵀ (stored) · scale
  gemm(CUBLAS_OP_T, CUBLAS_OP_N, nkv, n, d, scale, buf.device(Tensor::K), d, kvd, buf.device(Tensor::Q), d, nd, s, nkv, nn);
  const bool one_pass = naive_softmax_one_pass(spec, smem_optin());
  if (nkv % kern::kChunkElems == 0) {
    softmax_rows<T, true>(spec, s, p, one_pass, stream);
  } else {
    softmax_rows<T, false>(spec, s, p, one_pass, stream);
  }
  // Oᵀ (d × n) = Vᵀ (stored) · Pᵀ (stored)
  gemm(CUBLAS_OP_N, CUBLAS_OP_N, d, n, nkv, 1.f, buf.device(Tensor::V), d, kvd, p, nkv, nn, buf.device(Tensor::O), d, nd);
}

template <class T>
void backward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  const Gemm gemm = gemm_for(spec, stream);
  const int n = group_size(spec) * spec.n, nkv = spec.n_kv, d = spec.d;  // n: query rows of a group
  const long long nd = static_cast<long long>(n) * d, kvd = static_cast<long long>(nkv) * d;
  const long long nn = static_cast<long long>(n) * nkv;
  const float scale = 1.f / std::sqrt(static_cast<float>(d));
  const T* const p = device_ptr<const T>(buf, Tensor::P);
  T* const dp = device_ptr<T>(buf, Tensor::dP);
  T* const ds = device_ptr<T>(buf, Tensor::dS);
  // dVᵀ (d × n_kv) = dOᵀ (stored) · P (Pᵀ stored, transposed)
  gemm(CUBLAS_OP_N, CUBLAS_OP_T, d, nkv, n, 1.f, buf.device(Tensor::dO), d, nd, p, nkv, nn, buf.device(Tensor::dV), d, kvd);
  // dPᵀ (n_kv × n) = V (Vᵀ stored, transposed) · dOᵀ (stored)
  gemm(CUBLAS_OP_T, CUBLAS_OP_N, nkv, n, d, 1.f, buf.device(Tensor::V), d, kvd, buf.device(Tensor::dO), d, nd, dp, nkv, nn);
  const bool one_pass = naive_dsoftmax_one_pass(spec, smem_optin());
  if (nkv % kern::kChunkElems == 0) {
    dsoftmax_rows<T, true>(spec, p, dp, ds, one_pass, stream);
  } else {
    dsoftmax_rows<T, false>(spec, p, dp, ds, one_pass, stream);
  }
  // dQᵀ (d × n) = Kᵀ (stored) · dSᵀ (stored) · scale
  gemm(CUBLAS_OP_N, CUBLAS_OP_N, d, n, nkv, scale, buf.device(Tensor::K), d, kvd, ds, nkv, nn, buf.device(Tensor::dQ), d, nd);
  // dKᵀ (d × n_kv) = Qᵀ (stored) · dS (dSᵀ stored, transposed) · scale
  gemm(CUBLAS_OP_N, CUBLAS_OP_T, d, nkv, n, scale, buf.device(Tensor::Q), d, nd, ds, nkv, nn, buf.device(Tensor::dK), d, kvd);
}

}  // namespace

void naive_prepare() {
  const std::lock_guard<std::mutex> lock(g_cublas_mutex);
  if (g_cublas != nullptr) return;
  cublasHandle_t handle = nullptr;
  IOSIM_CUBLAS_CHECK(cublasCreate(&handle));
  void* workspace = nullptr;
  const cudaError_t err = cudaMalloc(&workspace, kCublasWorkspaceBytes);
  if (err != cudaSuccess) {
    static_cast<void>(cublasDestroy(handle));  // already failing: report the allocation, not this
    IOSIM_CUDA_CHECK(err);
  }
  g_cublas = handle;
  g_cublas_workspace = workspace;
}

bool naive_softmax_one_pass(const KernelSpec& spec, std::uint64_t smem_optin_bytes) {
  return row_bytes(spec) + kern::kRowReserve <= smem_optin_bytes;
}

bool naive_dsoftmax_one_pass(const KernelSpec& spec, std::uint64_t smem_optin_bytes) {
  return 2 * row_bytes(spec) + kern::kRowReserve <= smem_optin_bytes;
}

void naive_forward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  spec.dtype == DType::fp16 ? forward<__half>(spec, buf, stream) : forward<__nv_bfloat16>(spec, buf, stream);
}

void naive_backward(const KernelSpec& spec, AttentionBuffers& buf, cudaStream_t stream) {
  spec.dtype == DType::fp16 ? backward<__half>(spec, buf, stream) : backward<__nv_bfloat16>(spec, buf, stream);
}

}  // namespace iosim::gpu::detail
