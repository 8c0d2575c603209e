#include "sim/trace/trace_predict.h"

namespace iosim {

namespace {

/// Records each block's transfers with their L2 counts, and where the block ran.
class PlaceRecorder final : public GpuObserver {
 public:
  struct Made {
    TileRef tile;
    Direction dir;
    TransferL2 l2;
  };
  struct Kernel {
    KernelPlaces places;
    std::vector<std::vector<Made>> made;  ///< per block
  };

  void on_kernel(std::string_view name, std::uint64_t blocks, std::uint64_t concurrent, std::uint64_t sms) override {
    waves.on_kernel(name, blocks, concurrent, sms);
    Kernel k;
    k.places = {std::string(name), concurrent, sms, std::vector<BlockPlace>(blocks)};
    k.made.resize(blocks);
    kernels.push_back(std::move(k));
    last_ = {};
  }
  void on_block(std::uint64_t block, std::uint64_t slot, std::uint64_t sm) override {
    waves.on_block(block, slot, sm);
    KernelPlaces& p = kernels.back().places;
    p.blocks.at(block) = {block, block / (p.concurrent == 0 ? 1 : p.concurrent), slot, sm, 0, 0};
  }
  void on_transfer(std::uint64_t block, const TileRef& tile, Direction dir, const LevelCounters& l2) override {
    waves.on_transfer(block, tile, dir, l2);
    kernels.back().made.at(block).push_back({tile, dir, transfer_l2(last_, l2)});
    last_ = l2;
  }

  WaveStats waves;
  std::vector<Kernel> kernels;

 private:
  LevelCounters last_;
};

}  // namespace

TracePrediction predict_trace(const Trace& t, const Schedule& s, const ScheduleContext& ctx,
                              const GpuModelOptions& opt) {
  PlaceRecorder rec;
  GpuModelOptions o = opt;
  o.warm = false;
  o.observer = &rec;
  TracePrediction out;
  out.prediction = predict(s, ctx, o);
  const auto same = [](const TileRef& a, const TileRef& b) {
    return a.tensor == b.tensor && a.row == b.row && a.rows == b.rows && a.col == b.col && a.cols == b.cols &&
           a.slice == b.slice;
  };
  std::uint64_t step = 0;
  out.per_step = true;
  for (const PlaceRecorder::Kernel& k : rec.kernels) {
    for (const auto& made : k.made) {
      for (const PlaceRecorder::Made& m : made) {
        const bool match = step < t.transfers.size() && same(t.transfers[step].tile, m.tile) &&
                           t.transfers[step].dir == m.dir;
        out.per_step = out.per_step && match;
        ++step;
      }
    }
  }
  out.per_step = out.per_step && step == t.transfers.size();
  step = 0;
  for (PlaceRecorder::Kernel& k : rec.kernels) {
    for (std::size_t b = 0; b < k.made.size(); ++b) {
      BlockPlace& place = k.places.blocks[b];
      place.steps = k.made[b].size();
      if (!out.per_step) continue;
      place.first_step = step;
      for (const PlaceRecorder::Made& m : k.made[b]) out.steps.push_back(m.l2);
      step += place.steps;
    }
    out.kernels.push_back(std::move(k.places));
  }
  out.waves = rec.waves.kernels();
  return out;
}

}  // namespace iosim
