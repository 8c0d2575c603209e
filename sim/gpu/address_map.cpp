#include "sim/gpu/address_map.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace iosim {

AddressMap::AddressMap(const Problem& p, std::uint32_t line_bytes, std::uint32_t sector_bytes)
    : p_(p),
      line_bytes_(line_bytes),
      line_shift_(static_cast<std::uint32_t>(std::countr_zero(line_bytes))),
      sector_shift_(static_cast<std::uint32_t>(std::countr_zero(sector_bytes))) {
  if (!std::has_single_bit(line_bytes) || !std::has_single_bit(sector_bytes) || sector_bytes > line_bytes) {
    throw std::invalid_argument("AddressMap: lines and sectors must be powers of two, a line at least a sector");
  }
  std::uint64_t next = kAlignment;  // leave the first 2 MiB unused, as a null page
  for (Tensor t : kAllTensors) {
    const ContiguousLayout l(t, p, next, kMaxSlices);
    layout_[index(t)] = l;
    // A paged cache holds whole pages: the last page of each sequence is padded to page_size rows.
    const std::uint64_t bytes =
        paged(t) ? checked_mul(checked_mul(stored_heads(p, Heads::kv), checked_mul(p.pages(), p.page_size)), l.row_bytes())
                 : l.bytes();
    next = checked_add(next, ceil_div(bytes, kAlignment) * kAlignment);
  }
  if (p.paged()) table_ = BlockTable(p);
}

void AddressMap::add_range(std::uint64_t begin, std::uint64_t bytes, std::size_t first, std::vector<LineAccess>& out) const {
  if (bytes == 0) return;
  const std::uint64_t end = begin + bytes;
  const std::uint64_t first_line = begin >> line_shift_, last_line = (end - 1) >> line_shift_;
  const std::uint64_t within = line_bytes_ - 1;
  const bool merge = out.size() > first && out.back().line == first_line;
  if ((begin & within) == 0 && (end & within) == 0 && !merge) {
    // Whole lines: every sector of each.
    const auto all = static_cast<std::uint32_t>((std::uint64_t{1} << (std::uint64_t{1} << (line_shift_ - sector_shift_))) - 1);
    for (std::uint64_t line = first_line; line <= last_line; ++line) out.push_back({line, all});
    return;
  }
  for (std::uint64_t line = first_line; line <= last_line; ++line) {
    const std::uint64_t at = line << line_shift_;
    const std::uint64_t lo = std::max(begin, at) - at;
    const std::uint64_t hi = std::min(end, at + line_bytes_) - at;
    const std::uint64_t lo_sector = lo >> sector_shift_, hi_sector = (hi - 1) >> sector_shift_;
    const auto mask = static_cast<std::uint32_t>(((std::uint64_t{1} << (hi_sector + 1)) - 1) & ~((std::uint64_t{1} << lo_sector) - 1));
    if (out.size() > first && out.back().line == line) {
      out.back().mask |= mask;
    } else {
      out.push_back({line, mask});
    }
  }
}

std::uint64_t AddressMap::stored_head(std::uint64_t head, HeadMap map) const {
  switch (map) {
    case HeadMap::query:
    case HeadMap::kv: return head;
    case HeadMap::kv_of_query: {
      // Grid heads run over batch × heads; the tensor over batch × kv_heads.
      const std::uint64_t h = p_.heads, group = p_.group();
      return (head / h) * p_.kv_head_count() + (head % h) / group;
    }
    case HeadMap::packed_query:
      // Grid head = key/value head g; packed row q of the group is row q of query head g·group (the
      // group's heads are adjacent, so the packed rows are contiguous).
      return head * p_.group();
  }
  return head;
}

std::uint64_t AddressMap::head_offset(Tensor t, std::uint64_t head, HeadMap map) const {
  return stored_head(head, map) * layout_[index(t)].head_bytes();
}

TileBytes AddressMap::bytes(const TileRef& tile, std::uint64_t head, HeadMap map) const {
  const ContiguousLayout& l = layout_[index(tile.tensor)];
  const std::uint64_t row_bytes = l.row_bytes();
  const std::uint64_t start = l.row_start(tile.slice, stored_head(head, map), tile.row);
  if (tile.col == 0 && tile.cols == l.cols()) return {start, tile.rows * row_bytes, tile.rows * row_bytes, 1};
  return {start + tile.col * l.element_bytes(), tile.cols * l.element_bytes(), row_bytes, tile.rows};
}

std::uint64_t AddressMap::row_address(Tensor t, std::uint64_t head, std::uint64_t row) const {
  const ContiguousLayout& l = layout_[index(t)];
  if (!paged(t)) return l.row_start(0, head, row);
  const std::uint64_t page = row / p_.page_size, within = row % p_.page_size;
  return l.base() + (table_.slot(head, page) * p_.page_size + within) * l.row_bytes();
}

void AddressMap::paged_lines(const TileRef& tile, std::uint64_t head, std::vector<LineAccess>& out) const {
  const ContiguousLayout& l = layout_[index(tile.tensor)];
  const std::uint64_t row_bytes = l.row_bytes();
  const bool whole_rows = tile.col == 0 && tile.cols == l.cols();
  const std::size_t first = out.size();
  for (std::uint64_t r = tile.row, end = tile.row + tile.rows; r < end;) {
    const std::uint64_t run = std::min(end, (r / p_.page_size + 1) * p_.page_size) - r;  // rows left in r's page
    const std::uint64_t start = row_address(tile.tensor, head, r) + tile.col * l.element_bytes();
    if (whole_rows) {
      add_range(start, run * row_bytes, first, out);
    } else {
      for (std::uint64_t k = 0; k < run; ++k) add_range(start + k * row_bytes, tile.cols * l.element_bytes(), first, out);
    }
    r += run;
  }
}

void AddressMap::lines(const TileRef& tile, std::uint64_t head, HeadMap map, std::vector<LineAccess>& out) const {
  if (paged(tile.tensor)) {
    paged_lines(tile, stored_head(head, map), out);
    return;
  }
  const TileBytes b = bytes(tile, head, map);
  const std::size_t first = out.size();
  for (std::uint64_t r = 0; r < b.rows; ++r) add_range(b.start + r * b.stride, b.width, first, out);
}

}  // namespace iosim
