// Probe: which SMs' reads of one sector does the L2 read counter (lts__t_sectors_srcunit_tex_op_read)
// count once, and within what time of each other? docs/validation.md ("Swizzled tiles") measured that
// 132 blocks reading one buffer in the same order are counted 26% of the sectors they ask for: merged,
// but not to one request per sector. This probe asks which SMs merge and over what stagger.
//
// One block per SM (a large dynamic shared-memory request keeps a second block off any SM). Each block
// reads %smid; blocks whose SM is not a member of the launch return at once. Members meet at a global
// barrier, the `late` ones then wait `delay` ns on %globaltimer, and every member reads the same buffer,
// in the same order, `reps` times: 2 KiB a round with 16-byte cp.async.cg (L2 only, as iosim's flash
// kernels load K and V), each round waited for, as the kernels' K/V steps are. A first launch of every
// SM warms the buffer into the L2, so the launches measured hit.
//
// Launches, in this order (each printed as "launch K kind=... members=... late=... delay_ns=..."):
//   pair    SM 0 with SM j, for every j = 1 … SMs − 1 (no delay): which SMs merge with SM 0;
//   (SM k: the k-th smallest %smid, as a first launch of one block an SM finds them)
//   first   SMs 0 … k − 1 for k = 2, 4, 6, 8, 12, 16, 18, 24, 32, 48, 66, 96, 132: how merging grows;
//   stride  every s-th SM (s = 2, 4, 8, 16, 33, 66), from SM 0: the same counts, spread out;
//   delay   SMs 0 and 1, then 0 and SMs/2, with the second late by 0, 100, 200, 400, 800, 1600, 3200 ns.
// Sectors asked by a launch: members × reps × bytes / 32. Under ncu (kernel replay, --cache-control
// none, --launch-skip 1) each measured launch is one row, in launch order.
// Usage: l2_merge [BYTES [REPS]]   (defaults 262144 and 4)
// Build: nvcc -O2 -arch=sm_90 -o l2_merge l2_merge.cu
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kThreads = 128;
constexpr int kChunk = kThreads * 16;          // bytes one round moves
constexpr int kShared = 200 * 1024;            // dynamic shared memory: one block an SM

__device__ unsigned long long now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__global__ void reader(const char* src, std::size_t bytes, int reps, const unsigned char* member,
                       const unsigned char* late, unsigned long long delay, unsigned members, unsigned* arrive,
                       unsigned* sink) {
  extern __shared__ __align__(16) char tile[];
  const unsigned sm = smid();
  if (!member[sm]) return;
  if (threadIdx.x == 0) {
    atomicAdd(arrive, 1u);
    const unsigned long long give_up = now() + 100000000ull;  // 100 ms: never hang on a miscounted set
    while (atomicAdd(arrive, 0u) < members && now() < give_up) {
    }
    if (late[sm]) {
      const unsigned long long until = now() + delay;
      while (now() < until) {
      }
    }
  }
  __syncthreads();
  const std::size_t chunks = bytes / kChunk;
  unsigned acc = 0;
  for (int r = 0; r < reps; ++r) {
    for (std::size_t c = 0; c < chunks; ++c) {
      char* dst = tile + (c & 1) * kChunk + threadIdx.x * 16;
      const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(src + c * kChunk + threadIdx.x * 16));
      asm volatile("cp.async.commit_group;" ::: "memory");
      asm volatile("cp.async.wait_group 0;" ::: "memory");
      acc += static_cast<unsigned>(dst[0]);
    }
  }
  if (acc == 0xFFFFFFFFu) *sink = acc;
}

__global__ void where(unsigned* ids) {
  if (threadIdx.x == 0) ids[blockIdx.x] = smid();
}

int fail(const char* what) {
  std::fprintf(stderr, "l2_merge: %s\n", what);
  return 2;
}

struct Launch {
  std::string kind;
  std::vector<int> members, late;
  unsigned long long delay = 0;
};

