// Test fixtures: hardware written in code (no YAML), problems, and one-call counting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/error.h"
#include "sim/core/hardware.h"
#include "sim/core/ledger.h"
#include "sim/run.h"
#include "sim/schedule/registry.h"
#include "sim/schedule/schedule.h"

namespace iosim::test {

/// The figures of configs/a100.yaml that the counting model uses.
inline HardwareSpec a100() {
  HardwareSpec hw;
  hw.name = "A100 (test)";
  hw.arch = "sm_80";
  hw.sm = {108, Bytes(167936), Bytes(166912), 65536, 255, 2048, 1024, 32, 128, 16};
  hw.l2 = {Bytes(41943040), 128, 32, 16, 5120};
  hw.hbm = {1555};
  hw.clock = {1410};
  hw.peak = {312, 312, 0, 19.5};
  hw.launch_overhead_us = 4;
  return hw;
}

/// A GPU whose SRAM per block is `sram` bytes, otherwise an A100.
inline HardwareSpec with_sram(std::uint64_t sram) {
  HardwareSpec hw = a100();
  hw.sm.sram_per_block = Bytes(sram);
  hw.sm.sram_per_sm = Bytes(sram);
  return hw;
}

inline Problem problem(std::uint64_t n, std::uint64_t d, std::uint64_t batch = 1, std::uint64_t heads = 1,
                       std::uint64_t n_kv = 0, DType t = DType::fp16) {
  Problem p;
  p.batch = batch;
  p.heads = heads;
  p.n = n;
  p.n_kv = n_kv == 0 ? n : n_kv;
  p.d = d;
  p.dtype = t;
  return p;
}

inline ScheduleContext context(const Problem& p, const HardwareSpec& hw = a100(), TileRequest tiles = {}) {
  return ScheduleContext{p, hw, tiles, 0, {}};
}

inline TileRequest tiles(std::uint64_t br, std::uint64_t bc) { return TileRequest{br, bc}; }

/// An A100 with the H200's architecture, SM count and shared memory (configs/h200.yaml): a GPU on which
/// the registry's hopper_only schedules (flash3: TMA, wgmma) run.
inline HardwareSpec hopper() {
  HardwareSpec hw = a100();
  hw.name = "Hopper (test)";
  hw.arch = "sm_90";
  hw.sm.count = 132;
  hw.sm.sram_per_sm = Bytes(233472);
  hw.sm.sram_per_block = Bytes(232448);
  return hw;
}

/// The test GPU for schedule `name`: hopper() for a hopper_only one, else a100().
inline HardwareSpec hardware_for(std::string_view name) {
  const ScheduleEntry* e = find_schedule(name);
  return e != nullptr && e->caps.hopper_only ? hopper() : a100();
}

/// Whether schedule `name` runs on the A100 of a100() and on any tile the generic tests give: all but
/// the registry's hopper_only ones (flash3: Hopper configs and wgmma tiles only; tests/265-flash3.cpp
/// checks the same invariants for it).
inline bool runs_anywhere(std::string_view name) {
  const ScheduleEntry* e = find_schedule(name);
  return e == nullptr || !e->caps.hopper_only;
}

/// `p` as schedule `name` takes it: for a dense_mha_only one (eager), one K/V head a query head;
/// nullopt where `p` is causal and the schedule refuses masks. Other schedules take `p` as it is.
inline std::optional<Problem> as_taken_by(std::string_view name, Problem p) {
  const ScheduleEntry* e = find_schedule(name);
  if (e == nullptr || !e->caps.dense_mha_only) return p;
  if (p.causal) return std::nullopt;
  p.kv_heads = p.heads;
  return p;
}

/// Counts schedule `name` (forward) with Walk::runs.
inline ScheduleRun count(const std::string& name, const ScheduleContext& ctx, Pass pass = Pass::fwd) {
  return run_schedule(*make_schedule(name, pass, ctx), ctx);
}

/// Elements of tensor `t` read / written at HBM.
inline std::uint64_t reads(const ScheduleRun& r, Tensor t) { return r.ledger.at(Level::hbm, t).read_elements.value; }
inline std::uint64_t writes(const ScheduleRun& r, Tensor t) {
  return r.ledger.at(Level::hbm, t).write_elements.value;
}

}  // namespace iosim::test
