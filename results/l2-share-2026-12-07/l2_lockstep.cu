// Probe: are the capacity probe's `shared` readers (scripts/lab/l2-capacity) bunched in time on the
// H100? Every block reads the whole footprint from its own offset, as l2_capacity.cu's `shared`, and
//   free  runs as l2_capacity does, thread 0 of each block stamping %globaltimer at 32 evenly spaced
//         rounds (one round: 512 threads × 16 B); the second launch's stamps are printed
//   lock  holds the stagger: before round r a block waits until the blocks together have finished
//         B × (r − 1) rounds (none runs more than about two rounds ahead of the slowest), so that the
//         order is the one scripts/lab/l2-capacity/replay.cpp replays (where iosim's
//         model gives 26.6%, 96.2%, 100% of the asked sectors from DRAM at 32, 40, 48 MiB)
// Usage: l2_lockstep FOOTPRINT_MIB free|lock
// Output: "probe MODE footprint_mib=M blocks=B bytes=N", then in free mode "stamp BLOCK K NS" lines.
// Build: nvcc -O2 -arch=sm_90 -o l2_lockstep l2_lockstep.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kThreads = 512;
constexpr int kStamps = 32;

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void reader(const int4* src, std::size_t n16, bool lock, unsigned* progress,
                       unsigned long long* stamps, unsigned* sink) {
  const std::size_t offset = n16 * blockIdx.x / gridDim.x;
  const std::size_t rounds = (n16 + kThreads - 1) / kThreads;
  const std::size_t every = rounds / kStamps > 0 ? rounds / kStamps : 1;
  unsigned acc = 0;
  for (std::size_t r = 0; r < rounds; ++r) {
    if (threadIdx.x == 0) {
      if (lock && r > 0) {
        const unsigned need = gridDim.x * static_cast<unsigned>(r - 1);
        while (atomicAdd(progress, 0u) < need) {
        }
      }
      if (!lock && r % every == 0 && r / every < kStamps) stamps[blockIdx.x * kStamps + r / every] = now();
    }
    __syncthreads();
    const std::size_t i = r * kThreads + threadIdx.x;
    if (i < n16) {
      const int4 v = __ldcg(src + (offset + i) % n16);
      acc ^= static_cast<unsigned>(v.x ^ v.w);
    }
    __syncthreads();
    if (lock && threadIdx.x == 0) atomicAdd(progress, 1u);
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

int fail(const char* what) {
  std::fprintf(stderr, "l2_lockstep: %s\n", what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: l2_lockstep FOOTPRINT_MIB free|lock");
  const long mib = std::strtol(argv[1], nullptr, 10);
  const bool lock = std::strcmp(argv[2], "lock") == 0;
  if (mib <= 0 || mib > 4096) return fail("FOOTPRINT_MIB must be 1 to 4096");
  if (!lock && std::strcmp(argv[2], "free") != 0) return fail("the mode must be free or lock");
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int4* buf = nullptr;
  unsigned *progress = nullptr, *sink = nullptr;
  unsigned long long* stamps = nullptr;
  const std::size_t nstamps = static_cast<std::size_t>(sms) * kStamps;
  if (cudaMalloc(&buf, bytes) != cudaSuccess || cudaMalloc(&progress, 2 * sizeof(unsigned)) != cudaSuccess ||
      cudaMalloc(&stamps, 2 * nstamps * sizeof(unsigned long long)) != cudaSuccess ||
      cudaMalloc(&sink, 4) != cudaSuccess)
    return fail("cudaMalloc failed");
  cudaMemset(buf, 1, bytes);
  cudaMemset(progress, 0, 2 * sizeof(unsigned));
  cudaMemset(stamps, 0, 2 * nstamps * sizeof(unsigned long long));
  // One block per SM (512 threads, no shared memory): all resident, so the lock cannot deadlock.
  for (int launch = 0; launch < 2; ++launch)
    reader<<<sms, kThreads>>>(buf, bytes / 16, lock, progress + launch, stamps + launch * nstamps, sink);
  if (cudaDeviceSynchronize() != cudaSuccess) return fail(cudaGetErrorString(cudaGetLastError()));
  std::printf("probe %s footprint_mib=%ld blocks=%d bytes=%zu\n", lock ? "lock" : "free", mib, sms, bytes);
  if (!lock) {
    std::vector<unsigned long long> h(nstamps);
    cudaMemcpy(h.data(), stamps + nstamps, nstamps * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
    for (int b = 0; b < sms; ++b)
      for (int k = 0; k < kStamps; ++k) std::printf("stamp %d %d %llu\n", b, k, h[b * kStamps + k]);
  }
  return 0;
}
