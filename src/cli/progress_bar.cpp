#include "src/cli/progress_bar.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <iostream>

namespace iosim::cli {

namespace {

std::string duration(double s) {
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600), std::fmod(s / 60, 60));
}

}  // namespace

std::string progress_line(std::string_view what, std::uint64_t done, std::uint64_t total, double elapsed_s) {
  const double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
  std::string line = fmt::format("{}: {} / {} ({:.0f}%) · {}", what, done, total, 100 * frac, duration(elapsed_s));
  if (done > 0 && done < total) line += " · ETA " + duration(elapsed_s * (1 - frac) / frac);
  return line;
}

TerminalProgress::TerminalProgress(std::ostream& err, std::chrono::milliseconds after, std::chrono::milliseconds every)
    : err_(err), after_(after), every_(every) {}

TerminalProgress::~TerminalProgress() {
  const std::lock_guard<std::mutex> lock(mu_);
  clear();
}

void TerminalProgress::clear() {
  if (!drawn_) return;
  err_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

void TerminalProgress::update(std::string_view what, std::uint64_t done, std::uint64_t total) {
  const Clock::time_point now = Clock::now();
  const std::lock_guard<std::mutex> lock(mu_);
  if (what != what_ || done < last_done_) {  // a new task
    what_.assign(what);
    started_ = now;
  }
  last_done_ = done;
  if (done >= total) {  // finished: leave the terminal as it was
    clear();
    return;
  }
  if (now - started_ < after_ || (drawn_ && now - drawn_at_ < every_)) return;
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  err_ << "\r\x1b[K" << progress_line(what, done, total, elapsed) << std::flush;
  drawn_ = true;
  drawn_at_ = now;
}

ProgressScope::ProgressScope(std::ostream& err, bool enabled) {
  if (!enabled) return;
  bar_ = std::make_unique<TerminalProgress>(err);
  previous_ = set_progress_observer(bar_.get());
}

ProgressScope::~ProgressScope() {
  if (bar_ == nullptr) return;
  set_progress_observer(previous_);
}

bool stderr_is_terminal(const std::ostream& err) { return &err == &std::cerr && ::isatty(STDERR_FILENO) == 1; }

}  // namespace iosim::cli
