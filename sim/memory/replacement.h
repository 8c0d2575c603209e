// Which line of a full set an L2 evicts. LRU is the model's default; FIFO and random are here to
// compare with, and to keep the policy a plug-in rather than a hard-wired loop.
//
// A policy keeps one 32-bit word per way, which the cache stores beside the set's tags (one set's
// state is contiguous in memory: the model's speed is bound by memory latency, not arithmetic).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace iosim {

class Replacement {
 public:
  Replacement() = default;
  Replacement(const Replacement&) = delete;
  Replacement& operator=(const Replacement&) = delete;
  virtual ~Replacement() = default;

  /// A new run: the word of every way of every set is 0, which means "never filled".
  virtual void reset() = 0;
  /// `way` of the set whose words are `w` was filled with a new line.
  virtual void filled(std::uint32_t* w, std::uint32_t ways, std::uint32_t way) = 0;
  /// `way` was used (a hit). May not change which lines are in the set.
  virtual void touched(std::uint32_t* w, std::uint32_t ways, std::uint32_t way) = 0;
  /// The way to fill next: one never filled when there is one, else the one to evict. Pure.
  [[nodiscard]] virtual std::uint32_t victim(const std::uint32_t* w, std::uint32_t ways) const = 0;
  /// The clock would wrap: renumber `w` keeping its order (called by the cache for every set).
  virtual void renumber(std::uint32_t* w, std::uint32_t ways) const = 0;
  /// True when the clock needs renumber() on every set before the next fill or touch.
  [[nodiscard]] virtual bool wrapping() const = 0;
  virtual void renumbered(std::uint32_t ways) = 0;
};

/// The policies here all keep, per way, the value of one clock that ticks at every fill (and, for LRU,
/// at every hit); they differ in when they tick it and which way they evict.
class ClockedReplacement : public Replacement {
 public:
  void reset() override { clock_ = 0; }
  void filled(std::uint32_t* w, std::uint32_t, std::uint32_t way) override { w[way] = ++clock_; }
  void touched(std::uint32_t*, std::uint32_t, std::uint32_t) override {}
  void renumber(std::uint32_t* w, std::uint32_t ways) const override;
  bool wrapping() const override { return clock_ == ~std::uint32_t{0}; }
  void renumbered(std::uint32_t ways) override { clock_ = ways; }

 protected:
  std::uint32_t clock_ = 0;
};

/// Least recently used: each way's word is the clock when it was last filled or used; the oldest goes.
class LruReplacement final : public ClockedReplacement {
 public:
  void touched(std::uint32_t* w, std::uint32_t, std::uint32_t way) override { w[way] = ++clock_; }
  std::uint32_t victim(const std::uint32_t* w, std::uint32_t ways) const override;
};

/// First in, first out: the word is the clock when the way was filled; hits change nothing.
class FifoReplacement final : public ClockedReplacement {
 public:
  std::uint32_t victim(const std::uint32_t* w, std::uint32_t ways) const override;
};

/// Random: a way chosen by a hash of the set's fill clocks (deterministic, so runs repeat; with no
/// relation to the access pattern). Hits change nothing. Unlike LRU and FIFO, a cyclic working set a
/// little larger than the cache keeps part of its lines instead of missing on every access: real L2s
/// degrade gracefully near their capacity (docs/validation.md), and this is the simplest policy that
/// does.
class RandomReplacement final : public ClockedReplacement {
 public:
  std::uint32_t victim(const std::uint32_t* w, std::uint32_t ways) const override;
};

/// "lru", "fifo" or "random"; nullptr for another name.
[[nodiscard]] std::unique_ptr<Replacement> make_replacement(std::string_view name);

}  // namespace iosim
