// A trace of one schedule on one head: every tile transfer in order, the score tiles S_ij it computes
// in order, and its arithmetic summed. For small problems (iosim trace), where a list can be read.
//
// TraceSink is an EventSink: it expands each transfer's `times` repeats into single entries, so with
// the schedule emitted in Walk::each every tile appears in the order the algorithm moves it. The score
// tile of a matrix product is the pair of tiles held when it runs (Residency): the rows of the Q tile
// and, as columns, the rows of the K tile. A product on the same pair as the one before is the same
// visit (S_ij, then P̃_ij V_j). Totals are summed from the entries, as the Ledger sums the events;
// tests check they agree.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/event_sink.h"
#include "sim/core/mask.h"
#include "sim/core/paging.h"
#include "sim/core/traffic.h"
#include "sim/schedule/schedule.h"
#include "sim/trace/residency.h"

namespace iosim {

/// What a trace may list: past these it would be too long to read (and to write).
struct TraceLimits {
  std::uint64_t max_n = 4096;             ///< queries and keys per head
  std::uint64_t max_transfers = 100'000;  ///< tile transfers of the whole pass
};

/// A tile's position in tiles: i along the tensor's rows (B_r for the query side, B_c for K, V, dK,
/// dV), j along its columns (B_c for the score-shaped S, P, dS, dP; otherwise the widest tile of the
/// tensor in the trace, so j > 0 only where a schedule splits d).
struct TileIndex {
  std::uint64_t i = 0;
  std::uint64_t j = 0;
  friend bool operator==(const TileIndex&, const TileIndex&) = default;
};

struct TraceTransfer {
  std::uint64_t step = 0;  ///< position in the trace, from 0
  TileRef tile;
  Direction dir = Direction::hbm_to_sram;
  TileIndex index;
  Elements elements;
  Bytes bytes;
};

/// One score tile S_ij = Q_i K_jᵀ computed: rows [row, row + rows) of the n × n_kv score matrix,
/// columns [col, col + cols).
struct ScoreVisit {
  std::uint64_t visit = 0;   ///< position among the visits, from 0
  std::uint64_t before = 0;  ///< transfers listed before it: it runs after step before − 1
  std::uint64_t row = 0;
  std::uint64_t rows = 0;
  std::uint64_t col = 0;
  std::uint64_t cols = 0;
  TileIndex index;  ///< (row / B_r, col / B_c)
  /// Under a mask: some score of the tile is masked (an edge of the causal triangle or the window's
  /// band crosses it), so it is computed and then masked. Tiles wholly masked are never visited.
  bool masked = false;
};

/// The arithmetic of the pass, summed (not listed: it is not what the trace is for).
struct ComputeSummary : ComputeCounts {
  std::uint64_t inner_steps = 0;
};

struct Trace {
  std::string schedule;
  Pass pass = Pass::fwd;
  Problem problem;
  TileShape tiles;
  std::vector<TraceTransfer> transfers;
  std::vector<ScoreVisit> visits;
  ComputeSummary compute;
  Traffic hbm;                                  ///< all tensors: a load reads, a store writes, a reduce both
  std::array<Traffic, kTensorCount> tensors{};  ///< the same per tensor
  std::uint64_t loads = 0;
  std::uint64_t stores = 0;
  std::uint64_t reduces = 0;
  /// Per tensor: the widest tile (the column block of TileIndex::j), whether some tile starts past
  /// column 0 (d is split), or past slice 0 (split-KV).
  std::array<std::uint64_t, kTensorCount> col_block{};
  std::array<bool, kTensorCount> split_cols{};
  std::array<bool, kTensorCount> split_slices{};
  /// Paged K/V: the block table of the one head traced (sequence 0); empty when K/V are contiguous.
  BlockTable block_table;
};

class TraceSink final : public EventSink {
 public:
  TraceSink(std::string schedule, Pass pass, const Problem& p, TileShape tiles);

  /// Appends `times` entries for t. Never changes what is already recorded.
  void on_transfer(const Transfer& t) override;
  /// Sums the arithmetic; a matrix product on a new pair of held Q and K tiles is a new visit.
  void on_compute(const Compute& c) override;
  void on_step() override { ++trace_.compute.inner_steps; }

  /// The trace, its tile indices filled in. The sink is empty afterwards.
  [[nodiscard]] Trace take();

 private:
  Trace trace_;
  Residency held_;
  Mask mask_;
};

/// Traces schedule `s` (built from `ctx`) on one head. Throws InputError (one line, naming the limit)
/// when batch × heads is not 1, when n or n_kv passes limits.max_n, or when the pass would list more
/// than limits.max_transfers transfers.
[[nodiscard]] Trace trace_schedule(const Schedule& s, const ScheduleContext& ctx, const TraceLimits& limits = {});

/// The tiles in SRAM after step `step` (Residency's rule, replayed from step 0).
[[nodiscard]] std::vector<HeldTile> resident_after(const Trace& t, std::uint64_t step);

/// The score tile the tiles held after step `step` compute: the visit of the held Q tile's rows and K
/// tile's columns, the latest at or before the step, else the next one. Empty when Q and K are not both
/// held, or that pair is never computed.
[[nodiscard]] std::optional<std::size_t> visit_at(const Trace& t, std::uint64_t step);

/// The tile index of `tile` in trace `t` (as TraceTransfer::index). A block-table tile takes the index of
/// the K/V tile whose pages' entries it holds.
[[nodiscard]] TileIndex tile_index(const Trace& t, const TileRef& tile);

/// A page a transfer reads: logical page `page` of the sequence, stored in physical page (cache slot) `slot`.
struct PageRead {
  std::uint64_t page = 0;
  std::uint64_t slot = 0;
  friend bool operator==(const PageRead&, const PageRead&) = default;
};

/// Paged K/V: the pages a K or V tile lies in, or those whose block-table entries a BT tile reads, each
/// with its slot from the block table. Empty for other tensors and when K and V are contiguous.
[[nodiscard]] std::vector<PageRead> pages_read(const Trace& t, const TileRef& tile);

/// "Q_2", "O_0,1" where d is split, "Opart_0/s1" for split 1 of a split-KV partial.
[[nodiscard]] std::string tile_label(const Trace& t, const TileRef& tile);

/// How the visits walk the score matrix: by_columns when they go down each column of tiles in turn
/// (K/V tile outer), by_rows when along each row (Q tile outer). Both when the tiles form one row or
/// one column; neither for other orders.
struct VisitOrder {
  bool by_columns = false;
  bool by_rows = false;
};
[[nodiscard]] VisitOrder visit_order(const Trace& t);

}  // namespace iosim
