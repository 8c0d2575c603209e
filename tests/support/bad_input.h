// The bad-input contract every command keeps: exit code 2, nothing on stdout, one line on stderr that
// names the problem.
#pragma once

#include <doctest/doctest.h>

#include <initializer_list>
#include <span>
#include <string>

#include "support/cli_run.h"

namespace iosim::test {

struct BadInput {
  std::initializer_list<std::string> args;
  const char* says;  ///< a piece of the one line on stderr
};

inline void check_bad_inputs(std::span<const BadInput> cases) {
  for (const BadInput& c : cases) {
    const CliResult r = cli(c.args);
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(lines(r.err) == 1);
    CHECK(r.err.find(c.says) != std::string::npos);
  }
}

}  // namespace iosim::test
