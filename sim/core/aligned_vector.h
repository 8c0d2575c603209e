// A std::vector whose storage starts on a host cache line (64 bytes), so that a block of 64 bytes of
// it at a multiple of 64 is one line of the host's cache: the L2 model keeps each set's tags in one.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace iosim {

inline constexpr std::size_t kHostLineBytes = 64;

template <class T>
struct HostLineAllocator {
  using value_type = T;
  HostLineAllocator() = default;
  template <class U>
  HostLineAllocator(const HostLineAllocator<U>&) noexcept {}  // NOLINT: allocators convert implicitly
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kHostLineBytes}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ::operator delete(p, n * sizeof(T), std::align_val_t{kHostLineBytes});
  }
  template <class U>
  bool operator==(const HostLineAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using AlignedVector = std::vector<T, HostLineAllocator<T>>;

}  // namespace iosim
