// What the fuzz targets share: the bytes as a file (the loaders read paths), a reader that turns bytes
// into small numbers, and the finding itself: a broken promise aborts, so libFuzzer records the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

namespace iosim::fuzz {

/// Writes `size` bytes to this process's own file in the temporary folder and returns its path.
inline std::string as_file(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/iosim-fuzz-" +
                           std::to_string(::getpid()) + suffix;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

/// A broken invariant: prints it and aborts, which libFuzzer reports as a crash with the input.
[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "iosim fuzz finding: %s\n", what.c_str());
  std::abort();
}

/// Consumes bytes from the front; past the end every read is 0.
class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t u8() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint32_t u32() {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | u8();
    return v;
  }
  /// A value in [lo, hi].
  std::uint64_t in(std::uint64_t lo, std::uint64_t hi) { return lo + u32() % (hi - lo + 1); }
  [[nodiscard]] bool empty() const { return at_ >= size_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

}  // namespace iosim::fuzz
