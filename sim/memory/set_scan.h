// The two scans of one L2 set on the model's hot path: which way holds a tag, and which way is the
// oldest. The common shape, 16 ways, is scanned with SSE2 (part of every x86-64 CPU) in a dozen
// instructions, without a branch per way; other shapes and other CPUs take the plain loops, which are
// also the reference the tests hold the fast path to.
#pragma once

#include <bit>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace iosim::set_scan {

/// The way among `ways` whose tag is `tag`, or `ways` when none is.
[[nodiscard]] inline std::uint32_t find_plain(const std::uint32_t* tags, std::uint32_t tag, std::uint32_t ways) {
  for (std::uint32_t way = 0; way < ways; ++way) {
    if (tags[way] == tag) return way;
  }
  return ways;
}

/// The first way with the smallest age.
[[nodiscard]] inline std::uint32_t oldest_plain(const std::uint16_t* ages, std::uint32_t ways) {
  std::uint32_t best = 0;
  for (std::uint32_t way = 1; way < ways; ++way) {
    if (ages[way] < ages[best]) best = way;
  }
  return best;
}

#if defined(__SSE2__)
/// find_plain() of 16 ways: four compares of four tags, packed into one 16-bit mask.
[[nodiscard]] inline std::uint32_t find16(const std::uint32_t* tags, std::uint32_t tag) {
  const __m128i t = _mm_set1_epi32(static_cast<int>(tag));
  const auto* p = reinterpret_cast<const __m128i*>(tags);
  const __m128i e0 = _mm_cmpeq_epi32(_mm_loadu_si128(p), t), e1 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 1), t);
  const __m128i e2 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 2), t), e3 = _mm_cmpeq_epi32(_mm_loadu_si128(p + 3), t);
  const __m128i bytes = _mm_packs_epi16(_mm_packs_epi32(e0, e1), _mm_packs_epi32(e2, e3));
  const auto hits = static_cast<std::uint32_t>(_mm_movemask_epi8(bytes));
  return static_cast<std::uint32_t>(std::countr_zero(hits | 0x10000u));
}

/// oldest_plain() of 16 ways whose ages are at most kAgeLimit (replacement.h): the minimum across two
/// vectors of 8, folded in halves, then the first way that equals it.
[[nodiscard]] inline std::uint32_t oldest16(const std::uint16_t* ages) {
  const auto* p = reinterpret_cast<const __m128i*>(ages);
  const __m128i a0 = _mm_loadu_si128(p), a1 = _mm_loadu_si128(p + 1);
  __m128i m = _mm_min_epi16(a0, a1);
  m = _mm_min_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
  m = _mm_min_epi16(m, _mm_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
  m = _mm_min_epi16(m, _mm_shufflelo_epi16(_mm_shufflehi_epi16(m, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1)));
  const __m128i bytes = _mm_packs_epi16(_mm_cmpeq_epi16(a0, m), _mm_cmpeq_epi16(a1, m));
  return static_cast<std::uint32_t>(std::countr_zero(static_cast<std::uint32_t>(_mm_movemask_epi8(bytes))));
}
#endif

[[nodiscard]] inline std::uint32_t find(const std::uint32_t* tags, std::uint32_t tag, std::uint32_t ways) {
#if defined(__SSE2__)
  if (ways == 16) return find16(tags, tag);
#endif
  return find_plain(tags, tag, ways);
}

[[nodiscard]] inline std::uint32_t oldest(const std::uint16_t* ages, std::uint32_t ways) {
#if defined(__SSE2__)
  if (ways == 16) return oldest16(ages);
#endif
  return oldest_plain(ages, ways);
}

}  // namespace iosim::set_scan
