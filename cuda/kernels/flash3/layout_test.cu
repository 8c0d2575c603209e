// flash3_layout_test: the register layouts cuda/kernels/flash3/flash3_fwd.cuh relies on, computed by
// CuTe on the host for every consumer thread of every tile (no GPU needed):
//   * S and O accumulators: the rowcol view gives each thread 2 rows (r, r + 8), all columns of one
//     view row on one tile row; the 4 lanes of a quad hold the same rows (the softmax reduces over
//     them) and lane 0 of the quad holds column 0 (it writes L); each warpgroup holds its own 64 rows;
//     the threads together cover each tile exactly once; O's elements i, i + 1 (i even) are columns
//     c, c + 1 of one row (the epilogue stores them as a pair);
//   * the Q tile in shared memory, where the epilogue stages O: 16-byte chunks of a row contiguous and
//     aligned, every element at its own offset;
//   * P: the S accumulator registers viewed by as_a_operand are, element by element, the coordinates
//     the P·V wgmma's A operand (register-sourced) takes from this thread;
//   * the backward (flash3_bwd.cuh): the hand-swizzled dS and dQ store offsets (ds_offset, dq_offset)
//     against CuTe's dS layout and dq_index for every consumer thread and value, the lanes the L and D
//     shuffles read from, that dq_acc_column undoes dq_index's permutation of a row, and that the dS
//     (32-bit, a warp) and dQ (64-bit, a half-warp) stores fall on 32 distinct banks.
// Exit 0 when all hold; else the first failures on stderr and exit 1.
#include <cstdio>
#include <set>
#include <utility>

#include "cuda/kernels/flash3/flash3_bwd.cuh"

namespace {

using namespace cute;
int failures = 0;

void fail(const char* what, int tile_d, int tidx, int i) {
  if (++failures <= 20) std::fprintf(stderr, "flash3_layout_test: d=%d thread %d element %d: %s\n", tile_d, tidx, i, what);
}

template <class Tr>
void check() {
  constexpr int kBr = Tr::kBr, kBc = Tr::kBc, kD = Tr::kD;
  typename Tr::TiledMmaQK mma_qk;
  typename Tr::TiledMmaPV mma_pv;
  std::set<std::pair<int, int>> seen_s, seen_o;
  for (int tidx = 0; tidx < Tr::kConsumerThreads; ++tidx) {
    auto thr_qk = mma_qk.get_thread_slice(tidx);
    auto thr_pv = mma_pv.get_thread_slice(tidx);
    Tensor tScS = thr_qk.partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kBc>>{}));
    Tensor rc = make_tensor(tScS.data(), iosim::gpu::flash3::detail::rowcol(tScS.layout()));
    Tensor tOcO = thr_pv.partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kD>>{}));
    Tensor orc = make_tensor(tOcO.data(), iosim::gpu::flash3::detail::rowcol(tOcO.layout()));
    static_assert(decltype(size<0>(rc))::value == iosim::gpu::flash3::detail::kRows);
    const int warp = tidx / 32, lane = tidx % 32;
    const int row0 = warp * 16 + lane / 4;  // wgmma's C layout: warp w of a warpgroup owns rows 16w … 16w + 15
    for (int mi = 0; mi < size<0>(rc); ++mi) {
      const int r = get<0>(rc(mi, 0));
      if (r != row0 + 8 * mi) fail("S row is not the wgmma C layout's", kD, tidx, mi);
      if (r / 64 != tidx / 128) fail("S row outside its warpgroup's 64", kD, tidx, mi);
      if ((get<1>(rc(mi, 0)) == 0) != (lane % 4 == 0)) fail("column 0 not held by lane 0 of the quad", kD, tidx, mi);
      for (int ni = 0; ni < size<1>(rc); ++ni) {
        if (get<0>(rc(mi, ni)) != r) fail("S rowcol row mixes rows", kD, tidx, ni);
        if (!seen_s.insert({get<0>(rc(mi, ni)), get<1>(rc(mi, ni))}).second) fail("S element held twice", kD, tidx, ni);
      }
      for (int ni = 0; ni < size<1>(orc); ++ni) {
        if (get<0>(orc(mi, ni)) != r) fail("O rowcol row differs from S's", kD, tidx, ni);
      }
    }
    for (int i = 0; i < size(tOcO); ++i) {
      if (!seen_o.insert({get<0>(tOcO(i)), get<1>(tOcO(i))}).second) fail("O element held twice", kD, tidx, i);
      if (i % 2 == 0 && (get<0>(tOcO(i + 1)) != get<0>(tOcO(i)) || get<1>(tOcO(i + 1)) != get<1>(tOcO(i)) + 1 ||
                         get<1>(tOcO(i)) % 2 != 0)) {
        fail("O elements i, i+1 are not an aligned column pair", kD, tidx, i);
      }
    }
    Tensor as_a = make_tensor(tScS.data(), iosim::gpu::flash3::detail::as_a_operand(tScS.layout()));
    Tensor tPcP = thr_pv.partition_A(make_identity_tensor(Shape<Int<kBr>, Int<kBc>>{}));
    if (size(as_a) != size(tPcP)) fail("P and the A operand differ in size", kD, tidx, 0);
    if (rank(as_a) != rank(tPcP) || size<2>(as_a) != size<2>(tPcP)) fail("P's k-blocks differ from the A operand's", kD, tidx, 0);
    for (int i = 0; i < size(tPcP); ++i) {
      if (get<0>(as_a(i)) != get<0>(tPcP(i)) || get<1>(as_a(i)) != get<1>(tPcP(i))) {
        fail("P register is not the A operand's element", kD, tidx, i);
      }
    }
    // The k-block slices the gemm loop takes: element (v, m, k) of both.
    for (int k = 0; k < size<2>(tPcP); ++k) {
      for (int v = 0; v < size<0>(tPcP); ++v) {
        if (get<1>(as_a(v, 0, k)) != get<1>(tPcP(v, 0, k))) fail("P k-block slice differs", kD, tidx, v);
      }
    }
  }
  // The epilogue's staging of O in the Q tile: each 16-byte chunk of a row (8 elements from a column
  // multiple of 8) is contiguous and 16-byte aligned in shared memory, and the tile's elements have
  // distinct offsets (so a warpgroup writing its own rows touches none of the other's).
  // Offsets through a shared-memory pointer, as the kernel's sQ has them: the layout's swizzle acts on
  // byte addresses (16-byte units), which evaluating the layout alone on element offsets would not show.
  alignas(1024) static typename Tr::Element base[cosize_v<typename Tr::SmemLayoutQ>];
  Tensor sq_t = make_tensor(make_smem_ptr(base), typename Tr::SmemLayoutQ{});
  const auto sq = [&](int r, int c) { return static_cast<long>(&sq_t(r, c) - base); };
  constexpr int kChunk = 16 / sizeof(typename Tr::Element);
  std::set<int> offsets;
  for (int r = 0; r < kBr; ++r) {
    for (int c = 0; c < kD; ++c) {
      const int off = static_cast<int>(sq(r, c));
      if (!offsets.insert(off).second) fail("Q tile offset taken twice", kD, r, c);
      const int chunk0 = static_cast<int>(sq(r, c - c % kChunk));
      if (off != chunk0 + c % kChunk) fail("16-byte chunk of an O row not contiguous in the Q tile", kD, r, c);
      if (c % kChunk == 0 && off % kChunk != 0) fail("16-byte chunk of the Q tile not aligned", kD, r, c);
    }
  }
  if (static_cast<int>(seen_s.size()) != kBr * kBc) fail("S tile not covered", kD, -1, static_cast<int>(seen_s.size()));
  if (static_cast<int>(seen_o.size()) != kBr * kD) fail("O tile not covered", kD, -1, static_cast<int>(seen_o.size()));
}


