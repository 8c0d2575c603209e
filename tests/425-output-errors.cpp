// Output that cannot be written, and files that are not regular files, as a process: one line on
// stderr naming the destination or the file and the problem, exit 2, never exit 0 with the output lost
// and never a hang (every run has a timeout).
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <string>
#include <vector>

#include "support/cli_run.h"
#include "support/temp_file.h"

using namespace iosim::test;

namespace {

const std::string kRun = "-c teaching --n 256 --d 16";

/// One line on stderr that holds `says`, nothing on stdout, exit code 2.
void check_refused(const CliResult& r, const std::string& says) {
  CAPTURE(r.err);
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
  CHECK(r.err.rfind("iosim: error: ", 0) == 0);
  CHECK(r.err.find(says) != std::string::npos);
}

/// A FIFO at `name` in `dir`: opening it blocks until the other end opens, so a test of it must not hang.
std::string fifo(const TempDir& dir, const std::string& name) {
  const std::string path = dir.path() + "/" + name;
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

// A short timeout for the runs that once hung on a FIFO: each takes well under a second.
constexpr int kHangSeconds = 20;

const char* const kSweep = R"(hardware: teaching
problems:
  - {n: 256, d: 16}
schedules: [naive, flash2]
tiles: [default]
)";

}  // namespace

TEST_CASE("standard output that cannot be written: one line naming it, exit 2, for every command") {
  TempDir dir;
  const std::string spec = dir.write("s.yaml", kSweep);
  const std::string records = dir.path() + "/r.jsonl";
  REQUIRE(cli({"sweep", spec, "-o", records, "-q"}).code == 0);
  const std::vector<std::string> commands{
      kRun,
      kRun + " -f json",
      kRun + " -f csv",
      "tiles " + kRun,
      "bounds -c teaching",
      "trace " + kRun,
      "trace " + kRun + " -f svg",
      "sweep --list " + spec,
      "sweep merge " + records + " -o -",
      "--help",
  };
  for (const std::string& c : commands) {
    CAPTURE(c);
    // A full disk: each of these exited 0 with the output lost.
    check_refused(process(c + " >/dev/full"), "cannot write the output to standard output: No space left on device");
  }
  // A closed standard output: the same, with the reason.
  check_refused(process(kRun + " >&-"), "cannot write the output to standard output: Bad file descriptor");
  check_refused(process("tiles " + kRun + " >&-"), "cannot write the output to standard output");
}

TEST_CASE("a file too large to write (a file size limit): standard output and --out say so") {
  TempDir dir;
  // SIGXFSZ ignored, so that the write fails with EFBIG instead of killing the process; 1 KiB at most.
  const std::string limit = "trap '' XFSZ; ulimit -f 1;";
  const std::string out = dir.path() + "/trace.svg";
  check_refused(process_with_env(limit, "trace " + kRun + " -f svg -o " + out),
                out + ": cannot write the file: File too large");
  check_refused(process_with_env(limit, "trace " + kRun + " -f svg >" + dir.path() + "/stdout.svg"),
                "cannot write the output to standard output: File too large");
}

TEST_CASE("outputs that are not regular files are refused at once: a FIFO, a device, a folder") {
  TempDir dir;
  const std::string pipe = fifo(dir, "out.fifo");
  // A FIFO as --out once blocked forever opening it; /dev/zero swallowed the picture with exit code 0.
  check_refused(process("trace " + kRun + " -f svg -o " + pipe, kHangSeconds), pipe + ": a FIFO, not a regular file");
  check_refused(process("trace " + kRun + " -f svg -o /dev/zero"), "/dev/zero: a character device, not a regular file");
  check_refused(process("trace " + kRun + " -f svg -o " + dir.path()), dir.path() + ": a directory, not a regular file");
  // measure checks --json-out before it looks for a GPU.
  check_refused(process("measure " + kRun + " --schedule flash2 --json-out " + pipe, kHangSeconds),
                pipe + ": a FIFO, not a regular file");
  // validate's --out is a folder: a file by that name is refused before it looks for a GPU.
  const std::string file = dir.write("not-a-folder", "x");
  check_refused(process("validate -c teaching --out " + file), "--out " + file + " is not a folder");
  // Standard output itself may be anything: -o /dev/stdout writes to the pipe the test reads.
  const CliResult r = process("trace " + kRun + " -f svg -o /dev/stdout");
  CAPTURE(r.err);
  CHECK(r.code == 0);
  CHECK(r.out.find("<svg") != std::string::npos);
  // The null device discards what is written to it, which is what a user who names it wants.
  const CliResult null = process("trace " + kRun + " -f svg -o /dev/null");
  CAPTURE(null.err);
  CHECK(null.code == 0);
  CHECK(null.err.empty());
}

TEST_CASE("inputs that are not regular files are refused at once: a FIFO, a folder") {
  TempDir dir;
  const std::string pipe = fifo(dir, "in.fifo");
  // calibrate --write read the config to rewrite before anything else: a FIFO there blocked forever.
  check_refused(process("calibrate --write " + pipe, kHangSeconds), pipe + ": a FIFO, not a regular file");
  check_refused(process("calibrate -c teaching --write " + pipe, kHangSeconds), pipe + ": a FIFO, not a regular file");
  // -c and -s were refused as "not found", which hid what the file was.
  check_refused(process("-c " + pipe + " --n 256 --d 16", kHangSeconds), "config '" + pipe + "': a FIFO, not a regular file");
  check_refused(process("-s " + pipe, kHangSeconds), "scenario '" + pipe + "': a FIFO, not a regular file");
  check_refused(process("-c " + dir.path() + " --n 256 --d 16"), "config '" + dir.path() + "': a directory");
  check_refused(process("-c /dev/zero --n 256 --d 16"), "config '/dev/zero': a character device");
}
