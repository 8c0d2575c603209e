#include "src/cli/records_lock.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/core/error.h"
#include "src/config/plain_file.h"

namespace iosim::cli {

namespace {

[[noreturn]] void fail(const std::string& path, const char* doing) {
  throw InputError(path + ": cannot " + doing + " (" + std::strerror(errno) + ")");
}

}  // namespace

RecordsLock::RecordsLock(RecordsLock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), dev_(o.dev_), ino_(o.ino_) {}

RecordsLock& RecordsLock::operator=(RecordsLock&& o) noexcept {
  if (this != &o) {
    release();
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    dev_ = o.dev_;
    ino_ = o.ino_;
  }
  return *this;
}

void RecordsLock::release() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
  fd_ = -1;
}

RecordsLock RecordsLock::acquire(const std::string& path, Mode mode, bool create, bool wait) {
  const int op = mode == Mode::exclusive ? LOCK_EX : LOCK_SH;
  const int access = mode == Mode::exclusive ? O_RDWR | O_APPEND : O_RDONLY;
  for (;;) {
    config::require_regular_file(path, "a records file");  // stat(2): a device is never opened
    RecordsLock l;
    // O_NONBLOCK: a FIFO opens at once (and is refused below) instead of waiting for its other end.
    l.fd_ = ::open(path.c_str(), access | O_NONBLOCK | O_CLOEXEC | (create ? O_CREAT : 0), 0666);
    if (l.fd_ < 0) {
      if (errno == ENOENT && !create) return {};
      fail(path, "be opened");
    }
    l.path_ = path;
    struct stat st {};
    if (::fstat(l.fd_, &st) != 0) fail(path, "be read");
    if (!S_ISREG(st.st_mode)) throw InputError(path + ": is not a regular file (a records file must be one)");
    l.dev_ = st.st_dev;
    l.ino_ = st.st_ino;
    while (::flock(l.fd_, op | LOCK_NB) != 0) {
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) fail(path, "be locked");
      if (!wait) {
        throw InputError(path + ": another iosim sweep is writing it (it holds the file's lock); run one at a time "
                         "on a file, or give --wait to wait for it");
      }
      while (::flock(l.fd_, op) != 0) {
        if (errno != EINTR) fail(path, "be locked");
      }
      break;
    }
    // The other run may have replaced the file (a rewrite in order goes through a rename) or removed
    // it while this one waited: the lock must be on the file the path names now.
    if (l.is(path)) return l;
  }
}

bool RecordsLock::is(const std::string& path) const {
  struct stat st {};
  return fd_ >= 0 && ::stat(path.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_;
}

void RecordsLock::append(const std::string& bytes) const {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail(path_, "be written");
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace iosim::cli
