// The tiles search replays the L2 once for candidates whose replays are the same (sim/gpu/replay_input.h):
// shared and unshared searches give the same JSON, candidate for candidate, over a grid of searches
// (schedules, passes, causal, GQA, decode, one and two L2 partitions, fast and exact replay); and
// what the replay input tells apart.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "sim/gpu/replay_input.h"
#include "sim/tiles/search.h"
#include "src/report/tiles_report.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// An A100 cut down to 16 SMs and a 4 MiB L2, so that small problems run several waves and heads.
HardwareSpec small_gpu(std::uint32_t partitions) {
  HardwareSpec hw = a100();
  hw.sm.count = 16;
  hw.l2.capacity = Bytes(std::uint64_t{4} << 20);
  hw.l2.partitions = partitions;
  return hw;
}

/// Every field of a candidate's prediction and time that the JSON leaves out, doubles bit for bit.
std::string fields_of(const std::vector<TileCandidate>& cs) {
  std::ostringstream o;
  o << std::hexfloat;
  for (const TileCandidate& c : cs) {
    const Prediction& p = c.predicted;
    o << p.sample_stride << ' ' << p.dirty_at_end.value << '\n';
    for (const KernelPrediction& k : p.kernels) {
      o << k.name << ' ' << k.blocks << ' ' << k.launch.threads << ' ' << k.launch.smem.value << ' '
        << k.occupancy.concurrent << ' ' << k.waves << ' ' << k.l2_read_sectors << ' ' << k.l2_write_sectors << ' '
        << k.l2_red_sectors << ' ' << k.l2_fabric_read_sectors << ' ' << k.dram_read.value << ' '
        << k.dram_write.value << ' ' << k.matmul.value << ' ' << k.vector.value << ' ' << k.special.value << ' '
        << k.sram.value << ' ' << k.busiest.matmul_flops << ' ' << k.busiest.vector_flops << ' '
        << k.busiest.special_ops << ' ' << k.busiest.sram_bytes << ' ' << k.heads_replayed << '\n';
    }
    for (const KernelTime& t : c.time.kernels) {
      o << t.dram_s << ' ' << t.l2_s << ' ' << t.sram_s << ' ' << t.tensor_s << ' ' << t.special_s << ' '
        << t.vector_s << ' ' << t.total_s << '\n';
    }
  }
  return o.str();
}

/// The search's JSON, then fields_of() its candidates.
std::string json_of(const Problem& p, const HardwareSpec& hw, const TileSearchSpec& spec) {
  report::TilesReport r;
  r.config_file = "test";
  r.hardware = hw;
  r.problem = p;
  r.spec = spec;
  r.candidates = search_tiles(context(p, hw), spec);
  r.top = r.candidates.size();
  return report::render_tiles_json(r) + fields_of(r.candidates);
}

struct Search {
  const char* schedule;
  Pass pass;
  Problem problem;
};

std::vector<Search> searches() {
  Problem causal = problem(2048, 64, 1, 8);
  causal.causal = true;
  Problem gqa = problem(1024, 128, 1, 8);
  gqa.kv_heads = 2;
  Problem decode = problem(1, 128, 4, 8, 4096);
  decode.kv_heads = 2;
  return {{"flash2", Pass::fwd, problem(2048, 64, 1, 8)}, {"flash2", Pass::bwd, causal},
          {"flash2", Pass::fwd, gqa},                     {"flash1", Pass::fwd, problem(1024, 64, 2, 4)},
          {"flashdecode", Pass::fwd, decode}};
}

}  // namespace

TEST_CASE("tiles: shared replays give the JSON that a replay per candidate gives") {
  for (const Search& s : searches()) {
    for (std::uint32_t partitions : {1u, 2u}) {
      for (L2Mode mode : {L2Mode::fast, L2Mode::exact}) {
        CAPTURE(s.schedule);
        CAPTURE(static_cast<int>(s.pass));
        CAPTURE(partitions);
        CAPTURE(l2_mode_name(mode));
        TileSearchSpec spec;
        spec.schedule = s.schedule;
        spec.pass = s.pass;
        spec.sizes = {32, 64, 128};
        spec.stages = {1, 2, 4};
        spec.gpu.l2 = mode;
        spec.share_replays = true;
        const HardwareSpec hw = small_gpu(partitions);
        const std::string shared = json_of(s.problem, hw, spec);
        spec.share_replays = false;
        CHECK(shared == json_of(s.problem, hw, spec));
        CHECK(shared.find("\"feasible\": true") != std::string::npos);
      }
    }
  }
}

TEST_CASE("replay input: the same for warps and stages that get as many blocks per SM, else not") {
  const HardwareSpec hw = small_gpu(2);
  const auto input = [&](std::uint64_t br, std::uint64_t bc, std::uint32_t warps, std::uint32_t stages) {
    ScheduleContext ctx = context(problem(2048, 64, 1, 4), hw, tiles(br, bc));
    ctx.kernel = {warps, stages};
    return replay_input(*make_schedule("flash2", Pass::fwd, ctx), ctx, LaunchOrder::x_major);
  };
  const ReplayInput a = input(64, 64, 4, 1), b = input(64, 64, 4, 2);
  REQUIRE(a.work.size() == 1);
  // 64 × 64 at d 64, fp16: Q 8 KiB + K and V 8 KiB a stage each: 24 KiB (1 stage) and 40 KiB (2 stages),
  // under the registers' limit of blocks per SM either way.
  CHECK(a.work[0].occupancy.concurrent == b.work[0].occupancy.concurrent);
  CHECK(a.same_replay(b));
  CHECK(a.work[0].launch.smem != b.work[0].launch.smem);  // the work differs, the replay does not
  // Warps change the arithmetic's operands and the threads, so the blocks per SM at most.
  std::size_t same_occupancy = 0;
  for (const auto& [br, bc] : {std::pair<std::uint64_t, std::uint64_t>{256, 16}, {128, 32}, {128, 16}, {64, 64}}) {
    const ReplayInput four = input(br, bc, 4, 2), eight = input(br, bc, 8, 2);
    const bool same = four.work[0].occupancy.concurrent == eight.work[0].occupancy.concurrent;
    same_occupancy += same ? 1 : 0;
    CHECK(four.same_replay(eight) == same);
  }
  CHECK(same_occupancy > 0);
  const ReplayInput c = input(64, 64, 4, 4);              // 72 KiB: fewer blocks per SM
  CHECK(c.work[0].occupancy.concurrent < a.work[0].occupancy.concurrent);
  CHECK(!a.same_replay(c));
  CHECK(!a.same_replay(input(64, 32, 4, 1)));   // other tiles: other blocks
  CHECK(!a.same_replay(input(128, 64, 4, 1)));
}
