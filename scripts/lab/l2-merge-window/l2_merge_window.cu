// Probe: how close in time must two SMs' reads of one sector be for the L2's read counter
// (lts__t_sectors_srcunit_tex_op_read) to count them once?
//
// One block per SM copies the same `bytes` of global memory into shared memory with 16-byte cp.async.cg
// (as iosim's flash kernels load K and V), one 2 KiB chunk a round trip, the blocks in the same order.
// Block b first waits b × `stagger` SM cycles (clock64) after its own start, so that block b + 1 asks
// for each chunk `stagger` cycles after block b. With stagger 0 the blocks walk together (the lockstep
// of flash2's forward); once the stagger exceeds the window in which the L2 merges requests for one
// sector, every block's request is counted. `own` mode gives each block its own buffer: the count with
// no sharing at all, the reference.
//
// Each block records, in `starts`, the globaltimer (ns) at which it began to read, so that the stagger
// actually achieved (launch skew included) is printed beside the one asked for.
//
// Usage: l2_merge_window BYTES STAGGER_CYCLES MODE(same|own) WARM(0|1) [BLOCKS]
// BLOCKS (default: one per SM) tells whether lockstep requests merge without bound or only so many to
// one L2 lookup: 132 blocks in lockstep were counted 26% of the time, about one lookup per 4 requests.
// WARM 1 first reads the buffer once in a launch of its own (under ncu, profile only the second launch:
// --launch-skip 1 --cache-control none), so that the probed reads hit in the L2; WARM 0 leaves the L2
// as ncu leaves it (--cache-control all: flushed).
// Build: nvcc -O2 -arch=sm_90 -o l2_merge_window l2_merge_window.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr int kThreads = 128;
constexpr int kChunk = kThreads * 16;  // bytes one round of cp.async moves

__global__ void reader(const char* src, std::size_t bytes, bool own, long long stagger, unsigned long long* starts,
                       unsigned* sink) {
  __shared__ __align__(16) char tile[2][kChunk];
  const long long t0 = clock64();
  const long long wait = stagger * blockIdx.x;
  while (clock64() - t0 < wait) {
  }
  if (threadIdx.x == 0) {
    unsigned long long ns = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    starts[blockIdx.x] = ns;
  }
  const char* base = own ? src + static_cast<std::size_t>(blockIdx.x) * bytes : src;
  const std::size_t chunks = bytes / kChunk;
  unsigned acc = 0;
  for (std::size_t c = 0; c < chunks; ++c) {
    char* dst = tile[c & 1] + threadIdx.x * 16;
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(base + c * kChunk + threadIdx.x * 16));
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    acc += static_cast<unsigned>(dst[0]);
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

int fail(const char* what) {
  std::fprintf(stderr, "l2_merge_window: %s\n", what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5 && argc != 6) return fail("usage: l2_merge_window BYTES STAGGER_CYCLES same|own WARM(0|1) [BLOCKS]");
  const std::size_t bytes = std::strtoull(argv[1], nullptr, 10);
  const long long stagger = std::strtoll(argv[2], nullptr, 10);
  const bool own = std::strcmp(argv[3], "own") == 0;
  const bool warm = std::strcmp(argv[4], "1") == 0;
  if (bytes < kChunk || bytes % kChunk != 0) return fail("BYTES must be a positive multiple of 2048");
  if (stagger < 0) return fail("STAGGER_CYCLES must be >= 0");
  if (!own && std::strcmp(argv[3], "same") != 0) return fail("MODE must be same or own");
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = argc == 6 ? std::atoi(argv[5]) : sms;
  if (blocks < 2 || blocks > sms) return fail("BLOCKS must be 2 to the SMs' count");
  char* buf = nullptr;
  unsigned* sink = nullptr;
  unsigned long long* starts = nullptr;
  if (cudaMalloc(&buf, bytes * blocks) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess ||
      cudaMalloc(&starts, sizeof(unsigned long long) * blocks) != cudaSuccess)
    return fail("cudaMalloc failed");
  cudaMemset(buf, 1, bytes * blocks);
  if (warm) reader<<<blocks, kThreads>>>(buf, bytes, own, 0, starts, sink);
  reader<<<blocks, kThreads>>>(buf, bytes, own, stagger, starts, sink);
  if (cudaDeviceSynchronize() != cudaSuccess) return fail(cudaGetErrorString(cudaGetLastError()));
  std::vector<unsigned long long> t(blocks);
  cudaMemcpy(t.data(), starts, sizeof(unsigned long long) * blocks, cudaMemcpyDeviceToHost);
  // The achieved stagger: consecutive blocks' start differences, in ns (globaltimer), median and range.
  std::vector<long long> dt;
  for (int b = 1; b < blocks; ++b) dt.push_back(static_cast<long long>(t[b] - t[b - 1]));
  std::sort(dt.begin(), dt.end());
  const auto span = *std::max_element(t.begin(), t.end()) - *std::min_element(t.begin(), t.end());
  std::printf("probe %s warm=%d bytes=%zu stagger_cycles=%lld blocks=%d sectors_asked=%zu "
              "start_step_ns median=%lld min=%lld max=%lld span_ns=%llu\n",
              own ? "own" : "same", warm ? 1 : 0, bytes, stagger, blocks, static_cast<std::size_t>(blocks) * bytes / 32,
              dt[dt.size() / 2], dt.front(), dt.back(), span);
  return 0;
}
