#include "sim/gpu/skip_ledger.h"

#include <algorithm>
#include <cmath>

namespace iosim {

SkipLedger::Rates SkipLedger::rates(const std::array<double, 7>& d) {
  Rates r;
  const double reads = d[0] + d[2], writes = d[1] + d[2];
  r.read = reads > 0 ? d[3] / reads : 0;
  r.fabric = reads > 0 ? d[5] / reads : 0;
  r.straight = d[2] == 0;
  r.write = writes > 0 ? d[4] / writes : 0;
  r.dirtied = writes > 0 ? d[6] / writes : 0;
  return r;
}

bool SkipLedger::steady(const Rates& r, const Rates& last, double tolerance) {
  const auto near = [tolerance](double a, double b) { return std::abs(a - b) <= tolerance * std::max(a, b); };
  return near(r.read, last.read) && near(r.fabric, last.fabric) && r.straight == last.straight &&
         (r.straight || near(r.write, last.write));
}

void SkipLedger::settle(const RatesOf& rates_of, std::uint64_t stride, std::vector<HeadCounts>& counts,
                        const std::function<double(std::uint64_t)>& weight) {
  if (owed_.empty()) return;  // nothing skipped: no per-block fractions (32 B a block) for kernels that never skip
  const double inv_stride = 1.0 / static_cast<double>(stride);
  if (fraction_.size() != counts.size()) fraction_.assign(counts.size(), {});
  for (const Owed& o : owed_) {
    const auto [before_of, after] = rates_of(o.block);
    const Rates& before = *before_of;
    Rates r = before;
    if (after != nullptr) {
      r.read = (r.read + after->read) / 2;
      r.fabric = (r.fabric + after->fabric) / 2;
      r.write = (r.write + after->write) / 2;
      r.dirtied = (r.dirtied + after->dirtied) / 2;
    }
    const double reads = static_cast<double>(o.asked[0] + o.asked[2]);
    const double writes = static_cast<double>(o.asked[1] + o.asked[2]);
    std::array<double, 4> add{reads * r.read, 0, reads * r.fabric, 0};
    if (!r.straight) {
      add[1] = writes * r.write, add[3] = writes * r.dirtied;
    } else if (o.skipped) {
      add[1] = add[3] = writes * inv_stride;
    }
    std::array<double, 4>& f = fraction_[o.block];
    std::array<std::uint64_t, 4> whole{};
    for (std::size_t i = 0; i < 4; ++i) {
      f[i] += add[i];
      const double w = std::floor(f[i]);
      whole[i] = static_cast<std::uint64_t>(w);
      f[i] -= w;
    }
    HeadCounts& c = counts[o.block];
    c.dram_read += whole[0], c.dram_write += whole[1], c.fabric += whole[2], c.dirtied += whole[3];
    // The error: half the difference of the two windows' estimates; where no window follows (the
    // launch changed first), the estimate itself, which nothing checks.
    const Rates& other = after != nullptr ? *after : Rates{};
    const double half = after != nullptr ? 0.5 : 1.0;
    const double w = weight(o.block);
    double dram = reads * std::abs(other.read - before.read) * half;
    if (!r.straight) dram += writes * std::abs(other.write - before.write) * half;
    error_[0] += w * dram;
    error_[1] += w * reads * std::abs(other.fabric - before.fabric) * half;
  }
  owed_.clear();
}

}  // namespace iosim
