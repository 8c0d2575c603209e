// BlockBytes (sim/gpu/block_bytes.h): a block's steps kept in segments of repeats replay, step by
// step, the transfers the block's events map to, in order, with the same step markers.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/gpu/address_map.h"
#include "sim/gpu/block_bytes.h"
#include "sim/gpu/request_batch.h"
#include "sim/schedule/kernel.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// One transfer, or a step marker (tensor 0xFF), as the replay sees it.
struct Flat {
  TileBytes b{};
  std::uint8_t tensor = 0xFF;
  Request request = Request::read;
  bool operator==(const Flat& o) const {
    return tensor == o.tensor && request == o.request && b.start == o.b.start && b.width == o.b.width &&
           b.stride == o.b.stride && b.rows == o.b.rows;
  }
};

std::vector<Flat> expanded(const BlockBytes& r) {
  std::vector<Flat> out;
  for (const BlockBytes::Segment& g : r.segments) {
    for (std::uint64_t k = 0; k < g.repeats; ++k) {
      for (std::uint32_t i = g.begin; i < g.end; ++i) out.push_back({r.items[i].at(0, k), r.items[i].tensor, r.items[i].request});
      if (g.marker) out.push_back({});
    }
  }
  return out;
}

std::vector<Flat> events(const Kernel& k, std::uint64_t x, const AddressMap& amap, DType element) {
  BlockRecorder rec;
  rec.reset(element);
  const Tiling g = k.grid_x();
  k.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(rec, Walk::each));
  std::vector<Flat> out;
  for (const auto& e : rec.events) {
    if (e.step) {
      out.push_back({});
      continue;
    }
    out.push_back({amap.bytes(e.tile, 0, k.head_map(e.tile.tensor)), static_cast<std::uint8_t>(index(e.tile.tensor)),
                   request_of(e.dir)});
  }
  return out;
}

/// One block whose steps load K tiles at rows `rows` in turn, then store an O tile: steps that look
/// alike but do not move by one distance, and steps that do.
class Irregular final : public Kernel {
 public:
  explicit Irregular(std::vector<std::uint64_t> rows) : rows_(std::move(rows)) {}
  std::string_view name() const override { return "irregular"; }
  Tiling grid_x() const override { return {64, 64}; }
  std::uint64_t grid_heads() const override { return 1; }
  LaunchShape launch() const override { return {}; }
  void block(const Span&, const Emitter& e) const override {
    for (std::uint64_t r : rows_) {
      e.load({Tensor::K, r, 64, 0, 64, 0});
      e.load({Tensor::V, r, 64, 0, 64, 0});
      e.step();
    }
    e.store({Tensor::O, 0, 64, 0, 64, 0});
  }

 private:
  std::vector<std::uint64_t> rows_;
};

}  // namespace

TEST_CASE("block bytes: steps that look alike but do not move by one distance are not folded") {
  const ScheduleContext ctx = context(problem(1024, 64, 1, 1));
  const AddressMap amap(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes);
  // 0, 64, 128 move by 64; 320 breaks the run; 384, 448 move by 64 again; 0 goes back.
  const Irregular k({0, 64, 128, 320, 384, 448, 0});
  BlockBytes r;
  BlockRecorder scratch;
  r.record(k, 0, amap, ctx.problem.dtype, scratch);
  CHECK(expanded(r) == events(k, 0, amap, ctx.problem.dtype));
  CHECK(r.steps == 7);
  // {0, 64, 128}, {320, 384, 448}, {0}, then the store: four segments.
  CHECK(r.segments.size() == 4);
}

TEST_CASE("block bytes: segments of repeated steps replay every block's events in order") {
  std::uint64_t steps = 0, segments = 0;
  for (const char* name : {"naive", "flash1", "flash2", "flashdecode"}) {
    for (Pass pass : {Pass::fwd, Pass::bwd}) {
      for (bool causal : {false, true}) {
        Problem p = problem(1024, 64, 1, 2);
        p.causal = causal;
        const ScheduleContext ctx = context(p);
        if (std::string(name) == "flashdecode" && (pass == Pass::bwd || causal)) continue;
        const auto s = make_schedule(name, pass, ctx);
        const AddressMap amap(ctx.problem, ctx.hardware.l2.line_bytes, ctx.hardware.l2.sector_bytes);
        for (const Kernel* k : s->kernels()) {
          for (std::uint64_t x = 0; x < k->grid_x().count(); ++x) {
            CAPTURE(name);
            CAPTURE(static_cast<int>(pass));
            CAPTURE(causal);
            CAPTURE(x);
            BlockBytes r;
            BlockRecorder scratch;
            r.record(*k, x, amap, ctx.problem.dtype, scratch);
            const std::vector<Flat> want = events(*k, x, amap, ctx.problem.dtype);
            CHECK(r.recorded);
            CHECK(r.steps == static_cast<std::uint64_t>(std::count_if(want.begin(), want.end(), [](const Flat& f) { return f.tensor == 0xFF; })));
            CHECK(expanded(r) == want);
            if (std::string(name) == "flash2") {
              steps += r.steps;
              segments += r.segments.size();
            }
          }
        }
      }
    }
  }
  // flash2's K/V and Q loops fold: fewer than half as many segments as steps, at 16 K/V tiles a block.
  CHECK(segments * 2 < steps);
}
