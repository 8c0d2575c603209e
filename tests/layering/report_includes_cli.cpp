// Must not compile with iosim_report's include directories: the renderers see no command line.
#include "src/report/json_writer.h"
#include "src/cli/app.h"
