// Paged K/V, as vLLM's PagedAttention stores a KV cache: each (batch, K/V head) sequence's keys and
// values lie in pages of `page_size` tokens, and a block table (Tensor::BT, int32, one entry a page)
// says which slot of the cache holds each page.
//
// The rule tying pages to tiles: the page size and the K/V tile B_c divide one another, so that a tile
// covers whole pages (P ≤ B_c, B_c / P pages) or lies in one page (P ≥ B_c), as the paged kernels
// require (FlashAttention's paged KV takes whole tiles of a page; vLLM's takes whole pages a tile).
// A K/V tile load reads the table entries of the pages it covers from HBM first, once a tile, as those
// kernels do; a tile never straddles two pages it only partly covers.
//
// Slots: sequence s owns slots [s·pages, (s+1)·pages) of the cache; page k of it lies in slot
// s·pages + perm_s(k). Contiguous order: perm_s(k) = k, the unpaged addresses when P divides n_kv.
// Random: perm_s a permutation drawn from (seed, s), the same on every platform (splitmix64 and a
// Fisher–Yates shuffle, not std::shuffle, whose draws the standard leaves to the library).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/problem.h"
#include "sim/core/tiling.h"

namespace iosim {

/// The pages a K/V tile of rows [j.begin, j.begin + j.size) covers: the first and how many.
struct PageRun {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
};
[[nodiscard]] PageRun pages_of(const Problem& p, const Span& j);

/// Throws InputError naming --page-size when `p` is paged and its page size and the K/V tile `bc` of
/// `schedule` do not divide one another.
void check_page_tile(const Problem& p, std::uint64_t bc, std::string_view schedule);

/// Parses `--page-order`: contiguous, random (kDefaultPageSeed) or a seed; false when it is none.
[[nodiscard]] bool parse_page_order(std::string_view s, PageOrder& order, std::uint64_t& seed);

/// Every sequence's slots, as the block table holds them.
class BlockTable {
 public:
  BlockTable() = default;
  explicit BlockTable(const Problem& p);

  /// The cache slot of page `page` of sequence `seq` (a stored K/V head: batch × kv_heads of them).
  [[nodiscard]] std::uint64_t slot(std::uint64_t seq, std::uint64_t page) const {
    return seq * pages_ + (perm_.empty() ? page : perm_[seq * pages_ + page]);
  }
  [[nodiscard]] std::uint64_t pages() const { return pages_; }
  /// The table as a paged kernel reads it (Tensor::BT): [sequence, page] row-major, each entry the
  /// page's slot in the whole cache (int32, as vLLM's and FlashAttention's block tables). Throws
  /// InputError when a slot does not fit an int32.
  [[nodiscard]] std::vector<std::int32_t> entries(std::uint64_t seqs) const;

 private:
  std::uint64_t pages_ = 0;           ///< a sequence's
  std::vector<std::uint32_t> perm_;  ///< perm_s(k) of every sequence, in order; empty: contiguous
};

}  // namespace iosim
