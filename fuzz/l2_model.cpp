// Fuzz target: the L2 model built from a fuzzed hardware config and driven by fuzzed requests.
// Input: a config (YAML), a line "...", then requests of 6 bytes each (op, line as 4 bytes, sector
// mask). An L2 of one partition with LRU or FIFO is held, request by request, to a plain reference
// (one list per set in recency or fill order) on every counter; every policy and both partition
// counts must keep the accounting identities: misses reach DRAM, write-backs are DRAM's writes, a
// flush leaves nothing dirty.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz/support.h"
#include "sim/core/error.h"
#include "sim/memory/dram.h"
#include "sim/memory/l2_cache.h"
#include "sim/memory/partitioned_l2.h"
#include "sim/memory/replacement.h"
#include "src/config/hardware_config.h"

namespace {

using iosim::fuzz::finding;

/// The L2 as the header describes it, with nothing clever: per set, its lines in the order the
/// policy evicts them (least recently used, or first filled, at the front).
class Reference {
 public:
  Reference(std::uint32_t ways, bool lru) : ways_(ways), lru_(lru) {}

  void read(std::uint64_t set, std::uint64_t line, std::uint32_t mask) {
    Entry& e = touch(set, line);
    c.read_sectors += iosim::sector_count(mask);
    c.read_hit_sectors += iosim::sector_count(mask & e.valid);
    c.read_miss_sectors += iosim::sector_count(mask & ~e.valid);
    e.valid |= mask;
  }
  void write(std::uint64_t set, std::uint64_t line, std::uint32_t mask) {
    Entry& e = touch(set, line);
    c.write_sectors += iosim::sector_count(mask);
    e.valid |= mask;
    e.dirty |= mask;
  }
  void reduce(std::uint64_t set, std::uint64_t line, std::uint32_t mask) {
    Entry& e = touch(set, line);
    c.reduce_sectors += iosim::sector_count(mask);
    c.read_miss_sectors += iosim::sector_count(mask & ~e.valid);
    e.valid |= mask;
    e.dirty |= mask;
  }
  void drop(std::uint64_t set, std::uint64_t line) {
    std::vector<Entry>& s = sets_[set];
    const auto it = std::find_if(s.begin(), s.end(), [&](const Entry& e) { return e.line == line; });
    if (it == s.end()) return;
    c.written_back_sectors += iosim::sector_count(it->dirty);
    s.erase(it);
  }
  void flush() {
    for (auto& [set, lines] : sets_) {
      for (Entry& e : lines) {
        c.written_back_sectors += iosim::sector_count(e.dirty);
        e.dirty = 0;
      }
    }
  }
  iosim::LevelCounters c;

 private:
  struct Entry {
    std::uint64_t line;
    std::uint32_t valid = 0, dirty = 0;
  };
  Entry& touch(std::uint64_t set, std::uint64_t line) {
    std::vector<Entry>& s = sets_[set];
    auto it = std::find_if(s.begin(), s.end(), [&](const Entry& e) { return e.line == line; });
    if (it != s.end()) {
      if (!lru_) return *it;
      const Entry e = *it;
      s.erase(it);
      s.push_back(e);
      return s.back();
    }
    if (s.size() == ways_) {
      c.written_back_sectors += iosim::sector_count(s.front().dirty);
      ++c.evicted_lines;
      s.erase(s.begin());
    }
    s.push_back(Entry{line});
    return s.back();
  }
  std::uint32_t ways_;
  bool lru_;
  std::unordered_map<std::uint64_t, std::vector<Entry>> sets_;
};

bool same(const iosim::LevelCounters& a, const iosim::LevelCounters& b) {
  return a.read_sectors == b.read_sectors && a.write_sectors == b.write_sectors &&
         a.reduce_sectors == b.reduce_sectors && a.read_hit_sectors == b.read_hit_sectors &&
         a.read_miss_sectors == b.read_miss_sectors && a.evicted_lines == b.evicted_lines &&
         a.written_back_sectors == b.written_back_sectors;
}

struct Req {
  std::uint8_t op;
  std::uint64_t line;
  std::uint32_t mask;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char kSeparator[] = "\n...\n";
  const std::uint8_t* sep = std::search(data, data + size, kSeparator, kSeparator + 5);
  const std::size_t config_size = static_cast<std::size_t>(sep - data);
  iosim::HardwareSpec hw;
  try {
    hw = iosim::config::load_hardware(iosim::fuzz::as_file(data, config_size, "-l2.yaml"));
  } catch (const iosim::InputError&) {
    return 0;
  }
  const std::uint8_t* rest = sep == data + size ? sep : sep + 5;
  iosim::fuzz::Bytes in(rest, static_cast<std::size_t>(data + size - rest));
  const std::uint8_t policy_byte = in.u8();
  static const char* const kPolicies[] = {"lru", "fifo", "random"};
  const std::string policy = kPolicies[policy_byte % 3];
  const std::uint64_t sets = hw.l2.capacity.value / (std::uint64_t{hw.l2.line_bytes} * hw.l2.ways);
  const std::uint32_t sectors = hw.l2.line_bytes / hw.l2.sector_bytes;
  // Lines up to 4 × (sets + ways) apart keep sets contended; a high bit spreads them over the model's range.
  const std::uint64_t span = 4 * (sets + hw.l2.ways);
  std::vector<Req> reqs;
  while (!in.empty() && reqs.size() < 4096) {
    const std::uint8_t op = in.u8();
    const std::uint32_t raw = in.u32();
    std::uint64_t line = raw % span;
    if ((raw & 0x80000000u) != 0) line += (std::uint64_t{raw & 0x7FFu} * sets) << 16;
    std::uint32_t mask = in.u8() & ((1u << sectors) - 1);
    if (mask == 0) mask = 1;
    reqs.push_back({op, line, mask});
  }