std::string list(const std::vector<int>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s.empty() ? "-" : s;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::size_t{1} << 18);
  const int reps = argc > 2 ? std::atoi(argv[2]) : 4;
  if (bytes < kChunk || bytes % kChunk != 0) return fail("BYTES must be a positive multiple of 2048");
  if (reps < 1 || reps > 1000) return fail("REPS must be 1 to 1000");
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (cudaFuncSetAttribute(reader, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared) != cudaSuccess)
    return fail("cannot ask for 200 KiB of shared memory");
  // The SMs' ids as %smid gives them (not necessarily 0 … SMs − 1): one block an SM, each records its SM.
  unsigned* ids_d = nullptr;
  if (cudaMalloc(&ids_d, sms * sizeof(unsigned)) != cudaSuccess) return fail("cudaMalloc failed");
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
  where<<<sms, 32, kShared>>>(ids_d);
  std::vector<unsigned> ids_h(sms);
  if (cudaMemcpy(ids_h.data(), ids_d, sms * sizeof(unsigned), cudaMemcpyDeviceToHost) != cudaSuccess)
    return fail("cannot read the SMs' ids");
  std::vector<int> all(ids_h.begin(), ids_h.end());
  std::sort(all.begin(), all.end());
  if (std::adjacent_find(all.begin(), all.end()) != all.end() || all.back() >= 1024)
    return fail("two blocks on one SM, or an SM id of 1024 or more");
  std::printf("smids %s\n", list(all).c_str());
  std::vector<Launch> launches;
  launches.push_back({"warm", all, {}, 0});
  for (int j = 1; j < sms; ++j) launches.push_back({"pair", {all[0], all[j]}, {}, 0});
  for (int k : {2, 4, 6, 8, 12, 16, 18, 24, 32, 48, 66, 96, 132}) {
    if (k > sms) continue;
    launches.push_back({"first", std::vector<int>(all.begin(), all.begin() + k), {}, 0});
  }
  for (int stride : {2, 4, 8, 16, 33, 66}) {
    std::vector<int> m;
    for (int s = 0; s < sms; s += stride) m.push_back(all[s]);
    launches.push_back({"stride", m, {}, 0});
  }
  for (int other : {all[1], all[sms / 2]})
    for (unsigned long long ns : {0ull, 100ull, 200ull, 400ull, 800ull, 1600ull, 3200ull})
      launches.push_back({"delay", {all[0], other}, {other}, ns});

  char* buf = nullptr;
  unsigned *arrive = nullptr, *sink = nullptr;
  unsigned char *member = nullptr, *late = nullptr;
  if (cudaMalloc(&buf, bytes) != cudaSuccess || cudaMalloc(&arrive, 4) != cudaSuccess ||
      cudaMalloc(&sink, 4) != cudaSuccess || cudaMalloc(&member, 1024) != cudaSuccess ||
      cudaMalloc(&late, 1024) != cudaSuccess)
    return fail("cudaMalloc failed");
  cudaMemset(buf, 1, bytes);
  for (std::size_t i = 0; i < launches.size(); ++i) {
    const Launch& l = launches[i];
    std::vector<unsigned char> m(1024, 0), t(1024, 0);
    for (int s : l.members) m[s] = 1;
    for (int s : l.late) t[s] = 1;
    cudaMemcpy(member, m.data(), m.size(), cudaMemcpyHostToDevice);
    cudaMemcpy(late, t.data(), t.size(), cudaMemcpyHostToDevice);
    cudaMemset(arrive, 0, 4);
    reader<<<sms, kThreads, kShared>>>(buf, bytes, reps, member, late, l.delay,
                                       static_cast<unsigned>(l.members.size()), arrive, sink);
    if (cudaDeviceSynchronize() != cudaSuccess) return fail(cudaGetErrorString(cudaGetLastError()));
    std::printf("launch %zu kind=%s members=%zu asked=%zu delay_ns=%llu late=%s list=%s\n", i, l.kind.c_str(),
                l.members.size(), l.members.size() * static_cast<std::size_t>(reps) * bytes / 32, l.delay,
                list(l.late).c_str(), list(l.members).c_str());
  }
  return 0;
}
