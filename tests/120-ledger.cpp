#include <doctest/doctest.h>

#include "sim/core/emitter.h"
#include "sim/core/ledger.h"

using namespace iosim;

SCENARIO("the ledger counts each direction at both levels") {
  GIVEN("an fp16 ledger") {
    Ledger led(DType::fp16);
    const Emitter e(led, Walk::runs);
    WHEN("a 4 × 8 tile of Q is loaded three times and one of O stored twice") {
      e.repeated(3).load({Tensor::Q, 0, 4, 0, 8});
      e.repeated(2).store({Tensor::O, 0, 4, 0, 8});
      THEN("HBM reads and SRAM writes match, in elements and bytes") {
        CHECK(led.at(Level::hbm, Tensor::Q).read_elements == Elements(96));
        CHECK(led.at(Level::hbm, Tensor::Q).read_bytes == Bytes(192));
        CHECK(led.at(Level::sram, Tensor::Q).write_elements == Elements(96));
        CHECK(led.at(Level::hbm, Tensor::O).write_elements == Elements(64));
        CHECK(led.at(Level::sram, Tensor::O).read_elements == Elements(64));
        CHECK(led.transfers() == 5);
      }
    }
    WHEN("fp32 statistics move") {
      e.load({Tensor::l, 0, 10, 0, 1});
      THEN("they count four bytes per element") { CHECK(led.at(Level::hbm, Tensor::l).read_bytes == Bytes(40)); }
    }
    WHEN("a tile is reduced into HBM") {
      e.reduce({Tensor::dQacc, 0, 2, 0, 4});
      THEN("it is read and written below SRAM, and read once from SRAM") {
        const Traffic& h = led.at(Level::hbm, Tensor::dQacc);
        CHECK(h.read_elements == Elements(8));
        CHECK(h.write_elements == Elements(8));
        CHECK(h.read_bytes == Bytes(32));
        CHECK(led.at(Level::sram, Tensor::dQacc).read_elements == Elements(8));
        CHECK(led.at(Level::sram, Tensor::dQacc).write_elements == Elements(0));
      }
    }
    WHEN("arithmetic is emitted") {
      e.repeated(4).matmul(2, 3, 5);
      e.vector(7);
      THEN("matmul and vector FLOPs are apart") {
        CHECK(led.matmul_flops() == Flops(4 * 2 * 2 * 3 * 5));
        CHECK(led.vector_flops() == Flops(7));
        CHECK(led.flops() == Flops(247));
      }
    }
  }
}

TEST_CASE("ledgers add, and totals are sums over tensors") {
  Ledger a(DType::bf16), b(DType::bf16);
  Emitter(a, Walk::runs).load({Tensor::K, 0, 2, 0, 2});
  Emitter(b, Walk::runs).load({Tensor::V, 0, 3, 0, 1});
  Emitter(b, Walk::runs).store({Tensor::O, 0, 1, 0, 1});
  a += b;
  CHECK(a.total(Level::hbm).read_elements == Elements(7));
  CHECK(a.total(Level::hbm).write_elements == Elements(1));
  CHECK(a.total(Level::hbm).bytes() == Bytes(16));
  Ledger c(DType::fp32);
  CHECK_THROWS(c += a);
}

TEST_CASE("traffic values subtract for phase deltas") {
  Traffic x{Elements(10), Elements(4), Bytes(20), Bytes(8)};
  Traffic y{Elements(3), Elements(1), Bytes(6), Bytes(2)};
  const Traffic z = x - y;
  CHECK(z.read_elements == Elements(7));
  CHECK(z + y == x);
  CHECK(z.bytes() == Bytes(20));
}
