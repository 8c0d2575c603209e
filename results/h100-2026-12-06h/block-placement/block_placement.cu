// Probe: where does the block distributor put blocks, and how fast does one SM stream when few do?
//
// Asked by decoding with a sliding window (results/h100-2026-12-06h): of 256 blocks (2 fit an SM), one
// in four (x % 4 == 3) streams 1 MB of K/V, the rest exit at once. iosim's model places blocks round-robin
// by SM index, which puts two working blocks on 31 SMs, and prices each at half the SM's share of the L2's
// bandwidth (the L2's rate ÷ SMs); the GPU ran them about 1.8× faster than that.
//
//   placement  the decoding kernel's pattern: `blocks` blocks, 2 per SM at most (shared memory), those
//              with blockIdx.x % 4 == 3 stream their own 1 MB as the split kernel does (per step 64 KB by
//              16-byte cp.async.cg, wait, barrier: one stage), the others exit. Each block records its SM
//              (%smid). Prints how many SMs got 0, 1 or 2 working blocks, and the kernel's time.
//   rate       k working blocks only (k = 1 … 264), each its own 1 MB, the same loop: time, and bytes per
//              second per block and in all, with how many SMs hosted two.
// Build: nvcc -O2 -arch=sm_90 -o block_placement block_placement.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

constexpr int kThreads = 128;
constexpr int kStepBytes = 64 * 1024;     // one step's K and V tiles: 256 rows × 64 × 2 B, twice
constexpr int kBlockBytes = 1 << 20;      // one working block's K/V (4096 positions)
constexpr int kSmem = 100 * 1024;         // 2 blocks an SM at most (228 KB), as the decode kernel at 2

__device__ unsigned smid() {
  unsigned id;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
  return id;
}

__global__ void stream(const char* src, int every, int* sm_of, unsigned* sink) {
  extern __shared__ __align__(16) char tile[];
  if (threadIdx.x == 0) sm_of[blockIdx.x] = static_cast<int>(smid());
  if (every > 1 && blockIdx.x % every != static_cast<unsigned>(every - 1)) return;
  const char* base = src + static_cast<std::size_t>(blockIdx.x) * kBlockBytes;
  for (int step = 0; step < kBlockBytes / kStepBytes; ++step) {
    const char* from = base + static_cast<std::size_t>(step) * kStepBytes;
    for (int off = threadIdx.x * 16; off < kStepBytes; off += kThreads * 16) {
      const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(tile + off));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(from + off));
    }
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;" ::: "memory");
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sink, static_cast<unsigned>(tile[blockIdx.x % 64]));
}

struct Run {
  float ms;
  int sms_with[3];  // SMs with 0, 1, 2+ working blocks
};

Run launch(const char* src, int blocks, int every, int* d_sm, unsigned* sink, int sms) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  stream<<<blocks, kThreads, kSmem>>>(src, every, d_sm, sink);  // warm-up
  std::vector<float> times;
  for (int r = 0; r < 9; ++r) {
    cudaEventRecord(a);
    stream<<<blocks, kThreads, kSmem>>>(src, every, d_sm, sink);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  std::vector<int> sm(blocks);
  cudaMemcpy(sm.data(), d_sm, sizeof(int) * blocks, cudaMemcpyDeviceToHost);
  std::vector<int> working(sms, 0);
  for (int i = 0; i < blocks; ++i) {
    if (every == 1 || i % every == every - 1) ++working[sm[i]];
  }
  Run r{times[times.size() / 2], {0, 0, 0}};
  for (int w : working) ++r.sms_with[std::min(w, 2)];
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return r;
}

}  // namespace

int main() {
  int dev = 0, sms = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaFuncSetAttribute(stream, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  const int max_blocks = 2 * sms;
  char* src = nullptr;
  int* d_sm = nullptr;
  unsigned* sink = nullptr;
  cudaMalloc(&src, static_cast<std::size_t>(max_blocks) * kBlockBytes);
  cudaMemset(src, 1, static_cast<std::size_t>(max_blocks) * kBlockBytes);
  cudaMalloc(&d_sm, sizeof(int) * max_blocks);
  cudaMalloc(&sink, sizeof(unsigned));
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, dev);
  std::printf("device %s, %d SMs; per working block %d steps of %d B, one stage\n", prop.name, sms,
              kBlockBytes / kStepBytes, kStepBytes);
  std::printf("mode       blocks working  time_ms  GB/s_per_block  GB/s_all  SMs_with_0/1/2\n");
  for (int blocks : {256, 4 * sms / 2, 2 * sms}) {
    const Run r = launch(src, blocks, 4, d_sm, sink, sms);
    const int working = blocks / 4;
    std::printf("placement  %6d %7d %8.4f %15.1f %9.1f  %d/%d/%d\n", blocks, working, r.ms,
                kBlockBytes / (r.ms * 1e6), working * static_cast<double>(kBlockBytes) / (r.ms * 1e6),
                r.sms_with[0], r.sms_with[1], r.sms_with[2]);
  }
  for (int k : {1, 2, 4, 8, 16, 32, 64, 96, sms, 3 * sms / 2, 2 * sms}) {
    const Run r = launch(src, k, 1, d_sm, sink, sms);
    std::printf("rate       %6d %7d %8.4f %15.1f %9.1f  %d/%d/%d\n", k, k, r.ms, kBlockBytes / (r.ms * 1e6),
                k * static_cast<double>(kBlockBytes) / (r.ms * 1e6), r.sms_with[0], r.sms_with[1],
                r.sms_with[2]);
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
