// The terminal's view of sim/core/progress.h: one line on stderr, redrawn in place, with what is
// running, how far it got and when it should end. Installed by app.cpp only when stderr is a
// terminal and --quiet is not given, so pipes, files and tests never see it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

#include "sim/core/progress.h"

namespace iosim::cli {

class TerminalProgress final : public ProgressObserver {
 public:
  /// Draws to `err` once a task has run for `after` (shorter tasks never show), at most every `every`.
  explicit TerminalProgress(std::ostream& err, std::chrono::milliseconds after = std::chrono::milliseconds(500),
                            std::chrono::milliseconds every = std::chrono::milliseconds(100));
  ~TerminalProgress() override;  ///< clears the line
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  void update(std::string_view what, std::uint64_t done, std::uint64_t total) override;

 private:
  using Clock = std::chrono::steady_clock;
  void clear();

  std::mutex mu_;
  std::ostream& err_;
  std::chrono::milliseconds after_, every_;
  std::string what_;
  std::uint64_t last_done_ = 0;
  Clock::time_point started_{}, drawn_at_{};
  bool drawn_ = false;
};

/// The line drawn for a task: "what: done / total (pct%) · 12 s · ETA 40 s" (no newline).
[[nodiscard]] std::string progress_line(std::string_view what, std::uint64_t done, std::uint64_t total,
                                        double elapsed_s);

/// Installs a TerminalProgress for the life of this object when `enabled`, nothing otherwise.
class ProgressScope {
 public:
  ProgressScope(std::ostream& err, bool enabled);
  ~ProgressScope();
  ProgressScope(const ProgressScope&) = delete;
  ProgressScope& operator=(const ProgressScope&) = delete;

 private:
  std::unique_ptr<TerminalProgress> bar_;
  ProgressObserver* previous_ = nullptr;
};

/// Whether `err` is the process's standard error and that is a terminal.
[[nodiscard]] bool stderr_is_terminal(const std::ostream& err);

}  // namespace iosim::cli
