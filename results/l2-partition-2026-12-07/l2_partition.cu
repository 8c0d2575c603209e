// Probe: the L2's partitions as the SMs see them, and what it does with dirty lines and streams.
// iosim's PartitionedL2 assumes SM s asks partition s mod 2, that a far read leaves a copy in the near
// partition, and that dirty lines are written back only when evicted; results/l2-lockstep-2026-12-07.md
// found the parity placement inconsistent with the H100's near hits. This probe measures each.
//
// Usage: l2_partition map DIR      SM → partition map, copies, GPC groups, block placement; files in DIR
//        l2_partition dirty        dirty write-back and streaming-retention steps (one line per kernel,
//                                  in launch order: run it under ncu for the DRAM sectors of each)
// Build: nvcc -O2 -arch=sm_90 -o l2_partition l2_partition.cu
//
// map. One region of kLines 128-byte lines (512 KiB, zeros). A case: flush the L2 (a kernel writes
// and reads a scratch buffer of 3 × the L2's size), then SM `warm` walks the region (the "cold" pass),
// then SM `t` walks it twice (passes A and B). A walk is one thread of one block on one chosen SM
// (one block per SM, 200 KiB of dynamic shared memory each; blocks not on the chosen SM return at
// once): a dependent chase (each address adds the value just loaded, always 0) over the lines in a
// fixed permuted order, ld.global.cg (L2, not L1), each load timed with clock64 (a constant overhead
// of a few cycles is included). Three rounds, every SM t in each:
//   self  warm = t: a far line read from DRAM may leave a copy near (then A is all near);
//   w0    warm = the smallest %smid;
//   w1    warm = the first SM whose w0 pass A was two clusters (under the copy model, an SM of the
//         other partition from w0; with no copies, any SM).
// Each pass's latencies are split in two clusters (Otsu's threshold); a line is "far" (1) or "near"
// (0); the pass counts as two clusters when each holds ≥ 5% of the lines, their means are ≥ 30 cycles
// apart and < 5% of the lines lie within a quarter of that gap of the midpoint (the valley). An SM's signature is the near/far string of its most balanced pass A (the lines' homes seen
// from it); SMs are grouped by agreement with the first signature, and the grouping is compared with
// sm parity, TPC parity ((sm / 2) mod 2), halves of the %smid order, and the GPC groups.
// The signature of the reference SM also gives the home hash on address bits 7–18 (the region lies in
// one 2 MiB page, so these are physical bits): home(i) = c ⊕ parity(i & m) is tried, m and c read from
// lines 0 and 2^k, and the lines it misses are counted (0: the hash is linear in those bits).
// GPC groups: launches of thread-block clusters (sizes 2, 4, 8, 16), one block per SM, record each
// block's %smid; the blocks of a cluster share a GPC, so connected SMs share one (a group may be part
// of a GPC, never two). Placement: %smid of each block of a 132-block × 512-thread launch, 3 times.
//
// dirty. Each step is one kernel; the line printed names it. Buffers: F (flush, 3 × L2, only read
// after setup), A (2 × L2, written), B and C (L2 each, read). For S = 0.5, 0.75, 1, 1.25, 1.5, 2 × L2:
// flush (read F), write S of A, read B, read C: the DRAM writes of the write and the two reads say how
// much dirty data the L2 held and when it went back. Then write one 32-byte sector of each line of L2
// bytes of A (does the write-back count the sector or the line?). Then retention under streaming: for
// a = 0.25 and 0.5 × L2 and b = 0.5, 1, 2 × L2: flush, read a of B (once, or twice: "hot"), read b of
// F (the stream), re-read a of B: the re-read's DRAM reads ÷ a's sectors is the share of the first
// footprint the stream pushed out (LRU: all of it once a + b exceeds the room).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

constexpr int kLines = 4096;                   // lines walked (a power of two: the permutation below)
constexpr unsigned kStep = 1597;               // odd: i × kStep mod kLines visits every line once
constexpr int kLineBytes = 128;
constexpr int kShared = 200 * 1024;            // dynamic shared memory: one block an SM
constexpr int kMaxSm = 1024;

