#include "sim/memory/l2_cache.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include "sim/memory/set_scan.h"

namespace iosim {

L2Cache::L2Cache(const L2Spec& spec, std::unique_ptr<Replacement> policy, MemoryLevel& below, SetIndex index)
    : sets_(0), ways_(spec.ways), sectors_(0), sector_bytes_(spec.sector_bytes), index_(index), policy_(std::move(policy)), below_(&below) {
  if (spec.line_bytes == 0 || spec.sector_bytes == 0 || spec.ways == 0) throw std::invalid_argument("L2: zero size");
  if (spec.ways > kMaxWays) throw std::invalid_argument("L2: more than 256 ways");
  sectors_ = spec.line_bytes / spec.sector_bytes;
  if (sectors_ == 0 || sectors_ > 8) throw std::invalid_argument("L2: 1 to 8 sectors per line");
  sets_ = spec.capacity.value / (std::uint64_t{spec.line_bytes} * spec.ways);
  if (sets_ == 0) throw std::invalid_argument("L2: capacity below one set");
  if (sets_ >= (std::uint64_t{1} << 32)) throw std::invalid_argument("L2: too many sets");
  by_sets_.set(sets_);
  if (!policy_) throw std::invalid_argument("L2: no replacement policy");
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

std::uint64_t L2Cache::span_rotation(std::uint64_t tag, std::uint64_t sets) { return rotation(tag, sets); }

std::uint64_t L2Cache::hashed_set(std::uint64_t line, std::uint64_t sets) {
  const std::uint64_t tag = line / sets;
  const std::uint64_t set = line % sets + rotation(tag, sets);
  return set >= sets ? set - sets : set;
}

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
  const std::uint64_t offset = set >= r ? set - r : set + sets_ - r;  // (set − r) mod sets, r < sets
  return std::uint64_t{tag} * sets_ + offset;
}

namespace {
constexpr std::uint32_t valid_of(std::uint16_t m) { return m & 0xFFu; }
constexpr std::uint32_t dirty_of(std::uint16_t m) { return m >> 8; }
constexpr std::uint16_t masks_of(std::uint32_t valid, std::uint32_t dirty) {
  return static_cast<std::uint16_t>(valid | (dirty << 8));
}
}  // namespace

void L2Cache::write_back(std::uint64_t set, std::uint32_t way) {
  std::uint16_t& m = masks(set)[way];
  if (const std::uint32_t dirty = dirty_of(m); dirty != 0) {
    below_->write(line_of(set, tags(set)[way]), dirty, kNoSm);
    counters_.written_back_sectors += sector_count(dirty);
    m = masks_of(valid_of(m), 0);
  }
}

std::uint32_t L2Cache::way_for(const Place& at) {
  std::uint32_t* tag = tags(at.set);
  std::uint16_t* age = ages(at.set);
  if (const std::uint32_t way = set_scan::find(tag, at.tag, ways_); way < ways_) {
    if (policy_->ages_on_hit()) stamp(age, ways_, way, clocks_[at.set]);
    return way;
  }
  // Empty ways were never filled (age 0), so every policy ranks them first.
  const std::uint32_t way = policy_->victim(age, ways_);
  if (tag[way] != kEmpty) {
    write_back(at.set, way);
    ++counters_.evicted_lines;
  }
  tag[way] = at.tag;
  ++counters_.filled_lines;
  masks(at.set)[way] = 0;
  stamp(age, ways_, way, clocks_[at.set]);
  return way;
}

void L2Cache::read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  counters_.read_sectors += sector_count(mask);
  const Place at = place(line);
  std::uint16_t& m = masks(at.set)[way_for(at)];
  const std::uint32_t missing = mask & ~valid_of(m);
  counters_.read_hit_sectors += sector_count(mask & valid_of(m));
  if (missing != 0) {
    counters_.read_miss_sectors += sector_count(missing);
    below_->read(line, missing, sm);
    m = static_cast<std::uint16_t>(m | missing);
  }
}

void L2Cache::prefetch(std::uint64_t line, Request, std::uint32_t) { prefetch_set(set_of(line)); }

void L2Cache::write(std::uint64_t line, std::uint32_t mask, std::uint32_t) {
  counters_.write_sectors += sector_count(mask);
  const Place at = place(line);
  std::uint16_t& m = masks(at.set)[way_for(at)];
  counters_.dirtied_sectors += sector_count(mask & ~dirty_of(m));
  m = static_cast<std::uint16_t>(m | masks_of(mask, mask));
}

void L2Cache::reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  counters_.reduce_sectors += sector_count(mask);
  const Place at = place(line);
  std::uint16_t& m = masks(at.set)[way_for(at)];
  const std::uint32_t missing = mask & ~valid_of(m);
  if (missing != 0) {
    counters_.read_miss_sectors += sector_count(missing);
    below_->read(line, missing, sm);
  }
  counters_.dirtied_sectors += sector_count(mask & ~dirty_of(m));
  m = static_cast<std::uint16_t>(m | masks_of(mask, mask));
}

void L2Cache::flush() {
  for (std::uint64_t set = 0; set < sets_; ++set) {
    for (std::uint32_t way = 0; way < ways_; ++way) {
      if (tags(set)[way] != kEmpty) write_back(set, way);
    }
  }
}

Bytes L2Cache::dirty_bytes() const {
  std::uint64_t sectors = 0;
  for (std::uint64_t set = 0; set < sets_; ++set) sectors += dirty_sectors(set);
  return Bytes(sectors * sector_bytes_);
}

std::uint64_t L2Cache::dirty_sectors(std::uint64_t set) const {
  std::uint64_t sectors = 0;
  const std::uint16_t* m = masks(set);
  for (std::uint32_t way = 0; way < ways_; ++way) sectors += sector_count(dirty_of(m[way]));
  return sectors;
}

void L2Cache::drop(std::uint64_t line) {
  const Place at = place(line);
  std::uint32_t* tag = tags(at.set);
  const std::uint32_t way = set_scan::find(tag, at.tag, ways_);
  if (way == ways_) return;
  write_back(at.set, way);
  ++counters_.dropped_lines;
  tag[way] = kEmpty;
  ages(at.set)[way] = 0;  // "never filled": every policy fills it first
  masks(at.set)[way] = 0;
}

bool L2Cache::digest_contents(Digest& d) const {
  const bool order_only = policy_->order_only();
  std::array<std::pair<std::uint16_t, std::uint64_t>, kMaxWays> lines{};
  for (std::uint64_t set = 0; set < sets_; ++set) {
    const std::uint32_t* tag = tags(set);
    const std::uint16_t* age = ages(set);
    const std::uint16_t* mask = masks(set);
    if (!order_only) {
      for (std::uint32_t way = 0; way < ways_; ++way) d.add(std::uint64_t{tag[way]} << 32 | std::uint64_t{age[way]} << 16 | mask[way]);
      d.add(clocks_[set]);
      continue;
    }
    std::uint32_t n = 0;
    for (std::uint32_t way = 0; way < ways_; ++way) {
      if (tag[way] != kEmpty) lines[n++] = {age[way], std::uint64_t{tag[way]} << 16 | mask[way]};
    }
    std::sort(lines.begin(), lines.begin() + n);  // ages of a set's lines are distinct
    d.add(n);
    for (std::uint32_t i = 0; i < n; ++i) d.add(lines[i].second);
  }
  return true;
}

void L2Cache::invalidate() {
  tags_.assign(sets_ * ways_, kEmpty);
  meta_.assign(sets_ * 2 * ways_, 0);
  clocks_.assign(sets_, 0);
}

}  // namespace iosim
