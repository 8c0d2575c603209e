// Progress of long computations (GPU-model replays, the tiles search, executions): the library says
// what it is doing and how far it got; the program decides whether and how to show it
// (src/cli/progress_bar.h draws it on a terminal). No observer installed: reporting costs one load.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace iosim {

/// Receives progress reports, possibly from several threads at once (the tiles search).
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  /// `what` names the task ("GPU model, flash2_fwd: blocks"); `done` of `total` units are finished.
  virtual void update(std::string_view what, std::uint64_t done, std::uint64_t total) = 0;
};

namespace detail {
inline std::atomic<ProgressObserver*> g_progress{nullptr};
inline thread_local int t_progress_muted = 0;
}  // namespace detail

/// Installs `o` (nullptr: none) for the whole process; returns the previous one.
inline ProgressObserver* set_progress_observer(ProgressObserver* o) { return detail::g_progress.exchange(o); }

/// Reports to the installed observer, unless this thread is inside a ProgressMute.
inline void report_progress(std::string_view what, std::uint64_t done, std::uint64_t total) {
  if (detail::t_progress_muted != 0) return;
  if (ProgressObserver* o = detail::g_progress.load(std::memory_order_relaxed)) o->update(what, done, total);
}

/// While alive, what this thread's inner work reports is dropped: a task that reports its own
/// progress (the tiles search, over candidates) mutes the predictions it runs.
class ProgressMute {
 public:
  ProgressMute() { ++detail::t_progress_muted; }
  ~ProgressMute() { --detail::t_progress_muted; }
  ProgressMute(const ProgressMute&) = delete;
  ProgressMute& operator=(const ProgressMute&) = delete;
};

}  // namespace iosim
