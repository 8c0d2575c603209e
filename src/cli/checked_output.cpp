#include "src/cli/checked_output.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace iosim::cli {

namespace {

std::string because(int err) { return err == 0 ? std::string() : std::string(": ") + std::strerror(err); }

}  // namespace

FdOutputBuf::FdOutputBuf(int fd) : fd_(fd), line_buffered_(::isatty(fd) == 1), buf_(std::size_t{1} << 16) {
  setp(buf_.data(), buf_.data() + buf_.size());
}

FdOutputBuf::~FdOutputBuf() { drain(); }

bool FdOutputBuf::drain() {
  const char* p = pbase();
  std::size_t left = static_cast<std::size_t>(pptr() - pbase());
  while (left > 0 && error_ == 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = errno;
      break;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  setp(buf_.data(), buf_.data() + buf_.size());  // after a failure the rest is dropped: the stream is bad
  return error_ == 0;
}

FdOutputBuf::int_type FdOutputBuf::overflow(int_type c) {
  if (!drain()) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  if (line_buffered_ && traits_type::to_char_type(c) == '\n' && !drain()) return traits_type::eof();
  return c;
}

std::streamsize FdOutputBuf::xsputn(const char* s, std::streamsize n) {
  if (error_ != 0) return 0;
  std::streamsize done = 0;
  while (done < n) {
    if (pptr() == epptr() && !drain()) return done;
    const std::streamsize room = epptr() - pptr();
    const std::streamsize chunk = std::min(room, n - done);
    std::memcpy(pptr(), s + done, static_cast<std::size_t>(chunk));
    pbump(static_cast<int>(chunk));
    done += chunk;
  }
  if (line_buffered_ && std::memchr(s, '\n', static_cast<std::size_t>(n)) != nullptr && !drain()) return 0;
  return n;
}

int FdOutputBuf::sync() { return drain() ? 0 : -1; }

std::optional<std::string> write_failure(std::ostream& out) {
  out.flush();
  if (out) return std::nullopt;
  const auto* fd = dynamic_cast<const FdOutputBuf*>(out.rdbuf());
  return because(fd == nullptr ? 0 : fd->error());
}

void reserve_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    // open() takes the lowest free number: this one, since the lower ones are open by now.
    const int got = ::open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
    if (got >= 0 && got != fd) ::close(got);
  }
}

std::optional<std::string> standard_output_failure() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) return because(errno);
  const int dup = ::dup(STDOUT_FILENO);
  if (dup >= 0 && ::close(dup) != 0 && errno != EINTR) return because(errno);
  return std::nullopt;
}

}  // namespace iosim::cli
