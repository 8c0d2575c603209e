#include "sim/timing/step_profile.h"

namespace iosim {

void StepProfiler::on_transfer(const Transfer& t) {
  const double bytes = static_cast<double>(t.tile.elements().value) *
                       static_cast<double>(size_bytes(storage_type(t.tile.tensor, element_))) *
                       static_cast<double>(t.times);
  switch (t.dir) {
    case Direction::hbm_to_sram: open_.load_bytes += bytes; break;
    case Direction::sram_to_hbm: open_.store_bytes += bytes; break;
    case Direction::reduce: open_.reduce_bytes += bytes; break;
  }
  open_empty_ = false;
}

void StepProfiler::on_compute(const Compute& c) {
  const auto times = static_cast<double>(c.times);
  switch (c.kind) {
    case ComputeKind::matmul:
      for (std::uint64_t i = 0; i < c.times; ++i) open_.matmuls.push_back({c.m, c.n, c.k});
      break;
    case ComputeKind::vector: open_.vector_flops += static_cast<double>(c.flops.value) * times; break;
    case ComputeKind::special: open_.special_ops += static_cast<double>(c.flops.value) * times; break;
  }
  open_empty_ = false;
}

void StepProfiler::close() {
  if (!out_.runs.empty() && out_.runs.back().segment == open_) {
    ++out_.runs.back().count;
  } else {
    out_.runs.push_back({open_, 1});
  }
  // Emptied in place: the products' vector keeps its room for the next step (a step a block).
  std::vector<MatmulShape> matmuls = std::move(open_.matmuls);
  matmuls.clear();
  open_ = Segment{};
  open_.matmuls = std::move(matmuls);
  open_empty_ = true;
}

void StepProfiler::on_step() {
  ++out_.steps;
  close();
}

BlockProfile StepProfiler::finish() {
  if (!open_empty_) close();
  BlockProfile p = std::move(out_);
  out_ = BlockProfile{};
  return p;
}

KernelProfile profile_kernel(const Kernel& k, DType element) {
  KernelProfile out;
  out.heads = k.grid_heads();
  const Tiling g = k.grid_x();
  const std::uint64_t xs = g.count();
  out.profile_of_x.resize(xs);
  StepProfiler prof(element);
  const auto profile_x = [&](std::uint64_t x) {
    k.block(Span{x, 1, g.size(x), g.begin(x)}, Emitter(prof, Walk::each));
    return prof.finish();
  };
  // A uniform grid's blocks differ at most in the ragged last one: profile the first and the last.
  const bool uniform = k.uniform();
  for (std::uint64_t x = 0; x < xs; ++x) {
    if (uniform && x > 0 && x + 1 < xs) {
      out.profile_of_x[x] = out.profile_of_x[0];
      continue;
    }
    BlockProfile p = profile_x(x);
    std::uint32_t idx = 0;
    for (; idx < out.distinct.size(); ++idx) {
      if (out.distinct[idx] == p) break;
    }
    if (idx == out.distinct.size()) out.distinct.push_back(std::move(p));
    out.profile_of_x[x] = idx;
  }
  return out;
}

}  // namespace iosim
