#include "sim/core/ledger.h"

#include <stdexcept>

namespace iosim {

void Ledger::on_transfer(const Transfer& t) {
  const Elements e = t.tile.elements() * t.times;
  const Bytes b = bytes_of(e, storage_type(t.tile.tensor, element_));
  Traffic& hbm = traffic_[lvl(Level::hbm)][index(t.tile.tensor)];
  Traffic& sram = traffic_[lvl(Level::sram)][index(t.tile.tensor)];
  switch (t.dir) {
    case Direction::hbm_to_sram:
      hbm.read_elements += e;
      hbm.read_bytes += b;
      sram.write_elements += e;
      sram.write_bytes += b;
      break;
    case Direction::sram_to_hbm:
      hbm.write_elements += e;
      hbm.write_bytes += b;
      sram.read_elements += e;
      sram.read_bytes += b;
      break;
    case Direction::reduce:
      hbm.read_elements += e;
      hbm.read_bytes += b;
      hbm.write_elements += e;
      hbm.write_bytes += b;
      sram.read_elements += e;
      sram.read_bytes += b;
      break;
  }
  transfers_ = checked_add(transfers_, t.times);
}

void Ledger::on_compute(const Compute& c) { compute_.add(c); }

Traffic Ledger::total(Level level) const {
  Traffic sum;
  for (const Traffic& t : traffic_[lvl(level)]) sum += t;
  return sum;
}

Ledger& Ledger::operator+=(const Ledger& o) {
  if (o.element_ != element_) throw std::invalid_argument("adding ledgers of different element types");
  for (std::size_t l = 0; l < kLevelCount; ++l) {
    for (std::size_t t = 0; t < kTensorCount; ++t) traffic_[l][t] += o.traffic_[l][t];
  }
  compute_ += o.compute_;
  transfers_ = checked_add(transfers_, o.transfers_);
  return *this;
}

}  // namespace iosim
