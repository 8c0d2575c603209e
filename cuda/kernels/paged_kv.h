// Paged K/V on the host side of the backend: the block table a KernelSpec's kernels read (the model's
// BlockTable, sim/core/paging.h, so that the kernels' pages lie where the address map puts them) and
// the logical rows of a paged cache, for the reference.
//
// The cache of K (or V) is [batch · kv_heads · pages slots, page_size rows, d]; row r of sequence s
// lies in slot table[s · pages + ⌊r / page_size⌋] at row r mod page_size.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda/backend.h"
#include "cuda/kernels/tensors.h"
#include "sim/core/paging.h"
#include "sim/core/problem.h"

namespace iosim::gpu::detail {

/// log2 of a page size (a power of two: unsupported_in_build refuses any other).
[[nodiscard]] constexpr int page_shift_of(int page_size) {
  return std::countr_zero(static_cast<unsigned>(page_size));
}

/// The problem whose block table the model builds for `s` (the fields BlockTable reads).
[[nodiscard]] inline Problem paging_problem(const KernelSpec& s) {
  Problem p;
  p.batch = static_cast<std::uint64_t>(s.batch);
  p.heads = static_cast<std::uint64_t>(s.heads);
  p.kv_heads = static_cast<std::uint64_t>(kv_head_count(s));
  p.n = static_cast<std::uint64_t>(s.n);
  p.n_kv = static_cast<std::uint64_t>(s.n_kv);
  p.d = static_cast<std::uint64_t>(s.d);
  p.page_size = static_cast<std::uint64_t>(s.page_size);
  p.page_order = s.page_order;
  p.page_seed = s.page_seed;
  return p;
}

/// The block table of a paged spec, [sequence, page]: each entry a slot of the whole cache.
[[nodiscard]] inline std::vector<std::int32_t> block_table_of(const KernelSpec& s) {
  const auto seqs = static_cast<std::uint64_t>(s.batch) * static_cast<std::uint64_t>(kv_head_count(s));
  return BlockTable(paging_problem(s)).entries(seqs);
}

/// K or V of a paged spec as contiguous [sequence, n_kv, d] rows, gathered through `table`.
[[nodiscard]] inline std::vector<double> unpage(const KernelSpec& s, const std::vector<std::int32_t>& table,
                                                const std::vector<double>& cache) {
  const auto seqs = static_cast<std::size_t>(s.batch) * static_cast<std::size_t>(kv_head_count(s));
  const auto n_kv = static_cast<std::size_t>(s.n_kv), d = static_cast<std::size_t>(s.d);
  const auto page = static_cast<std::size_t>(s.page_size), pages = static_cast<std::size_t>(kv_pages(s));
  std::vector<double> out(seqs * n_kv * d);
  for (std::size_t q = 0; q < seqs; ++q) {
    for (std::size_t r = 0; r < n_kv; ++r) {
      const auto slot = static_cast<std::size_t>(table[q * pages + r / page]);
      const double* from = cache.data() + (slot * page + r % page) * d;
      std::copy(from, from + d, out.begin() + static_cast<std::ptrdiff_t>((q * n_kv + r) * d));
    }
  }
  return out;
}

}  // namespace iosim::gpu::detail
