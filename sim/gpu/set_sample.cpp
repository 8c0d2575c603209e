#include "sim/gpu/set_sample.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "sim/memory/l2_cache.h"
#include "sim/memory/memory_level.h"

namespace iosim {

namespace {
constexpr std::uint64_t kNotSampled = ~std::uint64_t{0};
}  // namespace

SetSample::SetSample(std::uint64_t sets, std::uint32_t stride, std::uint32_t line_bytes, std::uint32_t sector_bytes)
    : sets_(sets),
      stride_(stride),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(line_bytes))),
      sector_shift_(static_cast<std::uint32_t>(std::countr_zero(sector_bytes))),
      full_(static_cast<std::uint32_t>((1u << (1u << (line_shift_ - sector_shift_))) - 1)) {
  if (stride == 0 || !std::has_single_bit(stride) || sets % stride != 0) {
    throw std::invalid_argument("SetSample: the stride must be a power of two dividing the sets");
  }
  by_sets_.set(sets);
  stride_shift_ = static_cast<std::uint32_t>(std::countr_zero(stride));
  per_tag_ = sets / stride;
}

std::uint32_t SetSample::largest_stride(std::uint64_t sets, std::uint32_t limit) {
  std::uint32_t s = 1;
  while (s * 2 <= limit && sets % (std::uint64_t{s} * 2) == 0) s *= 2;
  return s;
}

std::uint32_t SetSample::mask(std::uint64_t line, std::uint64_t begin, std::uint64_t end) const {
  const std::uint64_t at = line << line_shift_;
  const std::uint64_t lo = std::max(begin, at) - at;
  const std::uint64_t hi = std::min(end, at + (std::uint64_t{1} << line_shift_)) - at;
  const std::uint64_t lo_sector = lo >> sector_shift_, hi_sector = (hi - 1) >> sector_shift_;
  return static_cast<std::uint32_t>(((std::uint64_t{1} << (hi_sector + 1)) - 1) & ~((std::uint64_t{1} << lo_sector) - 1));
}

std::uint64_t SetSample::rename(std::uint64_t line) const {
  if (stride_ == 1) return line;
  std::uint64_t offset = 0;
  const std::uint64_t tag = span_of(line, offset);
  std::uint64_t set = offset + L2Cache::span_rotation(tag, sets_);
  if (set >= sets_) set -= sets_;
  if ((set & (stride_ - 1)) != 0) return kNotSampled;
  return virtual_line(line, tag, set);
}

std::uint64_t SetSample::virtual_line(std::uint64_t line, std::uint64_t tag, std::uint64_t set) const {
  return (2 * tag + PartitionedL2::home(line)) * per_tag_ + (set >> stride_shift_);
}

std::uint64_t SetSample::original(std::uint64_t v) const {
  if (stride_ == 1) return v;
  const std::uint64_t per_tag = sets_ / stride_;
  const std::uint64_t tag = v / per_tag / 2, set = (v % per_tag) * stride_;
  const std::uint64_t rot = L2Cache::hashed_set(tag * sets_, sets_);
  return tag * sets_ + (set >= rot ? set - rot : set + sets_ - rot);
}

std::uint64_t SetSample::add_contiguous(std::uint64_t begin, std::uint64_t bytes, std::vector<LineAccess>& out) const {
  if (bytes == 0) return 0;
  const std::uint64_t end = begin + bytes;
  const std::uint64_t first = begin >> line_shift_, last = (end - 1) >> line_shift_;
  const auto edge = [&](std::uint64_t line) { return line == first || line == last ? mask(line, begin, end) : full_; };
  if (stride_ == 1) {
    for (std::uint64_t line = first; line <= last; ++line) out.push_back({line, edge(line)});
  } else {
    for (std::uint64_t line = first; line <= last;) {
      std::uint64_t lo = 0;
      const std::uint64_t tag = span_of(line, lo);
      const std::uint64_t tag_first = line - lo;
      const std::uint64_t hi = std::min(last, tag_first + sets_ - 1);
      const std::uint64_t rot = L2Cache::span_rotation(tag, sets_);  // the set of the tag's offset 0
      // Offsets o with (o + rot) mod sets a multiple of the stride: o ≡ −rot (mod stride).
      const std::uint64_t m = stride_ - 1;  // x mod stride is x & m
      const std::uint64_t phase = (stride_ - (rot & m)) & m;
      for (std::uint64_t o = lo + ((phase + stride_ - (lo & m)) & m); tag_first + o <= hi; o += stride_) {
        std::uint64_t set = o + rot;
        if (set >= sets_) set -= sets_;
        out.push_back({virtual_line(tag_first + o, tag, set), edge(tag_first + o)});
      }
      line = hi + 1;
    }
  }
  return ((end - 1) >> sector_shift_) - (begin >> sector_shift_) + 1;
}

