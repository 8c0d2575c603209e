// Compiles with iosim_report's include directories: what a layer may include is there (the control
// that shows the failures above are the layering's, not a broken command).
#include "sim/core/problem.h"
#include "sim/run.h"
#include "src/report/json_writer.h"
int main() { return 0; }
