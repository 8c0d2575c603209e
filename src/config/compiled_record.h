// The JSON records python/iosim/triton writes for compiled kernels (family.py, batch.py), read into the
// model's CompiledKernel (sim/schedule/compiled_kernel.h). Reading only: which records to ask for and
// how to run the compiler is src/cli/triton_records.h's.
#pragma once

#include <string>
#include <vector>

#include "sim/schedule/compiled_kernel.h"

namespace iosim::config {

/// One record (a JSON object as family.py writes it). Throws InputError naming the configuration
/// (as far as the record names it) and what is missing or malformed.
[[nodiscard]] CompiledKernel parse_compiled_record(const std::string& json);

/// A JSON list of records, as `python3 -m iosim.triton.batch` prints it.
[[nodiscard]] std::vector<CompiledKernel> parse_compiled_records(const std::string& json);

/// An HGMMA's or HMMA's m16n8k16s per warp from its opcode with the shape ("HGMMA.64x128x16.F32": each
/// of the warpgroup's four warps computes 16 of the 64 rows, so N / 8; "HMMA.16816.F32": 1,
/// "HMMA.1688.F32": 0.5); 0 for an opcode without a shape it knows.
[[nodiscard]] double mma_per_warp_of(const std::string& opcode);

}  // namespace iosim::config
