// The exact replay's per-unit costs that sim/work_estimate.h prices (WorkCosts::ns_per_event,
// ns_per_record_byte): one cold exact prediction per case, CPU time of this process, against the
// counts replay_work() gives. Usage: replay_costs CONFIG SCHEDULE N D HEADS [CONFIG SCHEDULE N D HEADS …]
// Prints, per case, the counts, the seconds, and the seconds left after the sectors at the fitted
// per-sector cost, per event and per record byte.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/lab_args.h"
#include "sim/gpu/gpu_model.h"
#include "sim/schedule/registry.h"
#include "sim/work_estimate.h"
#include "src/config/hardware_config.h"

int main(int argc, char** argv) {
  using namespace iosim;
  std::printf("%-28s %-8s %7s %4s %5s %12s %12s %12s %8s %10s %10s\n", "config", "schedule", "n", "d", "heads",
              "sectors", "events", "rec_bytes", "cpu_s", "ns/event", "ns/recbyte");
  for (int i = 1; i + 4 < argc; i += 5) {
    Problem p;
    p.n = p.n_kv = std::strtoull(argv[i + 2], nullptr, 10);
    p.d = std::strtoull(argv[i + 3], nullptr, 10);
    p.heads = p.kv_heads = std::strtoull(argv[i + 4], nullptr, 10);
    const ScheduleContext ctx{p, config::load_hardware(argv[i]), {}, 0, {}};
    const auto s = make_schedule(argv[i + 1], Pass::fwd, ctx);
    const ReplayWork w = replay_work(*s, ctx);
    GpuModelOptions o;
    o.l2 = L2Mode::exact;
    const double t0 = lab::cpu_seconds();
    const Prediction pr = predict(*s, ctx, o);
    const double t = lab::cpu_seconds() - t0;
    const WorkCosts c;
    const double ns = schedule_entry(s->name()).caps.streaming ? c.ns_per_sector_streaming : c.ns_per_sector_tiled;
    const double left = t * 1e9 - w.sectors * ns;
    std::printf("%-28s %-8s %7llu %4llu %5llu %12.0f %12.0f %12.0f %8.3f %10.1f %10.3f  (%llu read sectors)\n",
                std::string(argv[i]).substr(std::string(argv[i]).rfind('/') + 1).c_str(), argv[i + 1],
                static_cast<unsigned long long>(p.n), static_cast<unsigned long long>(p.d),
                static_cast<unsigned long long>(p.heads), w.sectors, w.events, w.record_bytes, t, left / w.events,
                (left - w.events * c.ns_per_event) / std::max(1.0, w.record_bytes),
                static_cast<unsigned long long>(pr.l2_read_sectors()));
  }
}
