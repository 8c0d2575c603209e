// Host-only check of l2_partition.cu's map summary (no GPU): made-up walks from a known L2 (SM s in
// partition (s / 2) & 1, home of line i = parity(i & 0x2a5), hits 300 cycles near and 480 far, DRAM
// 800–950, 0–29 cycles of noise) run through the same split() and summarize(). With `copy`, a far read
// or DRAM fill leaves a near copy; with `nocopy`, lines live in their home only. Expected either way:
// "TPC parity ((sm / 2) & 1): 1.000000" and "lines it gets wrong: 0" with mask 0x2a5; with `copy`,
// pass B of the w0/w1 rounds has no far lines; with `nocopy`, B as A.
// Build and run: nvcc -O2 -arch=sm_90 -o /tmp/summary_check summary_check.cu && /tmp/summary_check copy
#define main l2_partition_main
#include "l2_partition.cu"
#undef main

#include <random>

namespace {

std::mt19937 noise(7);
bool copies = true;
int partition(unsigned sm) { return (sm >> 1) & 1; }
int home(int line) { return __builtin_popcount(static_cast<unsigned>(line) & 0x2a5u) & 1; }

/// A walk of SM `sm` over the lines, `in[p][i]`: line i is in partition p.
std::vector<unsigned> walk(std::vector<int> (&in)[2], unsigned sm, bool cold) {
  std::vector<unsigned> lat(kLines);
  const int p = partition(sm);
  for (int i = 0; i < kLines; ++i) {
    unsigned l = in[p][i] ? 300 : in[1 - p][i] ? 480 : 800 + 150 * (home(i) != p);
    if (cold) l = 800 + 150 * (home(i) != p);
    lat[i] = l + noise() % 30;
    in[home(i)][i] = 1;
    if (copies) in[p][i] = 1;
  }
  return lat;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || (std::strcmp(argv[1], "copy") != 0 && std::strcmp(argv[1], "nocopy") != 0)) {
    std::fprintf(stderr, "usage: summary_check copy|nocopy\n");
    return 2;
  }
  copies = std::strcmp(argv[1], "copy") == 0;
  Gpu g;
  g.sms = 132, g.l2 = 52428800;
  for (int i = 0; i < g.sms; ++i) g.smids.push_back(i);
  std::vector<Pass> all;
  auto run_case = [&](const char* round, unsigned w, unsigned t) {
    std::vector<int> in[2] = {std::vector<int>(kLines, 0), std::vector<int>(kLines, 0)};
    for (const char* name : {"cold", "A", "B"}) {
      const bool cold = std::strcmp(name, "cold") == 0;
      Pass p{round, name, w, t, walk(in, cold ? w : t, cold), {}};
      p.s = split(p.lat);
      all.push_back(std::move(p));
    }
  };
  for (int t : g.smids) run_case("self", t, t);
  for (int t : g.smids) run_case("w0", 0, t);
  int w1 = -1;
  for (const Pass& p : all)
    if (p.round == "w0" && p.name == "A" && p.s.two && p.t != 0) {
      w1 = static_cast<int>(p.t);
      break;
    }
  if (w1 >= 0)
    for (int t : g.smids) run_case("w1", static_cast<unsigned>(w1), t);
  std::printf("w1 %d\n", w1);
  Groups gr;  // GPC groups of 16 consecutive SMs
  for (int t = 1; t < g.sms; ++t)
    if (t / 16 == (t - 1) / 16) gr.join(t, t - 1);
  summarize(g, all, gr, stdout);
  return 0;
}
