// Which line of a full set an L2 evicts. LRU is the model's default; FIFO and random are here to
// compare with, and to keep the policy a plug-in rather than a hard-wired loop.
//
// Each way of a set has an age, stamped from the set's own clock when a line is filled and, under
// LRU, when it is used; 0 means "never filled". A policy ranks a set's ways by their ages and keeps no
// state of its own: the order lives in the set, beside its tags, so that a lookup touches little else
// (host memory latency is what bounds the model's speed).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

namespace iosim {

/// Ages are 16-bit, so a set's ways must leave room for renumbering: far more than any L2 has.
inline constexpr std::uint32_t kMaxWays = 256;
/// Ages stay below this, so that they compare the same as signed 16-bit numbers (SSE2, which scans
/// them, has a signed 16-bit minimum and no unsigned one).
inline constexpr std::uint16_t kAgeLimit = 0x7FFF;

/// Renumbers a set's ages 1, 2, … in the same order (0 stays 0); returns the newest.
std::uint16_t renumber(std::uint16_t* ages, std::uint32_t ways);

/// Gives `way` of a set whose ages are `ages` the set's next age from `clock`, the newest age the set
/// has stamped. Only the order of a set's ages matters, so when the clock reaches its limit the ages
/// are first renumbered and the clock restarts from the newest. (Inline: it runs on every lookup.)
inline void stamp(std::uint16_t* ages, std::uint32_t ways, std::uint32_t way, std::uint16_t& clock) {
  if (clock >= kAgeLimit) [[unlikely]] clock = renumber(ages, ways);
  ages[way] = ++clock;
}

/// A policy says whether a hit renews a way's age (a fill always does) and which way to fill next.
class Replacement {
 public:
  explicit Replacement(bool ages_on_hit) : ages_on_hit_(ages_on_hit) {}
  Replacement(const Replacement&) = delete;
  Replacement& operator=(const Replacement&) = delete;
  virtual ~Replacement() = default;

  /// True when a hit stamps the way with the set's clock, as a fill does.
  [[nodiscard]] bool ages_on_hit() const { return ages_on_hit_; }
  /// The way to fill next: one never filled (age 0) when there is one, else the one to evict. Pure.
  [[nodiscard]] virtual std::uint32_t victim(const std::uint16_t* ages, std::uint32_t ways) const = 0;
  /// True when victim() depends only on the order of a set's nonzero ages, not on their values or on
  /// which way holds which line (LRU, FIFO): then a set's future is decided by its lines in age order.
  [[nodiscard]] virtual bool order_only() const { return false; }

 private:
  bool ages_on_hit_;
};

/// Least recently used: a way's age is the set's clock when it was last filled or used; the oldest goes.
class LruReplacement final : public Replacement {
 public:
  LruReplacement() : Replacement(true) {}
  std::uint32_t victim(const std::uint16_t* ages, std::uint32_t ways) const override;
  bool order_only() const override { return true; }
};

/// First in, first out: the age is the set's clock when the way was filled; hits change nothing.
class FifoReplacement final : public Replacement {
 public:
  FifoReplacement() : Replacement(false) {}
  std::uint32_t victim(const std::uint16_t* ages, std::uint32_t ways) const override;
  bool order_only() const override { return true; }
};

/// Random: a way chosen by a hash of the set's fill ages (deterministic, so runs repeat; with no
/// relation to the access pattern). Hits change nothing. Unlike LRU and FIFO, a cyclic working set a
/// little larger than the cache keeps part of its lines instead of missing on every access: real L2s
/// degrade gracefully near their capacity (docs/validation.md), and this is the simplest policy that
/// does.
class RandomReplacement final : public Replacement {
 public:
  RandomReplacement() : Replacement(false) {}
  std::uint32_t victim(const std::uint16_t* ages, std::uint32_t ways) const override;
};

/// "lru", "fifo" or "random"; nullptr for another name.
[[nodiscard]] std::unique_ptr<Replacement> make_replacement(std::string_view name);

}  // namespace iosim
