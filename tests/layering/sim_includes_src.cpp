// Must not compile with iosim_sim's include directories: sim/ sees no src/.
#include "sim/run.h"
#include "src/config/hardware_config.h"
