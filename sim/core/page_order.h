// The order of a paged K/V cache's pages in HBM (sim/core/paging.h): as the tokens run, or shuffled.
#pragma once

#include <cstdint>

namespace iosim {

/// contiguous: page k of a sequence in its k-th slot (the unpaged addresses when the page size divides
/// n_kv); random: a permutation of the sequence's slots drawn from Problem::page_seed.
enum class PageOrder : std::uint8_t { contiguous, random };

/// The seed of `--page-order random` (a named seed is `--page-order SEED`).
inline constexpr std::uint64_t kDefaultPageSeed = 1;

}  // namespace iosim