std::uint64_t SetSample::add_row_lines(const TileBytes& b, std::vector<LineAccess>& out) const {
  const std::uint64_t first = b.start >> line_shift_;
  const std::uint32_t m = mask(first, b.start, b.start + b.width);
  const std::uint64_t k = b.stride >> line_shift_;  // lines from one row to the next
  if (stride_ == 1) {
    for (std::uint64_t r = 0; r < b.rows; ++r) out.push_back({first + r * k, m});
    return b.rows * sector_count(m);
  }
  if (k >= sets_) {
    for (std::uint64_t r = 0; r < b.rows; ++r) {
      if (const std::uint64_t v = rename(first + r * k); v != kNotSampled) out.push_back({v, m});
    }
    return b.rows * sector_count(m);
  }
  if ((k & (stride_ - 1)) == 0) return add_row_lines_aligned(b, out);
  // Span by span (tag by tag): within one, the set of row j's line is (set of row 0 + j k) mod sets,
  // and it is sampled when that is a multiple of the stride: when (phase + j k) mod stride is 0, phase
  // being row 0's set mod stride. With g = gcd(k mod stride, stride), the rows that are sampled are
  // none when g does not divide the phase, else every `period` = stride ÷ g-th row from the first,
  // which is among the first `period`. Only those rows are visited, in the same order.
  const std::uint64_t k_mod = k & (stride_ - 1);
  const std::uint64_t g = k_mod == 0 ? stride_ : (std::uint64_t{1} << std::countr_zero(k_mod));  // stride: a power of two
  const std::uint64_t period = stride_ / g;
  const std::uint64_t leap = period * k % sets_;  // the set's advance from one sampled row to the next
  std::uint64_t line = first;
  for (std::uint64_t r = 0; r < b.rows;) {
    std::uint64_t offset = 0;
    const std::uint64_t tag = span_of(line, offset);
    const std::uint64_t in_tag = std::min(b.rows - r, (sets_ - offset + k - 1) / k);
    std::uint64_t set = offset + L2Cache::span_rotation(tag, sets_);
    if (set >= sets_) set -= sets_;
    std::uint64_t phase = set & (stride_ - 1);
    if ((phase & (g - 1)) == 0) {
      std::uint64_t j = 0;  // the first sampled row: phase + j k ≡ 0 (mod stride), j < period
      for (; phase != 0 && j < in_tag; ++j) {
        set += k;
        if (set >= sets_) set -= sets_;
        phase += k_mod;
        if (phase >= stride_) phase -= stride_;
      }
      for (; j < in_tag; j += period) {
        out.push_back({virtual_line(line + j * k, tag, set), m});
        set += leap;
        if (set >= sets_) set -= sets_;
      }
    }
    r += in_tag;
    line += in_tag * k;
  }
  return b.rows * sector_count(m);
}

std::uint64_t SetSample::add_row_lines_aligned(const TileBytes& b, std::vector<LineAccess>& out) const {
  const std::uint64_t first = b.start >> line_shift_;
  const std::uint32_t m = mask(first, b.start, b.start + b.width);
  const std::uint64_t k = b.stride >> line_shift_;
  if (b.rows == 0) return 0;
  // Every row's line is ≡ first (mod stride), and so is its offset in its span (sets is a multiple
  // of the stride): a span's rows are sampled when its rotation brings that offset to a multiple of
  // the stride, and none otherwise. Every span from the first row's to the last row's holds a row
  // (k < sets): a span not sampled costs its rotation alone.
  const std::uint64_t first_mod = first & (stride_ - 1);
  const std::uint64_t last_tag = by_sets_.div(first + (b.rows - 1) * k);
  for (std::uint64_t tag = by_sets_.div(first); tag <= last_tag; ++tag) {
    const std::uint64_t rot = L2Cache::span_rotation(tag, sets_);
    if (((first_mod + rot) & (stride_ - 1)) != 0) continue;
    // The rows whose lines lie in the span, [lo, lo + sets): from ⌈(lo − first) ÷ k⌉ up to before
    // ⌈(lo + sets − first) ÷ k⌉.
    const std::uint64_t lo = tag * sets_;
    const std::uint64_t j_first = lo <= first ? 0 : (lo - first + k - 1) / k;
    const std::uint64_t j_end = std::min(b.rows, (lo + sets_ - first + k - 1) / k);
    for (std::uint64_t j = j_first; j < j_end; ++j) {
      const std::uint64_t line = first + j * k;
      std::uint64_t set = line - lo + rot;
      if (set >= sets_) set -= sets_;
      out.push_back({virtual_line(line, tag, set), m});
    }
  }
  return b.rows * sector_count(m);
}

