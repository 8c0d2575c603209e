// FlashAttention-2's forward's fitted figures, which the families without a kernel of their own that
// run its code take too (flashdecode's split kernel, dtiled: sim/schedule/flashdecode/families.cpp).
#pragma once

#include "sim/schedule/kernel_family.h"

namespace iosim::detail {

/// FlashAttention-2's forward's register model (scripts/fit-registers.py), which the variants without a
/// kernel of their own (split-KV decoding, dtiled) take too.
struct RegisterModel {
  double base, per_fragment;
};
inline constexpr RegisterModel kFa2FwdRegisters{55.9, 1.168};

/// FlashAttention-2's forward's waits, which the variants sharing its code take too. per_mio_multi_tile:
/// a warp owning 32 rows waits less per MIO instruction than one owning 16.
inline constexpr DependencyWaits kFa2FwdWaits{.per_instruction = 1.33, .per_mio = 4.6, .per_mio_multi_tile = 1.4,
                                              .dispatch = 0.33};

/// FlashAttention-2's forward's overhead with one stage of K/V (no loop keeping tiles in flight), which
/// the variants that run one stage take.
inline constexpr StepOverhead kFa2FwdOneStageOverhead{.per_step = 25.9, .per_row = 0.63, .per_column = 2.95};

/// What FlashAttention-2's forward's loop adds a step when it keeps K/V tiles in flight (2 or more
/// stages: the copies of tile j + stages − 1, the waits by group count, each stage's addresses).
inline constexpr double kFa2FwdPipelinedStep = 60.4;

}  // namespace iosim::detail
