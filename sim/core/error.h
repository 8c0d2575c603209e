// Errors the library reports for input it cannot model. The program turns them into one line on
// stderr and exit code 2; library code never exits.
#pragma once

#include <stdexcept>

namespace iosim {

/// The problem, the hardware or a requested tile cannot be modelled as asked.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace iosim