std::uint64_t SetSample::add_row_spans(const TileBytes& b, std::uint64_t w, std::vector<LineAccess>& out) const {
  const std::uint64_t first = b.start >> line_shift_;
  const std::uint64_t k = b.stride >> line_shift_;  // lines from one row to the next, at least w
  const std::uint64_t row_sectors = ((b.start + b.width - 1) >> sector_shift_) - (b.start >> sector_shift_) + 1;
  if (stride_ == 1 || k >= sets_) {
    for (std::uint64_t r = 0; r < b.rows; ++r) add_contiguous(b.start + r * b.stride, b.width, out);
    return b.rows * row_sectors;
  }
  // Every row has its bytes at the same place in its lines: the first and last line's sectors are
  // the same in every row.
  const std::uint32_t m_first = mask(first, b.start, b.start + b.width);
  const std::uint32_t m_last = mask(first + w - 1, b.start, b.start + b.width);
  const std::uint64_t m = stride_ - 1;  // x mod stride is x & m
  const std::uint64_t k_mod = k & m, k_set = k % sets_;
  Divider by_k;  // rows in a span without a hardware division per span
  by_k.set(k);
  std::uint64_t line = first;
  for (std::uint64_t r = 0; r < b.rows;) {
    std::uint64_t offset = 0;
    const std::uint64_t tag = span_of(line, offset);
    if (offset + w > sets_) {  // a row across two spans: add_contiguous goes span by span
      add_contiguous(b.start + r * b.stride, b.width, out);
      ++r;
      line += k;
      continue;
    }
    // Rows whose lines all lie in this span: row j's line i is in set (set of row 0 + j k + i) mod
    // sets, sampled when that is a multiple of the stride: i ≡ −(its row's first set) (mod stride).
    const std::uint64_t in_tag = std::min(b.rows - r, by_k.div(sets_ - w - offset) + 1);
    std::uint64_t set = offset + L2Cache::span_rotation(tag, sets_);
    if (set >= sets_) set -= sets_;
    std::uint64_t phase = set & m;
    // With k a multiple of the stride every row of the span has the phase of the first: when its
    // first sampled line is past the row's last, none of the span's rows has one.
    const bool none = k_mod == 0 && ((stride_ - phase) & m) >= w;
    for (std::uint64_t j = 0; !none && j < in_tag; ++j) {
      for (std::uint64_t i = (stride_ - phase) & m; i < w; i += stride_) {
        std::uint64_t at = set + i;
        if (at >= sets_) at -= sets_;
        out.push_back({virtual_line(line + j * k + i, tag, at), i == 0 ? m_first : i == w - 1 ? m_last : full_});
      }
      set += k_set;
      if (set >= sets_) set -= sets_;
      phase = (phase + k_mod) & m;
    }
    r += in_tag;
    line += in_tag * k;
  }
  return b.rows * row_sectors;
}

std::uint64_t SetSample::add_rows(const TileBytes& b, std::vector<LineAccess>& out) const {
  const std::uint64_t line_bytes = std::uint64_t{1} << line_shift_;
  if (b.width > 0 && b.stride % line_bytes == 0) {
    const std::uint64_t w = ((b.start & (line_bytes - 1)) + b.width - 1) / line_bytes + 1;  // lines a row touches
    if (w == 1) return add_row_lines(b, out);
    if (b.stride / line_bytes >= w) return add_row_spans(b, w, out);  // rows share no line
  }
  std::uint64_t sectors = 0;
  std::uint64_t current = kNotSampled;
  std::uint32_t merged = 0;
  const auto close = [&] {
    if (current == kNotSampled) return;
    sectors += sector_count(merged);
    if (const std::uint64_t v = rename(current); v != kNotSampled) out.push_back({v, merged});
  };
  for (std::uint64_t r = 0; r < b.rows; ++r) {
    const std::uint64_t begin = b.start + r * b.stride, end = begin + b.width;
    if (b.width == 0) continue;
    for (std::uint64_t line = begin >> line_shift_; line <= (end - 1) >> line_shift_; ++line) {
      const std::uint32_t m = mask(line, begin, end);
      if (line == current) {
        merged |= m;
      } else {
        close();
        current = line;
        merged = m;
      }
    }
  }
  close();
  return sectors;
}

std::uint64_t SetSample::add(const TileBytes& b, std::vector<LineAccess>& out) const {
  if (b.contiguous()) return add_contiguous(b.start, b.rows * b.width, out);
  return add_rows(b, out);
}

}  // namespace iosim
