// Probe: how much of a footprint re-read from a warm L2 comes from DRAM, as the footprint nears and
// passes the L2's size: the L2's usable capacity, and how sharply it falls (a cliff for LRU over a
// cyclic walk; a slope for random or adaptive replacement), for data that one SM reads (each block its
// own slice) and for data that every SM reads (which a partitioned L2 may keep twice).
//
// One launch reads the footprint once to fill the L2 (under ncu: --launch-skip 1, --cache-control
// none); the profiled launch reads it again. 16-byte loads with .cg (cached in the L2 only), each
// block's threads striding through its part in order.
//   own     block b reads bytes [b F / B, (b + 1) F / B)
//   shared  every block reads all of F, starting at its own offset (so that no two SMs ask for one
//           sector at the same moment: the merge of simultaneous requests stays out of the count)
// Usage: l2_capacity FOOTPRINT_MIB own|shared
// Build: nvcc -O2 -arch=sm_90 -o l2_capacity l2_capacity.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kThreads = 512;

__global__ void reader(const int4* src, std::size_t n16, bool shared, unsigned* sink) {
  std::size_t begin = 0, count = n16, offset = 0;
  if (!shared) {
    begin = n16 * blockIdx.x / gridDim.x;
    count = n16 * (blockIdx.x + 1) / gridDim.x - begin;
  } else {
    offset = n16 * blockIdx.x / gridDim.x;
  }
  unsigned acc = 0;
  for (std::size_t i = threadIdx.x; i < count; i += kThreads) {
    const std::size_t at = begin + (offset + i) % n16;
    const int4 v = __ldcg(src + at);
    acc ^= static_cast<unsigned>(v.x ^ v.w);
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

int fail(const char* what) {
  std::fprintf(stderr, "l2_capacity: %s\n", what);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: l2_capacity FOOTPRINT_MIB own|shared");
  const long mib = std::strtol(argv[1], nullptr, 10);
  const bool shared = std::strcmp(argv[2], "shared") == 0;
  if (mib <= 0 || mib > 4096) return fail("FOOTPRINT_MIB must be 1 to 4096");
  if (!shared && std::strcmp(argv[2], "own") != 0) return fail("the mode must be own or shared");
  const std::size_t bytes = static_cast<std::size_t>(mib) << 20;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int4* buf = nullptr;
  unsigned* sink = nullptr;
  if (cudaMalloc(&buf, bytes) != cudaSuccess || cudaMalloc(&sink, 4) != cudaSuccess) return fail("cudaMalloc failed");
  cudaMemset(buf, 1, bytes);
  for (int launch = 0; launch < 2; ++launch) reader<<<sms, kThreads>>>(buf, bytes / 16, shared, sink);
  if (cudaDeviceSynchronize() != cudaSuccess) return fail(cudaGetErrorString(cudaGetLastError()));
  std::printf("probe %s footprint_mib=%ld blocks=%d bytes=%zu\n", shared ? "shared" : "own", mib, sms, bytes);
  return 0;
}
