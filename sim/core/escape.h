// Text from the user (a config's name, a file's path, a flag's value) as the program may print it: a
// control character written out (\n, \x1b), so that no name can move the cursor, recolour the
// terminal or split a line of a table or an error. Every message and report that echoes such text
// passes it through escape_controls.
#pragma once

#include <string>
#include <string_view>

namespace iosim {

/// `text` with a newline written as \n and every other control character (below 0x20, and 0x7f) as
/// \xNN; everything else, UTF-8 included, as it is.
[[nodiscard]] std::string escape_controls(std::string_view text);

}  // namespace iosim
