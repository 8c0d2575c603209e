#include "src/config/checked_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/config/yaml_map.h"

namespace iosim::config {

namespace {

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string reason(int err) { return std::strerror(err); }

/// "1048576 bytes (1 MiB)": the limit as given and, when it is a whole number of them, in binary units.
std::string limit_text(std::uint64_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  const char* units[] = {"GiB", "MiB", "KiB"};
  for (int i = 0; i < 3; ++i) {
    const std::uint64_t unit = std::uint64_t{1} << (10 * (3 - i));
    if (bytes >= unit && bytes % unit == 0) return text + " (" + std::to_string(bytes / unit) + " " + units[i] + ")";
  }
  return text;
}

/// Whether `st` is the file standard output already writes to: `-o /dev/stdout` and the like.
bool is_stdout(const struct stat& st) {
  struct stat out {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

/// Whether `st` is the null device: `-o /dev/null` discards the output, as a user who writes it means.
bool is_null_device(const struct stat& st) {
  struct stat null {};
  return S_ISCHR(st.st_mode) && ::stat("/dev/null", &null) == 0 && S_ISCHR(null.st_mode) && null.st_rdev == st.st_rdev;
}

/// An output may be a regular file, standard output itself or the null device.
bool writable_output(const struct stat& st) { return S_ISREG(st.st_mode) || is_stdout(st) || is_null_device(st); }

[[noreturn]] void not_regular_output(const std::string& path, mode_t mode) {
  throw ConfigError(path + ": " + kind_of(mode) +
                    ", not a regular file: output is written to regular files (or to standard output, or /dev/null)");
}

/// Closes the descriptor when the scope ends, unless release()d.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  [[nodiscard]] int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace

std::string file_kind_of_mode(unsigned mode) { return S_ISREG(mode) ? "" : kind_of(static_cast<mode_t>(mode)); }

std::string special_file_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return kind_of(st.st_mode);
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, std::string_view what) {
  const auto refuse = [&](const struct stat& st) {
    if (!S_ISREG(st.st_mode)) {
      throw ConfigError(path + ": " + kind_of(st.st_mode) + ", not a regular file: only regular files are read");
    }
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
      throw ConfigError(path + ": the file is larger than " + limit_text(max_bytes) + ", the most " + std::string(what) +
                        " may be");
    }
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw ConfigError(path + ": cannot read the file: " + reason(errno));
  refuse(st);
  // O_NONBLOCK: should the path have become a FIFO since the stat, opening it does not wait for a writer.
  const Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) throw ConfigError(path + ": cannot read the file: " + reason(errno));
  if (::fstat(fd.get(), &st) != 0) throw ConfigError(path + ": cannot read the file: " + reason(errno));
  refuse(st);
  // One byte past the limit: a file that grew since the stat is caught without reading all of it.
  std::string text(static_cast<std::size_t>(max_bytes) + 1, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw ConfigError(path + ": cannot read the file: " + reason(errno));
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  if (got > max_bytes) {
    throw ConfigError(path + ": the file is larger than " + limit_text(max_bytes) + ", the most " + std::string(what) +
                      " may be");
  }
  return text;
}

void check_output_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return;  // absent: created when written (or refused then, with the reason)
  if (!writable_output(st)) not_regular_output(path, st.st_mode);
}

void write_regular_file(const std::string& path, std::string_view text) {
  check_output_file(path);
  const auto fail = [&](int err) { throw ConfigError(path + ": cannot write the file: " + reason(err)); };
  // O_NONBLOCK: a FIFO swapped in since the check is refused (ENXIO without a reader) instead of waited on.
  Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_CLOEXEC, 0666));
  if (fd.get() < 0) fail(errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(errno);
  if (!writable_output(st)) not_regular_output(path, st.st_mode);
  // Standard output may be a pipe: blocking writes from here on, as any other writer of it has.
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) fail(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(errno);
    done += static_cast<std::size_t>(n);
  }
  // Some file systems (NFS) report a failed write only when the file is closed.
  if (::close(fd.release()) != 0) fail(errno);
}

}  // namespace iosim::config
