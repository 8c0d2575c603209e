// Standard output, checked: the program's output goes through FdOutputBuf, which remembers why a write
// failed (a full disk, a closed descriptor), so that run() can say so in one line and exit 2 instead of
// losing the output with exit code 0.
#pragma once

#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace iosim::cli {

/// A stream buffer that writes to a file descriptor with write(2), buffered (by lines on a terminal),
/// and keeps the errno of the first write that failed; after a failure it writes nothing more, so the
/// stream that uses it goes bad.
class FdOutputBuf : public std::streambuf {
 public:
  explicit FdOutputBuf(int fd);
  ~FdOutputBuf() override;
  FdOutputBuf(const FdOutputBuf&) = delete;
  FdOutputBuf& operator=(const FdOutputBuf&) = delete;

  /// errno of the first failed write; 0 while none failed.
  [[nodiscard]] int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  bool drain();  ///< writes what is buffered; false once a write failed

  int fd_;
  bool line_buffered_;
  int error_ = 0;
  std::vector<char> buf_;
};

/// Flushes `out` and says why it failed when it did: "" when the reason is not known (a stream that is
/// not an FdOutputBuf's), else ": No space left on device" and the like; nullopt when all was written.
[[nodiscard]] std::optional<std::string> write_failure(std::ostream& out);

/// Opens /dev/null in place of a closed standard descriptor (0, 1 or 2), for reading where the program
/// would write and for writing where it would read, so that (a) a file the program opens never takes
/// the number and receives its output or its error messages, and (b) a write to a closed standard
/// output still fails (EBADF) and is reported.
void reserve_standard_descriptors();

/// What the program's last check of standard output finds once everything is flushed through `out`:
/// an error from C stdio (a library that printed with printf) or from closing the descriptor (some file
/// systems, NFS among them, report a failed write only then; a duplicate is closed, so standard output
/// stays open). nullopt when standard output is fine; else the reason as write_failure() gives it.
[[nodiscard]] std::optional<std::string> standard_output_failure();

}  // namespace iosim::cli
