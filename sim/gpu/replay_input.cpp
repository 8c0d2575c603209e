#include "sim/gpu/replay_input.h"

#include <stdexcept>

#include "sim/core/error.h"
#include "sim/gpu/block_recorder.h"
#include "sim/gpu/launch_work.h"
#include "sim/gpu/occupancy.h"

namespace iosim {

namespace {

/// Two 64-bit lanes, each word mixed in by a different multiply-xorshift chain.
class Digest {
 public:
  void add(std::uint64_t w) {
    a_ = mix((a_ ^ w) * 0x9E3779B97F4A7C15ULL);
    b_ = mix((b_ + w) * 0xC2B2AE3D27D4EB4FULL + 0x165667B19E3779F9ULL);
  }
  void add(const TileRef& t, Direction dir, std::uint64_t times) {
    add(static_cast<std::uint64_t>(index(t.tensor)) | (static_cast<std::uint64_t>(dir) << 8));
    add(t.row);
    add(t.rows);
    add(t.col);
    add(t.cols);
    add(t.slice);
    add(times);
  }
  [[nodiscard]] std::array<std::uint64_t, 2> value() const { return {a_, b_}; }

 private:
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::uint64_t a_ = 0x243F6A8885A308D3ULL, b_ = 0x13198A2E03707344ULL;
};

/// The schedule's own transfers (what the fast replay's first stride is chosen from).
class TransferDigest final : public EventSink {
 public:
  explicit TransferDigest(Digest& d) : d_(d) {}
  void on_transfer(const Transfer& t) override { d_.add(t.tile, t.dir, t.times); }
  void on_compute(const Compute&) override {}

 private:
  Digest& d_;
};

constexpr std::uint64_t kStepWord = 0x5354455000000000ULL;  // a step marker among the transfers' words

}  // namespace

ReplayInput replay_input(const Schedule& s, const ScheduleContext& ctx, LaunchOrder order) {
  ReplayInput in;
  Digest d;
  TransferDigest own(d);
  s.emit(Emitter(own, Walk::runs));
  BlockRecorder rec;
  for (const Kernel* k : s.kernels()) {
    KernelPrediction w;
    w.name = std::string(k->name());
    w.launch = k->launch();
    w.occupancy = occupancy(w.launch, ctx.hardware.sm);
    if (!w.occupancy.infeasible.empty()) throw InputError("kernel " + w.name + " cannot run: " + w.occupancy.infeasible);
    const Tiling g = k->grid_x();
    const std::uint64_t xs = g.count(), heads = k->grid_heads();
    w.blocks = xs * heads;
    w.waves = static_cast<double>(w.blocks) / static_cast<double>(w.occupancy.concurrent);
    in.shape.insert(in.shape.end(), {xs, heads, w.occupancy.concurrent});
    for (Tensor t : kAllTensors) in.shape.push_back(static_cast<std::uint64_t>(k->head_map(t)));
    std::vector<BlockProfile> profiles(xs);
    for (std::uint64_t x = 0; x < xs; ++x) {
      rec.reset(ctx.problem.dtype);
      k->block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(rec, Walk::each));
      for (const BlockRecorder::Event& e : rec.events) {
        if (e.step) {
          d.add(kStepWord);
          ++profiles[x].steps;
        } else {
          d.add(e.tile, e.dir, 1);
        }
      }
      d.add(kStepWord + 1);  // the block's end
      profiles[x].compute = rec.compute;
      profiles[x].sram = rec.sram();
    }
    schedule_launch(profiles, heads, order, ctx.hardware.sm.count, w);
    in.work.push_back(std::move(w));
  }
  in.digest = d.value();
  return in;
}

Prediction with_work(Prediction replayed, const ReplayInput& own) {
  if (replayed.kernels.size() != own.work.size()) throw std::logic_error("with_work: not the same kernels");
  for (std::size_t i = 0; i < own.work.size(); ++i) {
    KernelPrediction& k = replayed.kernels[i];
    const KernelPrediction& w = own.work[i];
    k.name = w.name;
    k.blocks = w.blocks;
    k.launch = w.launch;
    k.occupancy = w.occupancy;
    k.waves = w.waves;
    k.matmul = w.matmul;
    k.vector = w.vector;
    k.special = w.special;
    k.sram = w.sram;
    k.busiest = w.busiest;
  }
  return replayed;
}

}  // namespace iosim
