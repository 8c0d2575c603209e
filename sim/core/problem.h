// One attention problem: shapes and element type. Plain data; check() says what is wrong with it.
#pragma once

#include <cstdint>
#include <string>

#include "sim/core/dtype.h"
#include "sim/core/page_order.h"
#include "sim/core/tensor.h"

namespace iosim {

struct Problem {
  std::uint64_t batch = 1;
  std::uint64_t heads = 1;     ///< query heads
  std::uint64_t kv_heads = 0;  ///< key/value heads (grouped-query attention); 0 means = heads
  std::uint64_t n = 0;         ///< queries per head
  std::uint64_t n_kv = 0;      ///< keys and values per head
  std::uint64_t d = 0;         ///< head dimension
  DType dtype = DType::fp16;
  /// Query row r sees key c when c ≤ r + (n_kv − n): the mask aligned to the bottom right, as
  /// FlashAttention 2.1 and later align it (for n = n_kv, the usual lower triangle).
  bool causal = false;
  /// A sliding window (needs `causal`): row r also requires c > r + (n_kv − n) − window, the `window`
  /// keys ending at its diagonal. 0: no window.
  std::uint64_t window = 0;
  /// Paged K/V (sim/core/paging.h): tokens per page, a power of two; 0: K and V contiguous.
  std::uint64_t page_size = 0;
  /// Where the pages of each (batch, K/V head) sequence lie: in order, or shuffled from `page_seed`.
  PageOrder page_order = PageOrder::contiguous;
  std::uint64_t page_seed = 0;

  [[nodiscard]] std::uint64_t batch_heads() const { return batch * heads; }
  [[nodiscard]] std::uint64_t kv_head_count() const { return kv_heads == 0 ? heads : kv_heads; }
  /// Query heads that share one key/value head.
  [[nodiscard]] std::uint64_t group() const { return heads / kv_head_count(); }
  [[nodiscard]] bool paged() const { return page_size != 0; }
  /// Pages of one sequence's keys (the last one partly filled), or 0 unpaged.
  [[nodiscard]] std::uint64_t pages() const { return paged() ? (n_kv + page_size - 1) / page_size : 0; }
};

/// Empty when `p` can be modelled; otherwise one line naming the first problem found
/// (a size that is zero, kv_heads not dividing heads, a page size not a power of two, or sizes whose byte counts would overflow).
[[nodiscard]] std::string check(const Problem& p);

/// batch × heads of kind `h`: query heads, or key/value heads.
[[nodiscard]] std::uint64_t stored_heads(const Problem& p, Heads h);

/// The size of extent `e` in `p` (n, n_kv, d or 1).
[[nodiscard]] std::uint64_t extent(const Problem& p, Extent e);

/// Elements of tensor `t` (kTensorShapes) as stored in HBM for all batch × heads (K and V: batch × kv_heads), or 0
/// for the n × n_kv matrices and split-KV partials, whose size depends on the schedule.
[[nodiscard]] std::uint64_t tensor_elements(const Problem& p, Tensor t);

}  // namespace iosim
