// Fuzz target: a sweep file through `iosim sweep FILE --list`, in-process: the reader, the bound on the
// number of points (checked before any is built), the expansion and every point's check. Promises:
// exit 0 or 2; on 2 one line on stderr and nothing on stdout; on 0 one line per point, their keys in
// strictly increasing canonical order, no more of them than point_count_bound counts.
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/support.h"
#include "sim/core/error.h"
#include "src/cli/app.h"
#include "src/cli/sweep_count.h"
#include "src/cli/sweep_records.h"
#include "src/config/sweep_spec.h"
#include "src/config/yaml_map.h"

namespace {

std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n + (!s.empty() && s.back() != '\n');
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = iosim::fuzz::as_file(data, size, "-sweep.yaml");
  // Small limits: at most about 150 points (1.2 ms each by the estimate), so that one input stays
  // within seconds under the sanitizers.
  const char* argv[] = {"iosim", "sweep", path.c_str(), "--list", "--max-memory", "10MiB", "--max-time", "0.2s"};
  std::ostringstream out, err;
  const int code = iosim::cli::run(static_cast<int>(std::size(argv)), argv, out, err);
  if (code != 0 && code != 2) iosim::fuzz::finding("exit code " + std::to_string(code));
  if (code == 2) {
    if (!out.str().empty()) iosim::fuzz::finding("exit 2 with output on stdout");
    if (count_lines(err.str()) != 1) {
      iosim::fuzz::finding("exit 2 with " + std::to_string(count_lines(err.str())) + " lines on stderr: " +
                           iosim::config::printable(err.str()));
    }
    return 0;
  }
  // Listed: "i<TAB>key" lines, numbered from 0, keys in strictly increasing order.
  std::istringstream in(out.str());
  std::string prev;
  std::uint64_t n = 0;
  for (std::string line; std::getline(in, line); ++n) {
    const std::size_t tab = line.find('\t');
    if (tab == std::string::npos || line.substr(0, tab) != std::to_string(n)) {
      iosim::fuzz::finding("a listed line is not 'index<TAB>key': " + iosim::config::printable(line));
    }
    const std::string key = line.substr(tab + 1);
    if (n > 0 && !iosim::cli::key_less(prev, key)) iosim::fuzz::finding("keys out of order or repeated: " + key);
    prev = key;
  }
  try {
    const std::uint64_t bound = iosim::cli::point_count_bound(iosim::config::load_sweep_spec(path));
    if (n > bound) iosim::fuzz::finding(std::to_string(n) + " points listed, over the bound " + std::to_string(bound));
  } catch (const iosim::InputError& e) {
    iosim::fuzz::finding(std::string("listed, but the bound refuses: ") + e.what());
  }
  return 0;
}
