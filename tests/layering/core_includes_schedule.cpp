// Must not compile with iosim_core's include directories: sim/core sees no sim/schedule.
#include "sim/core/problem.h"
#include "sim/schedule/schedule.h"
