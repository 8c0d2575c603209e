#include "sim/memory/partitioned_l2.h"

#include <stdexcept>

namespace iosim {

namespace {

L2Spec half(L2Spec spec) {
  spec.capacity = Bytes(spec.capacity.value / 2);
  return spec;
}

}  // namespace

PartitionedL2::PartitionedL2(const L2Spec& spec, const std::function<std::unique_ptr<Replacement>()>& make_policy,
                             MemoryLevel& below, SetIndex index)
    : dram_(below), below_{Below(*this, 0), Below(*this, 1)} {
  for (std::uint32_t p = 0; p < 2; ++p) {
    part_[p] = std::make_unique<L2Cache>(half(spec), make_policy(), below_[p], index);
  }
}

std::uint32_t PartitionedL2::home(std::uint64_t line) {
  std::uint64_t h = line * 0x9E3779B97F4A7C15ull;
  return static_cast<std::uint32_t>(h >> 63);
}

void PartitionedL2::Below::read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  if (owner_.home_of(line) == self_) {
    owner_.dram_.read(line, mask, sm);
  } else {
    owner_.counters_.fabric_read_sectors += sector_count(mask);
    if (std::vector<double>* t = owner_.fabric_per_set_; t != nullptr) {
      (*t)[line % t->size()] += *owner_.fabric_weight_ * static_cast<double>(sector_count(mask));
    }
    owner_.part_[1 - self_]->read(line, mask, sm);
  }
}

void PartitionedL2::Below::write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  // Only lines in their home are ever dirty, so write-backs go to DRAM.
  owner_.dram_.write(line, mask, sm);
}

void PartitionedL2::Below::reduce(std::uint64_t, std::uint32_t, std::uint32_t) {
  throw std::logic_error("PartitionedL2: a partition never forwards a reduction");
}

void PartitionedL2::read(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  counters_.read_sectors += sector_count(mask);
  L2Cache& near = *part_[partition_of(sm)];
  const std::uint64_t misses = near.counters().read_miss_sectors;
  near.read(line, mask, sm);
  counters_.read_miss_sectors += near.counters().read_miss_sectors - misses;
}

void PartitionedL2::prefetch(std::uint64_t line, Request r, std::uint32_t sm) {
  // Loads look in the requester's partition first, and in the line's home when that is the other one;
  // stores and reductions look in both (the home, and the copy they drop).
  const std::uint32_t near = partition_of(sm);
  const std::uint64_t set = part_[0]->set_of(line);  // the same in both: they have the same shape
  part_[near]->prefetch_set(set);
  if (r != Request::read || home_of(line) != near) part_[1 - near]->prefetch_set(set);
}

void PartitionedL2::write(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  counters_.write_sectors += sector_count(mask);
  const std::uint32_t h = home_of(line);
  part_[1 - h]->drop(line);
  L2Cache& home = *part_[h];
  const std::uint64_t dirtied = home.counters().dirtied_sectors;
  home.write(line, mask, sm);
  counters_.dirtied_sectors += home.counters().dirtied_sectors - dirtied;
}

void PartitionedL2::reduce(std::uint64_t line, std::uint32_t mask, std::uint32_t sm) {
  counters_.reduce_sectors += sector_count(mask);
  const std::uint32_t h = home_of(line);
  part_[1 - h]->drop(line);
  L2Cache& home = *part_[h];
  const std::uint64_t dirtied = home.counters().dirtied_sectors;
  home.reduce(line, mask, sm);
  counters_.dirtied_sectors += home.counters().dirtied_sectors - dirtied;
}

void PartitionedL2::flush() {
  for (auto& p : part_) p->flush();
}

void PartitionedL2::empty() {
  for (auto& p : part_) p->empty();
}

Bytes PartitionedL2::dirty_bytes() const { return part_[0]->dirty_bytes() + part_[1]->dirty_bytes(); }

void PartitionedL2::reset_counters() {
  counters_ = {};
  for (auto& p : part_) p->reset_counters();
}

}  // namespace iosim
