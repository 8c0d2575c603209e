// Warp instructions by kind: what the SM model issues for a step, a block or a whole kernel, so that
// the model's instruction counts stand beside the hardware's (ncu's smsp__inst_executed_pipe_* and
// smsp__sass_inst_executed_op_*; scripts/instruction-mix.py compares them).
#pragma once

namespace iosim {

struct InstructionMix {
  double mma = 0;       ///< mma.sync m16n8k16 (HMMA.16816)
  double ldmatrix = 0;  ///< ldmatrix.x4 (LDSM)
  double fp32 = 0;      ///< the softmax's FP32 work, one instruction per lane operation
  double ex2 = 0;       ///< ex2.approx (MUFU.EX2)
  double shuffle = 0;   ///< shfl.sync.bfly of the row reductions
  double barrier = 0;   ///< bar.sync
  double load = 0;      ///< 16-byte cp.async (LDGSTS) per lane
  double store = 0;     ///< 16-byte global stores per lane
  double reduce = 0;    ///< fp32 RED per lane
  double other = 0;     ///< the family's step overhead: integer, conversions, shared staging, control
  [[nodiscard]] double total() const {
    return mma + ldmatrix + fp32 + ex2 + shuffle + barrier + load + store + reduce + other;
  }
  InstructionMix& add(const InstructionMix& o, double times = 1) {
    mma += o.mma * times;
    ldmatrix += o.ldmatrix * times;
    fp32 += o.fp32 * times;
    ex2 += o.ex2 * times;
    shuffle += o.shuffle * times;
    barrier += o.barrier * times;
    load += o.load * times;
    store += o.store * times;
    reduce += o.reduce * times;
    other += o.other * times;
    return *this;
  }
};

}  // namespace iosim
