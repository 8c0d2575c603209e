#include "src/report/trace_html.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/escape.h"
#include "src/report/mask_text.h"
#include "src/report/pages_text.h"
#include "src/report/trace_html_assets.h"  // generated from trace_html/page.{js,css} (src/CMakeLists.txt)
#include "src/report/units_format.h"

namespace iosim::report {

namespace {

/// Text as HTML character data.
std::string escape_html(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

/// JSON inside <script>: '<' only occurs in strings, where \u003c means the same, so no "</script>"
/// or "<!--" can end the element early.
std::string escape_script(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (char c : json) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string render_trace_html(const TraceReport& r) {
  for (const Trace& t : r.traces) {
    if (t.transfers.size() > kHtmlMaxTransfers) {
      throw InputError(fmt::format(
          "trace --format html: {} {} lists {} transfers, above the page's limit of {} (give a smaller --n or "
          "larger tiles)",
          t.schedule, name(t.pass), grouped(t.transfers.size()), grouped(kHtmlMaxTransfers)));
    }
  }
  const Trace& first = r.traces.front();
  const Problem& p = first.problem;
  std::string names;
  for (const Trace& t : r.traces) names += (names.empty() ? "" : ", ") + t.schedule;
  const std::string title = fmt::format("iosim trace · {} · {} {} · n {}, n_kv {}, d {}, {}{}", escape_controls(r.hardware.name), names,
                                        name(first.pass), p.n, p.n_kv, p.d, name(p.dtype), mask_text(p) + pages_text(p));
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"generator\" content=\"iosim trace --format html\">\n";
  out += "<title>" + escape_html(title) + "</title>\n<style>\n";
  out += page_css;
  out += "</style>\n</head>\n<body>\n";
  out += "<h1>" + escape_html(title) + "</h1>\n";
  out += "<p class=\"note\">Every tile moved between HBM and SRAM, in the order the schedule moves it (one head). "
         "The grid is the score matrix S = Q K<sup>T</sup> in tiles: colour and number are the order in which "
         "each S<sub>ij</sub> is computed (faded: not yet), the black frame the latest; blue and orange dashes "
         "are the Q rows and K columns in SRAM. In SRAM: " +
         escape_html(residency_rule()) + ".</p>\n";
  out += "<p class=\"note\">Keys: ← → one step (Shift: ten), PageUp/PageDown ten, Home/End, Space play/pause. "
         "The address may name a step: <code>#step=120</code>.</p>\n";
  out += "<div id=\"controls\"><button id=\"first\" title=\"first step (Home)\">first</button>"
         "<button id=\"prev\" title=\"previous step (←)\">◀</button>"
         "<button id=\"play\" title=\"play / pause (Space)\">play</button>"
         "<button id=\"next\" title=\"next step (→)\">▶</button>"
         "<button id=\"last\" title=\"last step (End)\">last</button>"
         "<input id=\"step\" type=\"range\" min=\"0\" max=\"0\" value=\"0\" aria-label=\"step\">"
         "<span id=\"steplabel\"></span>"
         "<select id=\"speed\" aria-label=\"steps per second\"><option value=\"2\">2/s</option>"
         "<option value=\"8\" selected>8/s</option><option value=\"30\">30/s</option>"
         "<option value=\"120\">120/s</option></select></div>\n";
  out += "<div id=\"compare\"></div>\n<div id=\"panels\"></div>\n";
  out += "<script type=\"application/json\" id=\"trace-data\">\n" + escape_script(render_trace_json(r)) + "</script>\n";
  out += "<script>\n";
  out += page_js;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace iosim::report
