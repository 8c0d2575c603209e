#include "sim/memory/l2_cache.h"

#include <algorithm>
#include <stdexcept>

namespace iosim {

L2Cache::L2Cache(const L2Spec& spec, std::unique_ptr<Replacement> policy, MemoryLevel& below, SetIndex index)
    : sets_(0), ways_(spec.ways), sectors_(0), sector_bytes_(spec.sector_bytes), index_(index), policy_(std::move(policy)), below_(&below) {
  if (spec.line_bytes == 0 || spec.sector_bytes == 0 || spec.ways == 0) throw std::invalid_argument("L2: zero size");
  sectors_ = spec.line_bytes / spec.sector_bytes;
  if (sectors_ == 0 || sectors_ > 8) throw std::invalid_argument("L2: 1 to 8 sectors per line");
  sets_ = spec.capacity.value / (std::uint64_t{spec.line_bytes} * spec.ways);
  if (sets_ == 0) throw std::invalid_argument("L2: capacity below one set");
  if (sets_ >= (std::uint64_t{1} << 32)) throw std::invalid_argument("L2: too many sets");
  by_sets_.set(sets_);
  if (!policy_) throw std::invalid_argument("L2: no replacement policy");
  stride_ = 3 * std::uint64_t{ways_};
  invalidate();
}

namespace {

/// Rotation of the span of `sets` lines number `tag`: consecutive lines go to consecutive sets, and
/// strides of the cache's size do not pile into one set. (h × sets) >> 32 maps the hash's top 32 bits
/// onto [0, sets) without a division.
std::uint64_t rotation(std::uint64_t tag, std::uint64_t sets) {
  std::uint64_t h = tag * 0x9E3779B97F4A7C15ull;
  h ^= h >> 29;
  return ((h >> 32) * sets) >> 32;
}

}  // namespace

L2Cache::Place L2Cache::place(std::uint64_t line) const {
  std::uint64_t offset = 0;
  const std::uint64_t tag = by_sets_.div(line, offset);
  if (tag >= kEmpty) throw std::out_of_range("L2: address beyond the model's range");
  std::uint64_t set = offset;
  if (index_ == SetIndex::hashed) {
    set += rotation(tag, sets_);
    if (set >= sets_) set -= sets_;
  }
  return {set, static_cast<std::uint32_t>(tag)};
}

std::uint64_t L2Cache::line_of(std::uint64_t set, std::uint32_t tag) const {
  const std::uint64_t r = index_ == SetIndex::modulo ? 0 : rotation(tag, sets_);
  return std::uint64_t{tag} * sets_ + (set + sets_ - r) % sets_;
}

namespace {
constexpr std::uint32_t valid_of(std::uint32_t m) { return m & 0xFFu; }
constexpr std::uint32_t dirty_of(std::uint32_t m) { return (m >> 8) & 0xFFu; }
}  // namespace

void L2Cache::write_back(std::uint64_t set, std::uint32_t way) {
  std::uint32_t* w = set_words(set);
  std::uint32_t& masks = w[2 * ways_ + way];
  const std::uint32_t dirty = dirty_of(masks);
  if (dirty != 0) {
    below_->write(line_of(set, w[way]), dirty);
    counters_.written_back_sectors += sector_count(dirty);
    masks = valid_of(masks);
  }
}

void L2Cache::renumber_all() {
  for (std::uint64_t set = 0; set < sets_; ++set) policy_->renumber(set_words(set) + ways_, ways_);
  policy_->renumbered(ways_);
}

std::uint32_t L2Cache::way_for(const Place& at) {
  if (policy_->wrapping()) renumber_all();
  std::uint32_t* w = set_words(at.set);
  for (std::uint32_t way = 0; way < ways_; ++way) {
    if (w[way] == at.tag) {
      policy_->touched(w + ways_, ways_, way);
      return way;
    }
  }
  // Empty ways were never filled, so every policy ranks them first.
  const std::uint32_t way = policy_->victim(w + ways_, ways_);
  if (w[way] != kEmpty) {
    write_back(at.set, way);
    ++counters_.evicted_lines;
  }
  w[way] = at.tag;
  w[2 * ways_ + way] = 0;
  policy_->filled(w + ways_, ways_, way);
  return way;
}

void L2Cache::read(std::uint64_t line, std::uint32_t mask) {
  counters_.read_sectors += sector_count(mask);
  const Place at = place(line);
  const std::uint32_t way = way_for(at);
  std::uint32_t& masks = set_words(at.set)[2 * ways_ + way];
  const std::uint32_t missing = mask & ~valid_of(masks);
  counters_.read_hit_sectors += sector_count(mask & valid_of(masks));
  if (missing != 0) {
    counters_.read_miss_sectors += sector_count(missing);
    below_->read(line, missing);
    masks |= missing;
  }
}

void L2Cache::prefetch(std::uint64_t line) {
  // A set's tags, ages and masks are three runs of `ways` words: touch the start of each.
  const std::uint32_t* w = set_words(place(line).set);
  __builtin_prefetch(w);
  __builtin_prefetch(w + ways_);
  __builtin_prefetch(w + 2 * ways_);
}

void L2Cache::write(std::uint64_t line, std::uint32_t mask) {
  counters_.write_sectors += sector_count(mask);
  const Place at = place(line);
  const std::uint32_t way = way_for(at);
  set_words(at.set)[2 * ways_ + way] |= mask | (mask << 8);
}

void L2Cache::reduce(std::uint64_t line, std::uint32_t mask) {
  counters_.reduce_sectors += sector_count(mask);
  const Place at = place(line);
  const std::uint32_t way = way_for(at);
  std::uint32_t& masks = set_words(at.set)[2 * ways_ + way];
  const std::uint32_t missing = mask & ~valid_of(masks);
  if (missing != 0) {
    counters_.read_miss_sectors += sector_count(missing);
    below_->read(line, missing);
  }
  masks |= mask | (mask << 8);
}

void L2Cache::flush() {
  for (std::uint64_t set = 0; set < sets_; ++set) {
    for (std::uint32_t way = 0; way < ways_; ++way) {
      if (set_words(set)[way] != kEmpty) write_back(set, way);
    }
  }
}

Bytes L2Cache::dirty_bytes() const {
  std::uint64_t sectors = 0;
  for (std::uint64_t set = 0; set < sets_; ++set) {
    const std::uint32_t* w = set_words(set);
    for (std::uint32_t way = 0; way < ways_; ++way) sectors += sector_count(dirty_of(w[2 * ways_ + way]));
  }
  return Bytes(sectors * sector_bytes_);
}

void L2Cache::drop(std::uint64_t line) {
  const Place at = place(line);
  std::uint32_t* w = set_words(at.set);
  for (std::uint32_t way = 0; way < ways_; ++way) {
    if (w[way] != at.tag) continue;
    write_back(at.set, way);
    w[way] = kEmpty;
    w[ways_ + way] = 0;  // "never filled": every policy fills it first
    w[2 * ways_ + way] = 0;
    return;
  }
}

void L2Cache::invalidate() {
  words_.assign(sets_ * stride_, 0);
  for (std::uint64_t set = 0; set < sets_; ++set) std::fill_n(set_words(set), ways_, kEmpty);
  policy_->reset();
}

}  // namespace iosim
