// Line requests on their way to the L2, batched: the blocks' tiles, mapped to lines, wait here in
// order, in runs of one request kind from one SM, charged to one tag (the fast replay's
// block; 0 for the exact replay), and go to the L2 in that order when the batch is drained. The L2
// never changes what the blocks ask for, so batching requests across blocks and steps changes no
// count. One copy for both replays (gpu_model.cpp, fast_replay.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/transfer.h"
#include "sim/gpu/address_map.h"
#include "sim/memory/memory_level.h"

namespace iosim {

/// The request a transfer makes of the L2.
[[nodiscard]] inline Request request_of(Direction d) {
  switch (d) {
    case Direction::hbm_to_sram: return Request::read;
    case Direction::sram_to_hbm: return Request::write;
    case Direction::reduce: return Request::reduce;
  }
  return Request::read;
}

class RequestBatch {
 public:
  /// Lines a batch holds before the caller should drain it.
  static constexpr std::size_t kLines = 4096;

  /// `l2` outlives the batch.
  explicit RequestBatch(MemoryLevel& l2) : l2_(l2) {}

  /// Where a tile's lines are appended (AddressMap::lines(), SetSample::add()); mark() them next.
  [[nodiscard]] std::vector<LineAccess>& lines() { return lines_; }
  /// The lines appended since the last mark() are `r` requests from SM `sm`, charged to `tag`.
  void mark(Request r, std::uint32_t sm, std::uint64_t tag) {
    if (!runs_.empty() && runs_.back().sm == sm && runs_.back().request == r && runs_.back().tag == tag) {
      runs_.back().end = lines_.size();
    } else if (runs_.empty() || runs_.back().end < lines_.size()) {
      runs_.push_back({lines_.size(), sm, r, tag});
    }
  }
  [[nodiscard]] bool full() const { return lines_.size() >= kLines; }
  /// Whether drain() hints the L2 ahead (the default); without, where the L2's state fits in the
  /// host's caches, the hints are work that hides no latency.
  void set_hints(bool on) { hints_ = on; }

  /// Sends every waiting request to the L2 in order, hinting it kAhead requests ahead (its lookups
  /// miss the host's caches on big problems); `before(tag)` and `after(tag)` run around each run.
  template <class Before, class After>
  void drain(Before&& before, After&& after) {
    const std::size_t n = lines_.size();
    std::size_t hinted_run = 0;
    const auto hint = [&](std::size_t i) {
      while (runs_[hinted_run].end <= i) ++hinted_run;
      const Run& r = runs_[hinted_run];
      l2_.prefetch(lines_[i].line, r.request, r.sm);
    };
    const std::size_t hinted = hints_ ? n : 0;
    for (std::size_t i = 0; i < std::min(kAhead, hinted); ++i) hint(i);
    std::size_t i = 0;
    for (const Run& r : runs_) {
      before(r.tag);
      for (; i < r.end; ++i) {
        if (i + kAhead < hinted) hint(i + kAhead);
        l2_.request(r.request, lines_[i].line, lines_[i].mask, r.sm);
      }
      after(r.tag);
    }
    lines_.clear();
    runs_.clear();
  }
  void drain() {
    drain([](std::uint64_t) {}, [](std::uint64_t) {});
  }

 private:
  static constexpr std::size_t kAhead = 8;
  /// lines_[previous run's end, end) are `request`s of SM `sm`, charged to `tag`.
  struct Run {
    std::size_t end;
    std::uint32_t sm;
    Request request;
    std::uint64_t tag;
  };

  MemoryLevel& l2_;
  std::vector<LineAccess> lines_;
  std::vector<Run> runs_;
  bool hints_ = true;
};

}  // namespace iosim