  iosim::Dram dram(hw.l2.sector_bytes);
  if (hw.l2.partitions == 2) {
    iosim::PartitionedL2 l2(hw.l2, [&] { return iosim::make_replacement(policy); }, dram);
    for (const Req& r : reqs) {
      const std::uint32_t sm = r.op >> 7;
      l2.prefetch(r.line, iosim::Request::read, sm);
      l2.request(static_cast<iosim::Request>(r.op % 3), r.line, r.mask, sm);
    }
    l2.flush();
    if (l2.dirty_bytes().value != 0) finding("partitioned L2: dirty bytes after a flush");
    const iosim::LevelCounters& c = l2.counters();
    std::uint64_t asked[3] = {0, 0, 0};
    for (const Req& r : reqs) asked[r.op % 3] += iosim::sector_count(r.mask);
    if (c.read_sectors != asked[0] || c.write_sectors != asked[1] || c.reduce_sectors != asked[2]) {
      finding("partitioned L2: the requests counted are not the requests made");
    }
    return 0;
  }

  iosim::L2Cache l2(hw.l2, iosim::make_replacement(policy), dram);
  if (l2.sets() != sets) finding("L2: " + std::to_string(l2.sets()) + " sets, the config makes " + std::to_string(sets));
  const bool checked = policy != "random";
  Reference ref(hw.l2.ways, policy == "lru");
  for (const Req& r : reqs) {
    const std::uint64_t set = l2.set_of(r.line);
    if (set >= sets) finding("L2: set " + std::to_string(set) + " of " + std::to_string(sets));
    switch (r.op % 8) {
      case 0: case 1: l2.read(r.line, r.mask, 0); ref.read(set, r.line, r.mask); break;
      case 2: case 3: l2.write(r.line, r.mask, 0); ref.write(set, r.line, r.mask); break;
      case 4: l2.reduce(r.line, r.mask, 0); ref.reduce(set, r.line, r.mask); break;
      case 5: l2.drop(r.line); ref.drop(set, r.line); break;
      case 6: l2.prefetch(r.line, iosim::Request::write, 0); break;
      default: {  // a read of what was just read hits, whatever the policy
        l2.read(r.line, r.mask, 0);
        ref.read(set, r.line, r.mask);
        const std::uint64_t hits = l2.counters().read_hit_sectors;
        l2.read(r.line, r.mask, 0);
        ref.read(set, r.line, r.mask);
        if (l2.counters().read_hit_sectors - hits != iosim::sector_count(r.mask)) finding("L2: a re-read missed");
      }
    }
    if (checked && !same(l2.counters(), ref.c)) finding("L2 (" + policy + "): counters differ from the reference");
  }
  l2.flush();
  ref.flush();
  if (l2.dirty_bytes().value != 0) finding("L2: dirty bytes after a flush");
  if (checked && !same(l2.counters(), ref.c)) finding("L2 (" + policy + "): counters differ after the flush");
  const iosim::LevelCounters& c = l2.counters();
  if (dram.counters().read_sectors != c.read_miss_sectors) finding("L2: DRAM reads are not the L2's misses");
  if (dram.counters().write_sectors != c.written_back_sectors) finding("L2: DRAM writes are not the write-backs");
  return 0;
}
