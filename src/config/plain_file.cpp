#include "src/config/plain_file.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/error.h"
#include "src/config/checked_file.h"

namespace iosim::config {

namespace {

/// What a file of `mode` is when it is not a regular one (checked_file.h's names), else nullopt.
std::optional<std::string> kind_of(mode_t mode) {
  std::string kind = file_kind_of_mode(mode);
  if (kind.empty()) return std::nullopt;
  return kind;
}

[[noreturn]] void refuse(const std::string& path, const std::string& kind, const std::string& what) {
  throw InputError(path + ": is " + kind + ", not a regular file (" + what + " must be one)");
}

/// Closes the descriptor on every way out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::optional<std::string> not_a_regular_file(const std::string& path) {
  std::string kind = special_file_kind(path);  // "" for a regular file or nothing there (the open says)
  if (kind.empty()) return std::nullopt;
  return kind;
}

void require_regular_file(const std::string& path, const std::string& what) {
  if (const std::optional<std::string> kind = not_a_regular_file(path)) refuse(path, *kind, what);
}

std::optional<std::string> read_regular_file(const std::string& path, std::uint64_t max_bytes,
                                             const std::string& what, const std::string& limit_hint) {
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; fstat
  // then refuses it, and anything else that is not a regular file, before any read.
  const Fd f{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (f.fd < 0) {
    if (errno == ENOENT) return std::nullopt;
    throw InputError(path + ": cannot be read (" + std::strerror(errno) + ")");
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw InputError(path + ": cannot be read (" + std::strerror(errno) + ")");
  if (const std::optional<std::string> kind = kind_of(st.st_mode)) refuse(path, *kind, what);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    throw InputError(path + ": " + what + " of " + std::to_string(size) + " bytes, more than the " +
                     std::to_string(max_bytes) + " it may be" + limit_hint);
  }
  // Read at most max_bytes + 1: a file that grows while it is read is still bounded.
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  std::size_t got = 0;
  for (;;) {
    if (got == text.size()) {
      if (text.size() > max_bytes) {
        throw InputError(path + ": " + what + " that grew past the " + std::to_string(max_bytes) +
                         " bytes it may be while it was read");
      }
      // More room: whether the file grew, up to one byte past the limit.
      text.resize(static_cast<std::size_t>(std::min<std::uint64_t>(max_bytes + 1, text.size() + (1u << 16))));
    }
    const ssize_t n = ::read(f.fd, text.data() + got, text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": cannot be read (" + std::strerror(errno) + ")");
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return text;
}

}  // namespace iosim::config
