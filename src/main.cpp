#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <optional>
#include <string>

#include "src/cli/app.h"
#include "src/cli/checked_output.h"

namespace {

/// std::cout through `buf` while it lives: restored before `buf` goes, since the library flushes
/// std::cout once more at exit.
class CoutThrough {
 public:
  explicit CoutThrough(std::streambuf& buf) : old_(std::cout.rdbuf(&buf)) {}
  ~CoutThrough() { std::cout.rdbuf(old_); }
  CoutThrough(const CoutThrough&) = delete;
  CoutThrough& operator=(const CoutThrough&) = delete;

 private:
  std::streambuf* old_;
};

}  // namespace

int main(int argc, char** argv) {
  iosim::cli::reserve_standard_descriptors();
  // Standard output through a buffer that keeps why a write failed: run() reports it (checked_output.h).
  iosim::cli::FdOutputBuf out_buf(STDOUT_FILENO);
  const CoutThrough through(out_buf);
  int code = iosim::cli::kExitBadInput;
  try {
    code = iosim::cli::run(argc, argv, std::cout, std::cerr);
  } catch (...) {  // run() turns every std::exception into one line; this is for anything else
    std::fputs("iosim: error: an unexpected failure\n", stderr);
    return iosim::cli::kExitBadInput;
  }
  if (code != iosim::cli::kExitBadInput) {  // run() checked std::cout; this is what lies below it
    if (const std::optional<std::string> why = iosim::cli::standard_output_failure()) {
      std::cerr << "iosim: error: cannot write the output to standard output" << *why << '\n';
      return iosim::cli::kExitBadInput;
    }
  }
  return code;
}
