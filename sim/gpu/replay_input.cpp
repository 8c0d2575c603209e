#include "sim/gpu/replay_input.h"

#include <bit>
#include <stdexcept>

#include "sim/core/digest.h"
#include "sim/core/error.h"
#include "sim/gpu/launch_work.h"
#include "sim/gpu/occupancy.h"

namespace iosim {

namespace {

/// The words of a stream of transfers and markers, uniquely decodable (so equal words, equal
/// streams): a transfer is a packed word (bit 63 clear: rows, cols, tensor, direction, slice; bit
/// 62: a repeat count follows), then its row and its column; anything else opens with a word whose
/// bit 63 is set and whose low byte says what follows.
class Words {
 public:
  explicit Words(Digest& d) : d_(d) {}
  void transfer(const TileRef& t, Direction dir, std::uint64_t times) {
    const auto tensor = static_cast<std::uint64_t>(index(t.tensor)), way = static_cast<std::uint64_t>(dir);
    if (t.rows < (1u << 24) && t.cols < (1u << 24) && tensor < 16 && way < 4 && t.slice < 256) {
      d_.add(t.rows | t.cols << 24 | tensor << 48 | way << 52 | t.slice << 54 | std::uint64_t{times != 1} << 62);
      if (times != 1) d_.add(times);
    } else {
      d_.add(kOpen | kWide | tensor << 8 | way << 16);
      d_.add(t.rows);
      d_.add(t.cols);
      d_.add(t.slice);
      d_.add(times);
    }
    d_.add(t.row);
    d_.add(t.col);
  }
  void marker(std::uint64_t what) { d_.add(kOpen | what); }
  static constexpr std::uint64_t kWide = 1, kStep = 2, kBlockEnd = 3, kKernel = 4;

 private:
  static constexpr std::uint64_t kOpen = std::uint64_t{1} << 63;
  Digest& d_;
};

/// The schedule's own transfers (what the fast replay's first stride is chosen from).
class TransferWords final : public EventSink {
 public:
  explicit TransferWords(Words& w) : w_(w) {}
  void on_transfer(const Transfer& t) override { w_.transfer(t.tile, t.dir, t.times); }
  void on_compute(const Compute&) override {}

 private:
  Words& w_;
};

/// One block: its transfers and step markers into the words, its work into a profile (the figures
/// BlockRecorder keeps, computed as it computes them).
class BlockWords final : public EventSink {
 public:
  BlockWords(Words& w, DType element) : w_(w), element_(element) {}
  void on_transfer(const Transfer& t) override {
    w_.transfer(t.tile, t.dir, t.times);
    transfer_sram_ += Bytes(t.tile.elements().value * t.times * size_bytes(storage_type(t.tile.tensor, element_)));
  }
  void on_compute(const Compute& c) override { profile_.compute.add(c); }
  void on_step() override {
    w_.marker(Words::kStep);
    ++profile_.steps;
  }
  [[nodiscard]] BlockWork done() {
    w_.marker(Words::kBlockEnd);
    BlockWork p = profile_;
    p.sram = transfer_sram_ + p.compute.sram_operands;
    profile_ = {};
    transfer_sram_ = Bytes(0);
    return p;
  }

 private:
  Words& w_;
  DType element_;
  BlockWork profile_;
  Bytes transfer_sram_;
};

}  // namespace

ReplayInput replay_input(const Schedule& s, const ScheduleContext& ctx, LaunchOrder order) {
  ReplayInput in;
  Digest d;
  Words words(d);
  TransferWords own(words);
  s.emit(Emitter(own, Walk::runs));
  BlockWords block(words, ctx.problem.dtype);
  for (const Kernel* k : s.kernels()) {
    words.marker(Words::kKernel);
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
    std::vector<BlockWork> profiles(xs);
    for (std::uint64_t x = 0; x < xs; ++x) {
      k->block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(block, Walk::each));
      profiles[x] = block.done();
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
