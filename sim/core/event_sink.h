// The one interface every observer of a schedule implements: the ledger, traces, cache models.
#pragma once

#include "sim/core/transfer.h"

namespace iosim {

class EventSink {
 public:
  EventSink() = default;
  EventSink(const EventSink&) = default;
  EventSink& operator=(const EventSink&) = default;
  virtual ~EventSink() = default;

  /// A tile crossed the SRAM boundary. Called in schedule order. The sink may not keep the reference.
  virtual void on_transfer(const Transfer& t) = 0;

  /// Arithmetic on resident tiles. Called in schedule order, after the loads it needs.
  virtual void on_compute(const Compute& c) = 0;

  /// The current thread block finished one step of its innermost loop: a point where the steps of
  /// other blocks running at the same time may interleave. Sinks that ignore time ignore it.
  virtual void on_step() {}
};

}  // namespace iosim
