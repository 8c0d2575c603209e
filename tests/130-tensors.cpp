// The tensor table (sim/core/tensor.h): each tensor's rows, columns, heads, type and layout, once;
// problem sizes and the address map derive from it.
#include <doctest/doctest.h>

#include "sim/gpu/address_map.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

TEST_CASE("tensor table: sizes of a grouped-query problem, per tensor") {
  Problem p = problem(96, 64, 2, 8);
  p.n_kv = 160;
  p.kv_heads = 2;
  const std::uint64_t q = 2 * 8 * 96, kv = 2 * 2 * 160;
  CHECK(tensor_elements(p, Tensor::Q) == q * 64);
  CHECK(tensor_elements(p, Tensor::dQacc) == q * 64);
  CHECK(tensor_elements(p, Tensor::K) == kv * 64);
  CHECK(tensor_elements(p, Tensor::dV) == kv * 64);
  CHECK(tensor_elements(p, Tensor::dVexp) == 2 * 8 * 160 * 64);  // per query head: the group's before the sum
  CHECK(tensor_elements(problem(96, 64, 2, 8), Tensor::dVexp) == 0);  // no groups, no scratch
  CHECK(tensor_elements(p, Tensor::L) == q);
  CHECK(tensor_elements(p, Tensor::S) == 0);      // the schedule decides
  CHECK(tensor_elements(p, Tensor::Opart) == 0);
  for (Tensor t : kAllTensors) {
    CAPTURE(name(t));
    const bool stat_or_acc = t == Tensor::l || t == Tensor::m || t == Tensor::L || t == Tensor::D ||
                             t == Tensor::dQacc || t == Tensor::Opart || t == Tensor::Lpart;
    CHECK((storage_type(t, DType::fp16) == DType::fp32) == stat_or_acc);
  }
}

TEST_CASE("tensor table: the address map lays each tensor out as its row says") {
  Problem p = problem(128, 64, 1, 4);
  p.kv_heads = 2;
  const AddressMap map(p, 128, 32);
  // Consecutive tensors start on 2 MiB boundaries; a tensor takes its heads × rows × cols × type.
  const auto span = [&](Tensor a, Tensor b) { return map.base(b) - map.base(a); };
  CHECK(span(Tensor::Q, Tensor::K) == AddressMap::kAlignment);  // 4 · 128 · 64 · 2 B = 64 KiB
  // K's second key/value head starts 128 · 64 · 2 bytes after its first.
  const TileRef k_row0{Tensor::K, 0, 1, 0, 64};
  CHECK(map.bytes(k_row0, 1, HeadMap::kv).start - map.bytes(k_row0, 0, HeadMap::kv).start == 128 * 64 * 2);
  // dK is stored per key/value head, as K; its per-query-head scratch dKexp per query head: four
  // heads, the fourth at 3 · 128 · 64 · 2 bytes.
  const TileRef dk_row0{Tensor::dK, 0, 1, 0, 64};
  CHECK(map.bytes(dk_row0, 1, HeadMap::kv).start - map.base(Tensor::dK) == 128 * 64 * 2);
  CHECK(map.base(Tensor::dV) - map.base(Tensor::dK) == AddressMap::kAlignment);
  const TileRef dkexp_row0{Tensor::dKexp, 0, 1, 0, 64};
  CHECK(map.bytes(dkexp_row0, 3, HeadMap::query).start - map.base(Tensor::dKexp) == 3 * 128 * 64 * 2);
  // A K/V head reads its group's two query heads as packed rows: K/V head 1 starts at query head 2.
  CHECK(map.bytes(dkexp_row0, 1, HeadMap::packed_query).start - map.base(Tensor::dKexp) == 2 * 128 * 64 * 2);
  // L: one fp32 per row.
  const TileRef l_rows{Tensor::L, 0, 128, 0, 1};
  CHECK(map.bytes(l_rows, 0, HeadMap::query).width == 128 * 4);
}
