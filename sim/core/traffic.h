// Counts of data moved, as a value type: add them, subtract them (phase deltas), compare them.
#pragma once

#include "sim/core/units.h"

namespace iosim {

struct Traffic {
  Elements read_elements;
  Elements write_elements;
  Bytes read_bytes;
  Bytes write_bytes;

  [[nodiscard]] Bytes bytes() const { return read_bytes + write_bytes; }
  [[nodiscard]] Elements elements() const { return read_elements + write_elements; }

  Traffic& operator+=(const Traffic& o) {
    read_elements += o.read_elements;
    write_elements += o.write_elements;
    read_bytes += o.read_bytes;
    write_bytes += o.write_bytes;
    return *this;
  }
  Traffic& operator-=(const Traffic& o) {
    read_elements -= o.read_elements;
    write_elements -= o.write_elements;
    read_bytes -= o.read_bytes;
    write_bytes -= o.write_bytes;
    return *this;
  }
  friend Traffic operator+(Traffic a, const Traffic& b) { return a += b; }
  friend Traffic operator-(Traffic a, const Traffic& b) { return a -= b; }
  friend bool operator==(const Traffic&, const Traffic&) = default;
};

}  // namespace iosim