__device__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ unsigned long long clock() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

/// One walk of the region by thread 0 of the block on SM `target`: latency of each line, in walk order.
__global__ void chase(const char* region, unsigned target, unsigned* lat, unsigned* ran) {
  extern __shared__ unsigned smem[];
  if (smid() != target || threadIdx.x != 0) return;
  volatile unsigned* sink = smem + kLines;
  unsigned long long v = 0;
  for (unsigned i = 0; i < kLines; ++i) {
    const char* p = region + static_cast<std::size_t>((i * kStep) & (kLines - 1)) * kLineBytes + v;
    unsigned x;
    const unsigned long long t0 = clock();
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(x) : "l"(p) : "memory");
    sink[i & 31] = x;  // waits for the load before the second clock read
    const unsigned long long t1 = clock();
    smem[i] = static_cast<unsigned>(t1 - t0);
    v = x;
  }
  for (unsigned i = 0; i < kLines; ++i) lat[(i * kStep) & (kLines - 1)] = smem[i];  // by line
  *ran = 1;
}

/// Reads and rewrites every 16 bytes of `buf` (n16 of them): evicts the region from the L2.
__global__ void flush_rw(uint4* buf, std::size_t n16) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    uint4 v = __ldcg(buf + i);
    v.x += 1;
    __stcg(buf + i, v);
  }
}

__global__ void d_read(const uint4* buf, std::size_t n16, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}

__global__ void d_write(uint4* buf, std::size_t n16, unsigned val) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n16;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    buf[i] = make_uint4(val, val, val, static_cast<unsigned>(i));
}

/// Writes the first 32-byte sector of each of `lines` 128-byte lines.
__global__ void d_write_sector(uint4* buf, std::size_t lines, unsigned val) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < 2 * lines;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    buf[(i / 2) * 8 + (i % 2)] = make_uint4(val, val, val, static_cast<unsigned>(i));
}

/// %smid of each block; with `spin_ns`, every block stays that long so that all are resident together.
__global__ void where(unsigned* ids, unsigned long long spin_ns) {
  if (threadIdx.x != 0) return;
  ids[blockIdx.x] = smid();
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (unsigned long long t = t0; t - t0 < spin_ns;) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
}

int fail(const char* what) {
  std::fprintf(stderr, "l2_partition: %s\n", what);
  return 2;
}

bool ok(cudaError_t e) { return e == cudaSuccess; }

// ---- map ------------------------------------------------------------------------------------------

struct Split {
  unsigned threshold = 0;             // latencies above it are "far"
  double near_mean = 0, far_mean = 0;
  int far = 0;                        // lines above the threshold
  double valley = 0;                  // share of lines within a quarter of the means' gap of their midpoint
  bool two = false;                   // two clusters: ≥ 5% of lines in each, means ≥ 30 cycles apart, valley < 5%
  std::string bits;                   // '1' for far lines, by line
};

/// Otsu's threshold over the latencies (clipped to 8191 cycles).
Split split(const std::vector<unsigned>& lat) {
  constexpr unsigned kTop = 8192;
  std::vector<double> hist(kTop, 0);
  for (unsigned x : lat) hist[std::min(x, kTop - 1)] += 1;
  const double n = static_cast<double>(lat.size());
  double total = 0;
  for (unsigned i = 0; i < kTop; ++i) total += i * hist[i];
  double w0 = 0, s0 = 0, best = -1;
  Split r;
  for (unsigned t = 0; t + 1 < kTop; ++t) {
    w0 += hist[t];
    s0 += t * hist[t];
    if (w0 == 0 || w0 == n) continue;
    const double m0 = s0 / w0, m1 = (total - s0) / (n - w0);
    const double between = w0 * (n - w0) * (m0 - m1) * (m0 - m1);
    if (between > best) best = between, r.threshold = t, r.near_mean = m0, r.far_mean = m1;
  }
  r.bits.assign(lat.size(), '0');
  for (std::size_t i = 0; i < lat.size(); ++i)
    if (lat[i] > r.threshold) r.bits[i] = '1', ++r.far;
  const double gap = r.far_mean - r.near_mean, mid = (r.far_mean + r.near_mean) / 2;
  for (unsigned x : lat) r.valley += std::abs(x - mid) < gap / 4 ? 1 : 0;
  r.valley /= n;
  r.two = r.far >= 0.05 * n && r.far <= 0.95 * n && gap >= 30 && r.valley < 0.05;
  if (r.far == 0) r.far_mean = 0;
  return r;
}

