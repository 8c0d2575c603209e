// Probe: does the H200's L2 read counter (lts__t_sectors_srcunit_tex_op_read) count every SM's read
// of a sector, or fewer when many SMs read the same sectors at about the same time?
//
// Every block copies the same `bytes` of global memory into shared memory with 16-byte cp.async.cg (as
// iosim's flash kernels load K and V), `reps` times. Variants:
//   same     all blocks read the same buffer, in the same order (flash2's forward: the blocks of one
//            head walk K/V together)
//   shifted  all blocks read the same buffer, each starting at its own offset (the same bytes, never
//            at the same time)
//   own      each block reads its own buffer (no sharing at all)
// Every variant asks for the same number of sectors: blocks × reps × bytes / 32. Run under ncu with
// --metrics lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum and compare.
// Build: nvcc -O2 -arch=sm_90 -o l2_shared_reads l2_shared_reads.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kThreads = 128;
constexpr int kChunk = kThreads * 16;  // bytes one round of cp.async moves

__global__ void reader(const char* src, std::size_t bytes, std::size_t per_block, int mode, int reps,
                       unsigned* sink) {
  __shared__ __align__(16) char tile[2][kChunk];
  const char* base = mode == 2 ? src + static_cast<std::size_t>(blockIdx.x) * per_block : src;
  const std::size_t chunks = bytes / kChunk;
  const std::size_t start = mode == 1 ? (blockIdx.x * 7919u) % chunks : 0;
  unsigned acc = 0;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t c = 0; c < chunks; ++c) {
      const std::size_t at = ((start + c) % chunks) * kChunk + threadIdx.x * 16;
      char* dst = tile[c & 1] + threadIdx.x * 16;
      const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(base + at));
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      acc += static_cast<unsigned>(dst[0]);
    }
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

}  // namespace

int main(int argc, char** argv) {
  const char* names[] = {"same", "shifted", "own"};
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t{1} << 20);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 4;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = sms;
  char* buf = nullptr;
  unsigned* sink = nullptr;
  cudaMalloc(&buf, bytes * blocks);
  cudaMemset(buf, 1, bytes * blocks);
  cudaMalloc(&sink, 4);
  for (int mode = 0; mode < 3; ++mode) {
    reader<<<blocks, kThreads>>>(buf, bytes, bytes, mode, reps, sink);
    cudaDeviceSynchronize();
    std::printf("%s: %d blocks x %d reps x %zu bytes = %zu sectors asked\n", names[mode], blocks, reps, bytes,
                static_cast<std::size_t>(blocks) * reps * bytes / 32);
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::printf("CUDA error: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
