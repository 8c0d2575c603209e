// What schedules write against: loads, stores and arithmetic, and loops over tiles that carry the
// multiplicity of Walk::runs into every event. A schedule never multiplies counts itself.
#pragma once

#include <cstdint>

#include "sim/core/event_sink.h"
#include "sim/core/tiling.h"

namespace iosim {

class Emitter {
 public:
  Emitter(EventSink& sink, Walk walk, std::uint64_t times = 1) : sink_(&sink), walk_(walk), times_(times) {}

  [[nodiscard]] Walk walk() const { return walk_; }
  [[nodiscard]] std::uint64_t times() const { return times_; }

  /// An emitter whose events each stand for k times as many.
  [[nodiscard]] Emitter repeated(std::uint64_t k) const { return Emitter(*sink_, walk_, checked_mul(times_, k)); }

  void load(const TileRef& t) const { sink_->on_transfer({t, Direction::hbm_to_sram, times_}); }
  /// `requests_per_sector`: Transfer::requests_per_sector (a store written in pieces smaller than a sector).
  void store(const TileRef& t, std::uint32_t requests_per_sector = 1) const {
    sink_->on_transfer({t, Direction::sram_to_hbm, times_, requests_per_sector});
  }
  void reduce(const TileRef& t) const { sink_->on_transfer({t, Direction::reduce, times_}); }

  /// (m × k) · (k × n): 2mnk tensor-core FLOPs, reading `sram_read` bytes of operands from shared memory.
  void matmul(std::uint64_t m, std::uint64_t n, std::uint64_t k, Bytes sram_read = Bytes(0)) const {
    sink_->on_compute(
        {ComputeKind::matmul, Flops(checked_mul(2, checked_mul(m, checked_mul(n, k)))), times_, sram_read, m, n, k});
  }
  void vector(std::uint64_t flops) const { sink_->on_compute({ComputeKind::vector, Flops(flops), times_, Bytes(0)}); }
  /// exp and log evaluations.
  void special(std::uint64_t ops) const { sink_->on_compute({ComputeKind::special, Flops(ops), times_, Bytes(0)}); }
  void step() const { sink_->on_step(); }

  /// f(Span, Emitter&) for the tiles [lo, hi) of t, the emitter scaled by the span's length.
  template <class F>
  void loop(const Tiling& t, std::uint64_t lo, std::uint64_t hi, F&& f) const {
    for_spans(t, walk_, lo, hi, [&](const Span& s) {
      const Emitter inner = repeated(s.count);
      f(s, inner);
    });
  }
  template <class F>
  void loop(const Tiling& t, F&& f) const {
    loop(t, 0, t.count(), static_cast<F&&>(f));
  }

  /// Like loop(), but one tile at a time even in Walk::runs: for loops whose iterations differ (the
  /// inner range of a causal schedule depends on the outer tile).
  template <class F>
  void loop_each(const Tiling& t, F&& f) const {
    for_spans(t, Walk::each, 0, t.count(), [&](const Span& s) { f(s, *this); });
  }

  /// loop() when `uniform`, loop_each() otherwise.
  template <class F>
  void loop_if_uniform(bool uniform, const Tiling& t, F&& f) const {
    if (uniform) {
      loop(t, static_cast<F&&>(f));
    } else {
      loop_each(t, static_cast<F&&>(f));
    }
  }

 private:
  EventSink* sink_;
  Walk walk_;
  std::uint64_t times_;
};

}  // namespace iosim