unsigned quantile(std::vector<unsigned> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

struct Pass {
  std::string round, name;
  unsigned warm = 0, t = 0;
  std::vector<unsigned> lat;
  Split s;
};

struct Gpu {
  int sms = 0;
  std::size_t l2 = 0;
  std::vector<int> smids;  // sorted
};

class Mapper {
 public:
  explicit Mapper(const Gpu& g) : g_(g) {}
  bool setup() {
    if (!ok(cudaMalloc(&region_, 2u << 20)) || !ok(cudaMemset(region_, 0, 2u << 20))) return false;
    flush_bytes_ = 3 * g_.l2;
    if (!ok(cudaMalloc(&scratch_, flush_bytes_)) || !ok(cudaMemset(scratch_, 0, flush_bytes_))) return false;
    if (!ok(cudaMalloc(&lat_d_, kLines * sizeof(unsigned))) || !ok(cudaMalloc(&ran_d_, sizeof(unsigned))))
      return false;
    return ok(cudaFuncSetAttribute(chase, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared));
  }
  [[nodiscard]] std::uintptr_t region_address() const { return reinterpret_cast<std::uintptr_t>(region_); }
  /// One case: flush, `warm` walks, `t` walks twice. False when a walk did not run.
  bool run_case(const std::string& round, unsigned warm, unsigned t, std::vector<Pass>& out) {
    flush_rw<<<4 * g_.sms, 512>>>(reinterpret_cast<uint4*>(scratch_), flush_bytes_ / 16);
    for (const char* name : {"cold", "A", "B"}) {
      Pass p{round, name, warm, t, {}, {}};
      if (!walk(std::strcmp(name, "cold") == 0 ? warm : t, p.lat)) return false;
      p.s = split(p.lat);
      out.push_back(std::move(p));
    }
    return true;
  }

 private:
  /// A walk on SM `sm`; tried up to 5 times, in case no block of the launch landed there.
  bool walk(unsigned sm, std::vector<unsigned>& lat) {
    unsigned zero = 0, ran = 0;
    for (int attempt = 0; attempt < 5 && ran == 0; ++attempt) {
      cudaMemcpy(ran_d_, &zero, sizeof zero, cudaMemcpyHostToDevice);
      chase<<<g_.sms, 32, kShared>>>(region_, sm, lat_d_, ran_d_);
      if (!ok(cudaDeviceSynchronize())) return false;
      cudaMemcpy(&ran, ran_d_, sizeof ran, cudaMemcpyDeviceToHost);
    }
    lat.resize(kLines);
    cudaMemcpy(lat.data(), lat_d_, kLines * sizeof(unsigned), cudaMemcpyDeviceToHost);
    return ran == 1;
  }
  const Gpu& g_;
  char* region_ = nullptr;
  char* scratch_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned* lat_d_ = nullptr;
  unsigned* ran_d_ = nullptr;
};

/// Union-find over SM ids.
struct Groups {
  std::vector<int> up = std::vector<int>(kMaxSm);
  Groups() { std::iota(up.begin(), up.end(), 0); }
  int top(int a) { return up[a] == a ? a : up[a] = top(up[a]); }
  void join(int a, int b) { up[top(a)] = top(b); }
};

/// GPC groups from cluster launches (one block an SM); writes each launch's outcome to `log`.
Groups gpc_groups(FILE* log) {
  Groups gr;
  unsigned* ids = nullptr;
  if (!ok(cudaMalloc(&ids, kMaxSm * sizeof(unsigned)))) return gr;
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
  cudaFuncSetAttribute(where, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  for (unsigned c : {2u, 4u, 8u, 16u}) {
    for (int rep = 0; rep < 3; ++rep) {
      cudaLaunchConfig_t cfg{};
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = c, attr.val.clusterDim.y = 1, attr.val.clusterDim.z = 1;
      cfg.blockDim = dim3(32), cfg.dynamicSmemBytes = kShared, cfg.attrs = &attr, cfg.numAttrs = 1;
      int clusters = 0;
      cfg.gridDim = dim3(c);
      if (!ok(cudaOccupancyMaxActiveClusters(&clusters, where, &cfg)) || clusters < 1) {
        cudaGetLastError();
        std::fprintf(log, "cluster %u: not launchable\n", c);
        break;
      }
      cfg.gridDim = dim3(c * static_cast<unsigned>(clusters));
      const unsigned long long spin = rep == 0 ? 0ull : 20000ull * rep;
      if (!ok(cudaLaunchKernelEx(&cfg, where, ids, spin)) || !ok(cudaDeviceSynchronize())) {
        cudaGetLastError();
        std::fprintf(log, "cluster %u: launch failed\n", c);
        break;
      }
      std::vector<unsigned> h(cfg.gridDim.x);
      cudaMemcpy(h.data(), ids, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
      std::fprintf(log, "cluster %u spin_ns %llu clusters %d:", c, spin, clusters);
      for (std::size_t b = 0; b < h.size(); ++b) {
        std::fprintf(log, "%s%u", b % c == 0 ? " | " : " ", h[b]);
        if (b % c != 0 && h[b] < kMaxSm && h[b - 1] < kMaxSm) gr.join(static_cast<int>(h[b]), static_cast<int>(h[b - 1]));
      }
      std::fprintf(log, "\n");
    }
  }
  cudaFree(ids);
  return gr;
}

/// %smid of each block of a lockstep-like launch (sms blocks × 512 threads), 3 times.
void placement(const Gpu& g, FILE* log) {
  unsigned* ids = nullptr;
  if (!ok(cudaMalloc(&ids, kMaxSm * sizeof(unsigned)))) return;
  for (int rep = 0; rep < 3; ++rep) {
    where<<<g.sms, 512>>>(ids, 20000);
    cudaDeviceSynchronize();
    std::vector<unsigned> h(g.sms);
    cudaMemcpy(h.data(), ids, h.size() * sizeof(unsigned), cudaMemcpyDeviceToHost);
    std::fprintf(log, "placement %d blocks=%d threads=512 smid_of_block:", rep, g.sms);
    for (unsigned s : h) std::fprintf(log, " %u", s);
    std::fprintf(log, "\n");
  }
  cudaFree(ids);
}

double agreement(const std::string& a, const std::string& b) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return static_cast<double>(same) / static_cast<double>(a.size());
}

void summarize(const Gpu& g, const std::vector<Pass>& all, Groups& gr, FILE* sum);

int map_mode(const Gpu& g, const std::string& dir) {
  FILE* passes = std::fopen((dir + "/map-passes.csv").c_str(), "w");
  FILE* bits = std::fopen((dir + "/map-bits.txt").c_str(), "w");
  FILE* raw = std::fopen((dir + "/map-raw.csv").c_str(), "w");
  FILE* sum = std::fopen((dir + "/map-summary.txt").c_str(), "w");
  FILE* gpc = std::fopen((dir + "/gpc-placement.txt").c_str(), "w");
  if (!passes || !bits || !raw || !sum || !gpc) return fail("cannot write to DIR");
  Mapper m(g);
  if (!m.setup()) return fail("cudaMalloc failed");
  std::fprintf(sum, "region at 0x%llx (offset in its 2 MiB page: %llu)\n",
               static_cast<unsigned long long>(m.region_address()),
               static_cast<unsigned long long>(m.region_address() & ((2u << 20) - 1)));
  std::vector<Pass> all;
  auto round = [&](const std::string& name, int warm) {
    for (int t : g.smids)
      if (!m.run_case(name, static_cast<unsigned>(warm < 0 ? t : warm), static_cast<unsigned>(t), all)) return false;
    return true;
  };
  const int w0 = g.smids[0];
  if (!round("self", -1) || !round("w0", w0)) return fail("a walk did not run on its SM");
  int w1 = -1;
  for (const Pass& p : all)
    if (p.round == "w0" && p.name == "A" && p.s.two && static_cast<int>(p.t) != w0) {
      w1 = static_cast<int>(p.t);
      break;
    }
  if (w1 >= 0 && !round("w1", w1)) return fail("a walk did not run on its SM");
  std::fprintf(sum, "warmers: w0 = SM %d, w1 = %s\n", w0, w1 >= 0 ? std::to_string(w1).c_str() : "none (no two-cluster pass A in w0)");

  std::fprintf(passes, "round,pass,warm_sm,sm,threshold,near_mean,far_mean,far_lines,valley,two,p1,p10,p50,p90,p99\n");
  for (const Pass& p : all) {
    std::fprintf(passes, "%s,%s,%u,%u,%u,%.1f,%.1f,%d,%.3f,%d,%u,%u,%u,%u,%u\n", p.round.c_str(), p.name.c_str(), p.warm, p.t,
                 p.s.threshold, p.s.near_mean, p.s.far_mean, p.s.far, p.s.valley, p.s.two ? 1 : 0, quantile(p.lat, 0.01),
                 quantile(p.lat, 0.1), quantile(p.lat, 0.5), quantile(p.lat, 0.9), quantile(p.lat, 0.99));
    std::fprintf(bits, "%s %s %u %u %s\n", p.round.c_str(), p.name.c_str(), p.warm, p.t, p.s.bits.c_str());
  }
  // Raw latencies of every pass of four SMs: the first two, the middle one, the last.
  std::vector<unsigned> rawsm{static_cast<unsigned>(g.smids[0]), static_cast<unsigned>(g.smids[1]),
                              static_cast<unsigned>(g.smids[g.sms / 2]), static_cast<unsigned>(g.smids.back())};
  std::fprintf(raw, "round,pass,warm_sm,sm,latencies_by_line\n");
  for (const Pass& p : all) {
    if (std::find(rawsm.begin(), rawsm.end(), p.t) == rawsm.end()) continue;
    std::fprintf(raw, "%s,%s,%u,%u", p.round.c_str(), p.name.c_str(), p.warm, p.t);
    for (unsigned x : p.lat) std::fprintf(raw, ",%u", x);
    std::fprintf(raw, "\n");
  }

  Groups gr = gpc_groups(gpc);
  placement(g, gpc);
  summarize(g, all, gr, sum);
  for (FILE* f : {passes, bits, raw, sum, gpc}) std::fclose(f);
  return 0;
}

/// map-summary.txt's body after the warmers' line: partition groups, copies, rules, GPC groups, hash.
void summarize(const Gpu& g, const std::vector<Pass>& all, Groups& gr, FILE* sum) {
  // Signature of each SM: its most balanced two-cluster pass A.
  std::vector<const Pass*> sig(kMaxSm, nullptr);
  for (const Pass& p : all) {
    if (p.name != "A" || !p.s.two) continue;
    const Pass*& s = sig[p.t];
    auto balance = [](const Pass* q) { return std::abs(q->s.far - kLines / 2); };
    if (s == nullptr || balance(&p) < balance(s)) s = &p;
  }
  const Pass* ref = nullptr;
  for (int t : g.smids)
    if (sig[t] != nullptr) {
      ref = sig[t];
      break;
    }
  std::vector<int> gmin(kMaxSm, kMaxSm);  // each SM's GPC group, named by its smallest SM id
  for (int t : g.smids) gmin[gr.top(t)] = std::min(gmin[gr.top(t)], t);
  for (int t : g.smids) gmin[t] = gmin[gr.top(t)];
  std::fprintf(sum, "\nper SM: group (0: far set as the reference's, 1: its complement, ? otherwise), agreement with\n"
                    "the reference SM's far set, source of the signature, near and far means of that pass (cycles),\n"
                    "far lines; GPC group (smallest SM id in it); then the copy test: far lines in pass A and B of\n"
                    "each round, and lines far in A and near in B (all at the signature's threshold)\n");
  if (ref == nullptr) {
    std::fprintf(sum, "no SM had a two-cluster pass A: no near/far split seen (one partition, or copies everywhere)\n");
  } else {
    std::fprintf(sum, "reference: SM %u, round %s (far lines %d)\n", ref->t, ref->round.c_str(), ref->s.far);
  }
  std::vector<int> label(kMaxSm, -1);
  double gap_sum = 0;
  int gap_n = 0;
  for (int t : g.smids) {
    std::string line = "sm " + std::to_string(t);
    char buf[256];
    if (sig[t] != nullptr && ref != nullptr) {
      const double a = agreement(sig[t]->s.bits, ref->s.bits);
      label[t] = a > 0.9 ? 0 : a < 0.1 ? 1 : -1;
      gap_sum += sig[t]->s.far_mean - sig[t]->s.near_mean, ++gap_n;
      std::snprintf(buf, sizeof buf, " group %c agree %.3f from %s near %.1f far %.1f far_lines %d", label[t] < 0 ? '?' : '0' + label[t],
                    a, sig[t]->round.c_str(), sig[t]->s.near_mean, sig[t]->s.far_mean, sig[t]->s.far);
    } else {
      std::snprintf(buf, sizeof buf, " group - (no two-cluster pass A)");
    }
    line += buf;
    std::snprintf(buf, sizeof buf, " gpc %d", gmin[t]);
    line += buf;
    // The copy test splits passes A and B at one threshold: the SM's signature's, else the reference's.
    const Pass* cut = sig[t] != nullptr ? sig[t] : ref;
    for (const Pass& p : all) {
      if (cut == nullptr || p.t != static_cast<unsigned>(t) || p.name != "A") continue;
      const Pass& b = (&p)[1];  // pass B follows pass A of the same case
      const unsigned th = cut->s.threshold;
      int far_a = 0, far_b = 0, moved = 0;
      for (int i = 0; i < kLines; ++i) {
        far_a += p.lat[i] > th;
        far_b += b.lat[i] > th;
        moved += p.lat[i] > th && b.lat[i] <= th;
      }
      std::snprintf(buf, sizeof buf, " | %s A %d B %d far->near %d", p.round.c_str(), far_a, far_b, moved);
      line += buf;
    }
    std::fprintf(sum, "%s\n", line.c_str());
  }
  // Cold passes: were the lines out of the L2 after the flush? (DRAM latency everywhere.)
  std::vector<unsigned> cold_p50;
  for (const Pass& p : all)
    if (p.name == "cold") cold_p50.push_back(quantile(p.lat, 0.5));
  std::vector<unsigned> a_p50;
  for (const Pass& p : all)
    if (p.name == "A") a_p50.push_back(quantile(p.lat, 0.5));
  std::fprintf(sum, "\ncold passes: median latency, lowest / median / highest over cases: %u / %u / %u cycles;"
                    " passes A: %u / %u / %u\n",
               *std::min_element(cold_p50.begin(), cold_p50.end()), quantile(cold_p50, 0.5),
               *std::max_element(cold_p50.begin(), cold_p50.end()), *std::min_element(a_p50.begin(), a_p50.end()),
               quantile(a_p50, 0.5), *std::max_element(a_p50.begin(), a_p50.end()));
  if (gap_n > 0) std::fprintf(sum, "far - near, mean over SMs with a signature: %.1f cycles (%d SMs)\n", gap_sum / gap_n, gap_n);
  // Which rule predicts the groups? Share of labelled SMs it puts right (or all wrong: the names swap).
  struct Rule {
    const char* name;
    int (*of)(int sm, int median);
  };
  const int median = g.smids[g.sms / 2];
  const Rule rules[] = {
      {"sm parity (iosim: sm & 1)", [](int s, int) { return s & 1; }},
      {"TPC parity ((sm / 2) & 1)", [](int s, int) { return (s >> 1) & 1; }},
      {"halves (sm >= median id)", [](int s, int med) { return s >= med ? 1 : 0; }},
  };
  std::fprintf(sum, "\nrules (share of labelled SMs whose group the rule gives, up to swapping the names):\n");
  for (const Rule& r : rules) {
    int n = 0, same = 0;
    for (int t : g.smids) {
      if (label[t] < 0) continue;
      ++n;
      same += r.of(t, median) == label[t];
    }
    std::fprintf(sum, "  %s: %s\n", r.name, n ? std::to_string(std::max(same, n - same) * 1.0 / n).c_str() : "-");
  }
  std::fprintf(sum, "\npartition group of each SM (sm:group, ? unknown):");
  for (int t : g.smids) std::fprintf(sum, " %d:%c", t, label[t] < 0 ? '?' : '0' + label[t]);
  std::fprintf(sum, "\n");
  // Does every GPC group lie in one partition group? Each group: its SMs, and how many in each group.
  std::fprintf(sum, "\nGPC groups (SMs that shared a thread-block cluster, joined; a group may be part of a GPC):\n");
  for (int lead : g.smids) {
    if (gmin[lead] != lead) continue;
    int n[3] = {0, 0, 0};
    std::string members;
    for (int t : g.smids)
      if (gmin[t] == lead) members += " " + std::to_string(t), ++n[label[t] + 1];
    std::fprintf(sum, "  gpc %d: partition group 0: %d, 1: %d, unknown: %d; SMs%s\n", lead, n[1], n[2], n[0], members.c_str());
  }
  // Home hash of the reference signature on the line index bits (address bits 7–18).
  if (ref != nullptr) {
    // Bit k is in the mask when flipping it flips most lines' side (a vote over all pairs i, i | 2^k),
    // so that a few mislabelled lines do not spoil the fit; then c by a vote likewise.
    auto far = [&](int i) { return ref->s.bits[i] - '0'; };
    auto parity = [](unsigned x) { return __builtin_popcount(x) & 1; };
    unsigned mask = 0;
    for (int k = 0; (1 << k) < kLines; ++k) {
      int flips = 0;
      for (int i = 0; i < kLines; ++i)
        if (!(i & (1 << k))) flips += far(i) != far(i | (1 << k));
      if (2 * flips > kLines / 2) mask |= 1u << k;
    }
    int ones = 0;
    for (int i = 0; i < kLines; ++i) ones += far(i) ^ parity(static_cast<unsigned>(i) & mask);
    const int c = 2 * ones > kLines ? 1 : 0;
    int miss = 0;
    for (int i = 0; i < kLines; ++i) miss += (parity(static_cast<unsigned>(i) & mask) ^ c) != far(i);
    std::fprintf(sum, "\nhome hash on address bits 7-18 (line index bits 0-11) from SM %u's far set: far = %d xor parity(line & 0x%03x)"
                      " (address mask 0x%05x); lines it gets wrong: %d of %d\n",
                 ref->t, c, mask, mask << 7, miss, kLines);
  }
}

// ---- dirty ----------------------------------------------------------------------------------------

int dirty_mode(const Gpu& g) {
  const std::size_t l2 = g.l2;
  char *f = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
  unsigned* sink = nullptr;
  if (!ok(cudaMalloc(&f, 3 * l2)) || !ok(cudaMalloc(&a, 2 * l2)) || !ok(cudaMalloc(&b, l2)) || !ok(cudaMalloc(&c, l2)) ||
      !ok(cudaMalloc(&sink, 4)))
    return fail("cudaMalloc failed");
  cudaMemset(f, 1, 3 * l2), cudaMemset(a, 2, 2 * l2), cudaMemset(b, 3, l2), cudaMemset(c, 4, l2);
  const dim3 grid(2 * g.sms), block(1024);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  int step = 0;
  // One kernel, timed by events, and its line: step, kind, the size parameter, bytes it touches.
  auto run = [&](const char* kind, double frac, std::size_t bytes, auto launch) {
    cudaEventRecord(e0);
    launch();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    std::printf("step %d kind=%s frac=%.2f bytes=%zu sectors=%zu event_ms=%.4f\n", step++, kind, frac, bytes, bytes / 32,
                static_cast<double>(ms));
    return ok(cudaGetLastError());
  };
  auto rd = [&](const char* kind, double frac, const char* p, std::size_t bytes) {
    return run(kind, frac, bytes, [&] { d_read<<<grid, block>>>(reinterpret_cast<const uint4*>(p), bytes / 16, sink); });
  };
  auto flush = [&] { return rd("flush", 3, f, 3 * l2); };
  auto part = [&](double x) { return static_cast<std::size_t>(x * static_cast<double>(l2)) / 4096 * 4096; };
  cudaDeviceSynchronize();
  bool good = flush() && flush();
  unsigned val = 10;
  for (double s : {0.5, 0.75, 1.0, 1.25, 1.5, 2.0}) {
    good = good && flush() &&
           run("write", s, part(s), [&] { d_write<<<grid, block>>>(reinterpret_cast<uint4*>(a), part(s) / 16, ++val); }) &&
           rd("read1", 1, b, l2) && rd("read2", 1, c, l2);
  }
  // One sector of each line of L2 bytes: 1/4 of them dirty.
  good = good && flush() &&
         run("write_sector", 1, l2 / 4, [&] { d_write_sector<<<grid, block>>>(reinterpret_cast<uint4*>(a), l2 / 128, ++val); }) &&
         rd("read1", 1, b, l2) && rd("read2", 1, c, l2) && flush();
  // Retention under streaming.
  for (double fa : {0.25, 0.5})
    for (double fb : {0.5, 1.0, 2.0})
      for (bool hot : {false, true}) {
        good = good && flush() && rd(hot ? "first_hot" : "first", fa, b, part(fa)) && (!hot || rd("first_again", fa, b, part(fa))) &&
               rd("stream", fb, f, part(fb)) && rd("reread", fa, b, part(fa));
      }
  if (!good) return fail(cudaGetErrorString(cudaGetLastError()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!(mode == "map" && argc == 3) && !(mode == "dirty" && argc == 2))
    return fail("usage: l2_partition map DIR | l2_partition dirty");
  Gpu g;
  cudaDeviceProp prop{};
  if (!ok(cudaGetDeviceProperties(&prop, 0))) return fail("no CUDA device");
  g.sms = prop.multiProcessorCount;
  g.l2 = static_cast<std::size_t>(prop.l2CacheSize);
  if (g.sms < 2 || g.l2 == 0) return fail("fewer than 2 SMs, or no L2 size");
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
  std::printf("gpu %s sms %d l2_bytes %zu sm_clock_khz %d\n", prop.name, g.sms, g.l2, khz);
  // The SMs' ids as %smid gives them: one block an SM (200 KiB of shared memory each).
  unsigned* ids = nullptr;
  if (!ok(cudaMalloc(&ids, g.sms * sizeof(unsigned)))) return fail("cudaMalloc failed");
  cudaFuncSetAttribute(where, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
  where<<<g.sms, 32, kShared>>>(ids, 20000);
  std::vector<unsigned> h(g.sms);
  if (!ok(cudaMemcpy(h.data(), ids, g.sms * sizeof(unsigned), cudaMemcpyDeviceToHost))) return fail("cannot read the SMs' ids");
  g.smids.assign(h.begin(), h.end());
  std::sort(g.smids.begin(), g.smids.end());
  if (std::adjacent_find(g.smids.begin(), g.smids.end()) != g.smids.end() || g.smids.back() >= kMaxSm)
    return fail("two blocks on one SM, or an SM id of 1024 or more");
  cudaFree(ids);
  return mode == "map" ? map_mode(g, argv[2]) : dirty_mode(g);
}
