#include "sim/schedule/schedule.h"

namespace iosim {

void Schedule::emit(const Emitter& e) const {
  for (const Kernel* k : kernels()) {
    const Emitter heads = e.repeated(k->grid_heads());
    heads.loop_if_uniform(k->uniform(), k->grid_x(), [&](const Span& x, const Emitter& ex) { k->block(x, ex); });
  }
}

}  // namespace iosim