template <class Tr>
void check_bwd() {
  using namespace iosim::gpu::flash3::detail;
  constexpr int kBr = Tr::kBr, kBc = Tr::kBc, kD = Tr::kD;
  constexpr int kTag = 1000 + kD * 10 + kBr / 64;  // the "d" of the failure lines: 1000 + 10·d + B_r / 64
  typename Tr::TiledMmaSdP mma_sdp;
  typename Tr::TiledMmadQ mma_dq;
  alignas(1024) static typename Tr::Element base[cosize_v<typename Tr::SmemLayoutdS>];
  Tensor sds = make_tensor(make_smem_ptr(base), typename Tr::SmemLayoutdS{});
  std::set<int> ds_seen, dq_seen;
  constexpr int kRowVals = kBr / 32;
  for (int tidx = 0; tidx < Tr::kConsumerThreads; ++tidx) {
    const int lane = tidx % 32;
    Tensor tScS = mma_sdp.get_thread_slice(tidx).partition_C(make_identity_tensor(Shape<Int<kBc>, Int<kBr>>{}));
    const int db = ds_thread_base(tidx);
    for (int v = 0; v < size(tScS); ++v) {
      const int key = get<0>(tScS(v)), row = get<1>(tScS(v));
      const int j = v % 2, mi = (v / 2) % 2, nk = v / 4;
      for (int buf = 0; buf < 2; ++buf) {
        const int actual = static_cast<int>(&sds(row, key, buf) - base);
        const int expect = buf * kBr * kBc + ds_offset<kBc>(db, nk, mi) + j;
        if (actual != expect) fail("dS hand-swizzled offset differs from SmemLayoutdS", kTag, tidx, v);
        if (!ds_seen.insert(actual).second) fail("dS offset taken twice", kTag, tidx, v);
      }
      if (row != 8 * nk + 2 * (lane % 4) + j) fail("S^T column (Q row) not 8 nk + 2 (lane % 4) + j", kTag, tidx, v);
      // The L/D shuffle: the source lane's loaded row for value nk % kRowVals is this row.
      const int src = 8 * (nk % 4) + 2 * (lane & 3) + j;  // the kernel's shuffle: value nk / 4 of lane src
      const int src_row = src + 32 * (nk / 4);
      if (nk / 4 >= kRowVals) fail("L/D shuffle value index past the lane's loads", kTag, tidx, v);
      if (src_row != row) fail("L/D shuffle source lane holds another row", kTag, tidx, v);
    }
    Tensor tdQcdQ = mma_dq.get_thread_slice(tidx).partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kD>>{}));
    const int qb = dq_index<kD>(get<0>(tdQcdQ(0)), get<1>(tdQcdQ(0)));
    for (int v = 0; v < size(tdQcdQ); ++v) {
      const int r = get<0>(tdQcdQ(v)), c = get<1>(tdQcdQ(v));
      const int j = v % 2, mi = (v / 2) % 2, nk = v / 4;
      if (dq_offset<kD>(qb, nk, mi) + j != dq_index<kD>(r, c)) fail("dQ hand-swizzled offset differs from dq_index", kTag, tidx, v);
      if (j == 0 && dq_index<kD>(r, c) % 2 != 0) fail("dQ pair not 8-byte aligned", kTag, tidx, v);
      if (!dq_seen.insert(dq_index<kD>(r, c)).second) fail("dQ index taken twice", kTag, tidx, v);
    }
  }
  // Bank conflicts of the stores (32 banks of 4 bytes, tiles 128-byte aligned): a warp's 32-bit dS
  // stores on 32 distinct banks; its 64-bit dQ stores, a half-warp at a time, on 32 distinct banks per half.
  for (int warp = 0; warp < Tr::kConsumerThreads / 32; ++warp) {
    for (int v = 0; v < 4 * kBr / 8; v += 2) {
      std::set<int> banks;
      for (int lane = 0; lane < 32; ++lane) {
        banks.insert((ds_offset<kBc>(ds_thread_base(warp * 32 + lane), v / 4, (v / 2) % 2) / 2) % 32);
      }
      if (banks.size() != 32) fail("dS stores of a warp share banks", kTag, warp * 32, v);
    }
    Tensor c0 = mma_dq.get_thread_slice(warp * 32).partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kD>>{}));
    for (int v = 0; v < size(c0); v += 2) {
      for (int half = 0; half < 2; ++half) {
        std::set<int> banks;
        for (int lane = 16 * half; lane < 16 * half + 16; ++lane) {
          Tensor c = mma_dq.get_thread_slice(warp * 32 + lane).partition_C(make_identity_tensor(Shape<Int<kBr>, Int<kD>>{}));
          const int idx = dq_index<kD>(get<0>(c(v)), get<1>(c(v)));
          banks.insert(idx % 32);
          banks.insert((idx + 1) % 32);
        }
        if (banks.size() != 32) fail("dQ 64-bit stores of a half-warp share banks", kTag, warp * 32 + 16 * half, v);
      }
    }
  }
  if (static_cast<int>(ds_seen.size()) != 2 * kBr * kBc) fail("dS buffers not covered", kTag, -1, static_cast<int>(ds_seen.size()));
  if (static_cast<int>(dq_seen.size()) != kBr * kD) fail("dQ tile not covered", kTag, -1, static_cast<int>(dq_seen.size()));
  for (int r = 0; r < kBr; ++r) {
    for (int c = 0; c < kD; ++c) {
      if (dq_index<kD>(r, c) != r * kD + dq_acc_column(r, c)) fail("dq_acc_column is not dq_index's column", kTag, r, c);
      if (dq_acc_column(r, c) < 0 || dq_acc_column(r, c) >= kD) fail("dq_acc_column leaves the row", kTag, r, c);
    }
  }
}

}  // namespace

int main() {
  using iosim::gpu::flash3::detail::FwdTraits;
  check<FwdTraits<cutlass::half_t, 64>>();
  check<FwdTraits<cutlass::half_t, 128>>();
  check<FwdTraits<cutlass::bfloat16_t, 128>>();
  using iosim::gpu::flash3::detail::BwdTraits;
  check_bwd<BwdTraits<cutlass::half_t, 64, 128>>();
  check_bwd<BwdTraits<cutlass::half_t, 128, 64>>();
  check_bwd<BwdTraits<cutlass::bfloat16_t, 64, 128>>();
  check_bwd<BwdTraits<cutlass::half_t, 64, 64>>();
  if (failures == 0) {
    std::printf("flash3_layout_test: S, O, P and the Q tile layouts as the kernel assumes (d = 64, 128); the backward's dS, dQ offsets and L/D lanes\n");
  }
  return failures == 0 ? 0 : 1;
}
