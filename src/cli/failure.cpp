#include "src/cli/failure.h"

#include <fmt/format.h>

#include <new>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/core/escape.h"
#include "sim/core/units.h"
#include "src/cli/app.h"

namespace iosim::cli {

Failure describe_failure(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {kExitBadInput, one_line(x.what())};
  } catch (const OverflowError& x) {
    return {kExitBadInput, one_line(std::string("sizes too large: ") + x.what())};
  } catch (const std::runtime_error& x) {
    // The GPU failed under a command that needs it (a CUDA error): not bad input, not a check.
    return {kExitCheckFailed, one_line(x.what())};
  } catch (const std::bad_alloc&) {
    // The configs' limits should keep every input inside memory.
    return {kExitBadInput, one_line("out of memory: the problem or the hardware is too large to model")};
  } catch (const std::exception& x) {  // a library's error that a check upstream missed
    return {kExitBadInput, one_line(x.what())};
  }
}

std::string one_line(std::string_view what) { return escape_controls(what); }

}  // namespace iosim::cli
