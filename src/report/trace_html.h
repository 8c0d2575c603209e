// `iosim trace --format html`: one self-contained page that steps through the traces side by side.
//
// The page embeds the trace's JSON (render_trace_json: the same document `--format json` prints) and
// a hand-written script and style sheet (src/report/trace_html/page.js, page.css, compiled in), and
// loads nothing else. A browser steps through it: a slider, play/pause, the arrow keys.
#pragma once

#include <cstdint>
#include <string>

#include "src/report/trace_report.h"

namespace iosim::report {

/// How long a trace the page takes: the browser keeps every step of every panel.
inline constexpr std::uint64_t kHtmlMaxTransfers = 20'000;

/// The page. Throws InputError (one line, naming the limit) when a trace lists more than
/// kHtmlMaxTransfers transfers.
[[nodiscard]] std::string render_trace_html(const TraceReport& r);

}  // namespace iosim::report
