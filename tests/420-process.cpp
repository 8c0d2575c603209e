// The built binary as a user runs it: exit codes and streams of a real process.
#include <doctest/doctest.h>

#include "support/cli_run.h"

using namespace iosim::test;

TEST_CASE("iosim --config a100.yaml --n 8192 --d 64, as a process") {
  const CliResult r = process("--config a100.yaml --n 8192 --d 64");
  CHECK(r.code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("flash2") != std::string::npos);
}

TEST_CASE("bad input as a process: exit 2 and one line on stderr") {
  const CliResult r = process("--config a100.yaml --n 0 --d 64");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK(lines(r.err) == 1);
}
