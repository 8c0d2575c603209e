#include <doctest/doctest.h>

#include <limits>

#include "sim/core/dtype.h"
#include "sim/core/tensor.h"
#include "sim/core/units.h"

using namespace iosim;

TEST_CASE("checked arithmetic throws instead of wrapping") {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  CHECK(checked_add(2, 3) == 5);
  CHECK(checked_mul(1u << 20, 1u << 20) == std::uint64_t{1} << 40);
  CHECK_THROWS_AS((void)checked_add(max, 1), OverflowError);
  CHECK_THROWS_AS((void)checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32), OverflowError);
  CHECK_THROWS_AS((void)checked_sub(1, 2), OverflowError);
  CHECK(ceil_div(10, 3) == 4);
  CHECK(ceil_div(9, 3) == 3);
  CHECK(ceil_div(1, 128) == 1);
}

TEST_CASE("quantities keep their units and check overflow") {
  Bytes b(10);
  b += Bytes(5);
  CHECK(b == Bytes(15));
  CHECK(b - Bytes(5) == Bytes(10));
  CHECK((Elements(3) * 4).value == 12);
  CHECK_THROWS_AS(Bytes(1) - Bytes(2), OverflowError);
  CHECK_THROWS_AS(Bytes(std::numeric_limits<std::uint64_t>::max()) + Bytes(1), OverflowError);
}

TEST_CASE("element types and storage types") {
  CHECK(size_bytes(DType::fp32) == 4);
  CHECK(size_bytes(DType::fp16) == 2);
  CHECK(size_bytes(DType::bf16) == 2);
  CHECK(size_bytes(DType::fp8) == 1);
  CHECK(parse_dtype("bf16") == DType::bf16);
  CHECK_FALSE(parse_dtype("fp64").has_value());
  // Statistics and accumulators are fp32 whatever the problem's type.
  CHECK(storage_type(Tensor::l, DType::fp16) == DType::fp32);
  CHECK(storage_type(Tensor::L, DType::fp8) == DType::fp32);
  CHECK(storage_type(Tensor::dQacc, DType::bf16) == DType::fp32);
  CHECK(storage_type(Tensor::Q, DType::bf16) == DType::bf16);
  CHECK(bytes_of(Elements(10), DType::fp16) == Bytes(20));
  for (Tensor t : kAllTensors) CHECK(!name(t).empty());
}
