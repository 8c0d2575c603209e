#include "src/report/trace_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "sim/core/error.h"
#include "src/report/mask_text.h"
#include "src/report/pages_text.h"
#include "src/report/trace_report.h"

namespace iosim::report {

namespace {

constexpr double kMatrixSide = 320;     ///< px: the longer side of the score matrix
constexpr double kMinSide = 64;         ///< px: the shorter side, however thin the matrix
constexpr double kLeft = 46;            ///< px: the matrix's left edge in its panel (row labels before it)
constexpr double kTop = 96;             ///< px: its top edge (title, subtitles and column labels above)
constexpr double kStripGap = 30;        ///< px: from the matrix to the first bar
constexpr double kSlot = 38;            ///< px: one bar of the strip with its label
constexpr double kBar = 14;             ///< px: a bar's width
constexpr double kLine = 14;            ///< px: a line of text
constexpr double kCharWidth = 6.0;      ///< px: an average character at font-size 11, for wrapping
constexpr double kMinPanelWidth = 440;  ///< px
constexpr double kPanelGap = 24;        ///< px between panels

std::string esc(std::string_view s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string px(double v) { return fmt::format("{:.1f}", v); }

/// The colour of visit position t ∈ [0, 1]: a perceptual ramp (viridis' ends and three stops between).
std::string ramp(double t) {
  static constexpr std::array<std::array<double, 3>, 5> kStops = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  const double x = std::clamp(t, 0.0, 1.0) * (kStops.size() - 1);
  const auto k = std::min<std::size_t>(static_cast<std::size_t>(x), kStops.size() - 2);
  const double f = x - static_cast<double>(k);
  std::array<int, 3> c{};
  for (std::size_t i = 0; i < 3; ++i)
    c[i] = static_cast<int>(std::lround(kStops[k][i] + f * (kStops[k + 1][i] - kStops[k][i])));
  return fmt::format("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
}

std::string tensor_colour(Tensor t) {
  switch (t) {
    case Tensor::Q: return "#1f77b4";
    case Tensor::K:
    case Tensor::V:
    case Tensor::BT: return "#ff7f0e";
    case Tensor::O:
    case Tensor::l:
    case Tensor::m:
    case Tensor::L:
    case Tensor::D: return "#2ca02c";
    case Tensor::Opart:
    case Tensor::Lpart: return "#8c564b";
    case Tensor::S:
    case Tensor::P:
    case Tensor::dS:
    case Tensor::dP: return "#7f7f7f";
    default: return "#9467bd";  // dO and the gradients
  }
}

std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines{""};
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string word = text.substr(at, end - at);
    if (!lines.back().empty() && lines.back().size() + 1 + word.size() > width) lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + word;
    at = end + 1;
  }
  return lines;
}

std::string text(double x, double y, std::string_view s, std::string_view attrs = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>\n", px(x), px(y), attrs.empty() ? "" : " ", attrs, esc(s));
}

/// The score matrix on the page: its size, px per element along each axis, and its tiles.
struct Geometry {
  double w = 0, h = 0, sx = 0, sy = 0;
  Tiling rows, cols;
};

Geometry geometry(const Trace& t) {
  const auto n = static_cast<double>(t.problem.n), nkv = static_cast<double>(t.problem.n_kv);
  Geometry g;
  g.w = std::max(kMinSide, kMatrixSide * nkv / std::max(n, nkv));
  g.h = std::max(kMinSide, kMatrixSide * n / std::max(n, nkv));
  g.sx = g.w / nkv;
  g.sy = g.h / n;
  g.rows = Tiling{t.problem.n, std::max<std::uint64_t>(t.tiles.br, 1)};
  g.cols = Tiling{t.problem.n_kv, std::max<std::uint64_t>(t.tiles.bc, 1)};
  return g;
}

/// Per tile of the grid, the first visit that covers it, or -1.
std::vector<std::int64_t> visit_of_tiles(const Trace& t, const Geometry& g) {
  std::vector<std::int64_t> out(g.rows.count() * g.cols.count(), -1);
  for (const ScoreVisit& v : t.visits) {
    if (v.rows == 0 || v.cols == 0) continue;
    const std::uint64_t i1 = std::min(g.rows.count() - 1, (v.row + v.rows - 1) / g.rows.block);
    const std::uint64_t j1 = std::min(g.cols.count() - 1, (v.col + v.cols - 1) / g.cols.block);
    for (std::uint64_t i = v.row / g.rows.block; i <= i1; ++i) {
      for (std::uint64_t j = v.col / g.cols.block; j <= j1; ++j) {
        std::int64_t& cell = out[i * g.cols.count() + j];
        if (cell < 0) cell = static_cast<std::int64_t>(v.visit);
      }
    }
  }
  return out;
}

/// A tile of the grid on the page, and the visit that covers it (-1 for none) at position f of the ramp.
struct Cell {
  double x, y, w, h;
  std::int64_t visit;
  double f;
};

/// Calls fn(i, j, Cell) for every tile of the grid, row by row.
template <class F>
void for_cells(const Trace& t, const Geometry& g, F&& fn) {
  const std::vector<std::int64_t> visit = visit_of_tiles(t, g);
  const double last = static_cast<double>(std::max<std::size_t>(t.visits.size(), 2) - 1);
  for (std::uint64_t i = 0; i < g.rows.count(); ++i) {
    for (std::uint64_t j = 0; j < g.cols.count(); ++j) {
      const std::int64_t v = visit[i * g.cols.count() + j];
      fn(i, j,
         Cell{kLeft + static_cast<double>(g.cols.begin(j)) * g.sx, kTop + static_cast<double>(g.rows.begin(i)) * g.sy,
              static_cast<double>(g.cols.size(j)) * g.sx, static_cast<double>(g.rows.size(i)) * g.sy, v,
              static_cast<double>(v) / last});
    }
  }
}

/// The visit numbers, where a tile is large enough to hold one.
void draw_numbers(std::string& out, const Trace& t, const Geometry& g) {
  for_cells(t, g, [&](std::uint64_t, std::uint64_t, const Cell& c) {
    const std::string label = c.visit < 0 ? "" : std::to_string(c.visit);
    if (label.empty() || c.w < 7.0 * static_cast<double>(label.size()) + 4 || c.h < 12) return;
    out += text(c.x + c.w / 2, c.y + c.h / 2 + 4, label,
                fmt::format("text-anchor=\"middle\" font-size=\"10\" fill=\"{}\"", c.f < 0.55 ? "#ffffff" : "#000000"));
  });
}

void draw_tiles(std::string& out, const Trace& t, const Geometry& g) {
  for_cells(t, g, [&](std::uint64_t i, std::uint64_t j, const Cell& c) {
    out += fmt::format(
        "<rect class=\"tile\" data-i=\"{}\" data-j=\"{}\" data-visit=\"{}\" x=\"{}\" y=\"{}\" "
        "width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ffffff\" stroke-width=\"0.5\"/>\n",
        i, j, c.visit < 0 ? "none" : std::to_string(c.visit), px(c.x), px(c.y), px(c.w), px(c.h),
        c.visit < 0 ? "#e6e6e6" : ramp(c.f));
  });
  for (std::uint64_t i = 0; i < g.rows.count(); ++i) {
    const double h = static_cast<double>(g.rows.size(i)) * g.sy;
    if (h >= 10) {
      out += text(kLeft - 4,
                  kTop + (static_cast<double>(g.rows.begin(i)) + static_cast<double>(g.rows.size(i)) / 2) * g.sy + 4,
                  std::to_string(i), "text-anchor=\"end\" font-size=\"10\"");
    }
  }
  for (std::uint64_t j = 0; j < g.cols.count(); ++j) {
    const double w = static_cast<double>(g.cols.size(j)) * g.sx;
    if (w >= 14) {
      out += text(kLeft + (static_cast<double>(g.cols.begin(j)) + static_cast<double>(g.cols.size(j)) / 2) * g.sx,
                  kTop - 5, std::to_string(j), "text-anchor=\"middle\" font-size=\"10\"");
    }
  }
  out += text(kLeft, kTop - 20, "K/V tiles j →", "font-size=\"10\" fill=\"#555555\"");
  out += text(kLeft - 30, kTop + g.h / 2, "Q tiles i ↓",
              fmt::format("font-size=\"10\" fill=\"#555555\" text-anchor=\"middle\" transform=\"rotate(-90 {} {})\"",
                          px(kLeft - 30), px(kTop + g.h / 2)));
}

/// The polyline through the visits' centres, in order, with an arrow at the end.
void draw_order(std::string& out, const Trace& t, const Geometry& g) {
  if (t.visits.size() < 2) return;
  const auto centre = [&](const ScoreVisit& v) {
    return std::pair{kLeft + (static_cast<double>(v.col) + static_cast<double>(v.cols) / 2) * g.sx,
                     kTop + (static_cast<double>(v.row) + static_cast<double>(v.rows) / 2) * g.sy};
  };
  std::string points;
  for (const ScoreVisit& v : t.visits) {
    const auto [x, y] = centre(v);
    points += fmt::format("{}{},{}", points.empty() ? "" : " ", px(x), px(y));
  }
  const auto [x0, y0] = centre(t.visits.front());
  out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\"/>\n",
                     px(x0), px(y0));
  out += fmt::format(
      "<polyline class=\"order\" points=\"{}\" fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" "
      "stroke-opacity=\"0.85\" marker-end=\"url(#arrow)\"/>\n",
      points);
}

/// The Q tile's rows and the K tile's columns held at the step shown, and the tile being computed.
void draw_held(std::string& out, const Trace& t, const Geometry& g, const std::vector<HeldTile>& held,
               std::optional<std::size_t> visit) {
  for (const HeldTile& h : held) {
    const auto a = static_cast<double>(h.tile.row), n = static_cast<double>(h.tile.rows);
    if (h.tile.tensor == Tensor::Q) {
      out += fmt::format(
          "<rect class=\"held-rows\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
          "stroke=\"#1f77b4\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\n",
          px(kLeft - 2), px(kTop + a * g.sy), px(g.w + 4), px(n * g.sy));
    } else if (h.tile.tensor == Tensor::K) {
      out += fmt::format(
          "<rect class=\"held-cols\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
          "stroke=\"#ff7f0e\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\n",
          px(kLeft + a * g.sx), px(kTop - 2), px(n * g.sx), px(g.h + 4));
    }
  }
  if (!visit) return;
  const ScoreVisit& v = t.visits[*visit];
  out += fmt::format(
      "<rect class=\"current\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" "
      "stroke=\"#000000\" stroke-width=\"3\"/>\n",
      px(kLeft + static_cast<double>(v.col) * g.sx), px(kTop + static_cast<double>(v.row) * g.sy),
      px(static_cast<double>(v.cols) * g.sx), px(static_cast<double>(v.rows) * g.sy));
}

/// The tensors the trace moves, in tensor order, with the rows each spans.
std::vector<std::pair<Tensor, std::uint64_t>> tensors_of(const Trace& t) {
  std::array<std::uint64_t, kTensorCount> extent{};
  for (const TraceTransfer& x : t.transfers) {
    std::uint64_t& e = extent[index(x.tile.tensor)];
    e = std::max(e, x.tile.row + x.tile.rows);
  }
  std::vector<std::pair<Tensor, std::uint64_t>> out;
  for (Tensor x : kAllTensors) {
    if (extent[index(x)] > 0) out.emplace_back(x, extent[index(x)]);
  }
  return out;
}

/// One bar per tensor, its rows top to bottom; the rows held filled (pale when written back).
void draw_strip(std::string& out, const Trace& t, const Geometry& g, const std::vector<HeldTile>& held, double x1) {
  const auto tensors = tensors_of(t);
  for (std::size_t k = 0; k < tensors.size(); ++k) {
    const auto [tensor, extent] = tensors[k];
    const double x = x1 + static_cast<double>(k) * kSlot;
    out += text(x + kBar / 2, kTop - 5, name(tensor), "text-anchor=\"middle\" font-size=\"10\"");
    out += fmt::format(
        "<rect class=\"bar\" data-tensor=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "fill=\"#f2f2f2\" stroke=\"#bbbbbb\"/>\n",
        name(tensor), px(x), px(kTop), px(kBar), px(g.h));
    for (const HeldTile& h : held) {
      if (h.tile.tensor != tensor) continue;
      const double scale = g.h / static_cast<double>(extent);
      out += fmt::format(
          "<rect class=\"held\" data-tensor=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
          "fill=\"{}\" fill-opacity=\"{}\" stroke=\"{}\"{}/>\n",
          name(tensor), px(x), px(kTop + static_cast<double>(h.tile.row) * scale), px(kBar),
          px(std::max(1.5, static_cast<double>(h.tile.rows) * scale)), tensor_colour(tensor),
          h.written_back ? "0.35" : "1", tensor_colour(tensor), h.written_back ? " stroke-dasharray=\"2 2\"" : "");
      out += text(x + kBar / 2, kTop + g.h + 12, tile_label(t, h.tile).substr(name(tensor).size() + 1),
                  "text-anchor=\"middle\" font-size=\"9\"");
    }
    if (t.problem.paged() && (tensor == Tensor::K || tensor == Tensor::V)) {
      // Paged K/V: a tick across the bar (and the tile held) at each page boundary.
      const double scale = g.h / static_cast<double>(extent);
      for (std::uint64_t r = t.problem.page_size; r < extent; r += t.problem.page_size) {
        const double y = kTop + static_cast<double>(r) * scale;
        out += fmt::format("<line class=\"page\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888888\"/>\n",
                           px(x), px(y), px(x + kBar), px(y));
      }
    }
  }
  if (!tensors.empty()) out += text(x1, kTop - 20, "in SRAM", "font-size=\"10\" fill=\"#555555\"");
}

std::string order_caption(const Trace& t) {
  const VisitOrder o = visit_order(t);
  if (t.visits.size() < 2) return "one score tile";
  if (o.by_columns && o.by_rows) return "order: one row or column of tiles";
  if (o.by_columns) return "order: column by column (K/V tile j outer, Q tile i inner)";
  if (o.by_rows) return "order: row by row (Q tile i outer, K/V tile j inner)";
  return "order: neither by rows nor by columns";
}

/// What the panel shows at step `at`, under the matrix; returns the y below the last line.
double draw_notes(std::string& out, const Trace& t, const Geometry& g, std::uint64_t at,
                  const std::vector<HeldTile>& held, std::optional<std::size_t> visit, double width) {
  double y = kTop + g.h + 22;
  if (!t.visits.empty()) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"8\" fill=\"url(#ramp)\"/>\n", px(kLeft), px(y),
                       px(g.w));
    out += text(kLeft, y + 19, "visit 0", "font-size=\"10\"");
    out += text(kLeft + g.w, y + 19, "visit " + std::to_string(t.visits.size() - 1),
                "font-size=\"10\" text-anchor=\"end\"");
    y += 19 + kLine + 4;
  }
  const TraceTransfer& x = t.transfers[at];
  std::vector<std::string> lines;
  lines.push_back(fmt::format("after step {} of 0–{}: {} {}, rows [{}, {})", at, t.transfers.size() - 1,
                              direction_name(x.dir), tile_label(t, x.tile), x.tile.row, x.tile.row + x.tile.rows));
  if (visit) {
    const ScoreVisit& v = t.visits[*visit];
    lines.push_back(fmt::format("framed: S_{},{} = Q_{} K_{}ᵀ, visit {} of 0–{}", v.index.i, v.index.j, v.index.i,
                                v.index.j, v.visit, t.visits.size() - 1));
  } else {
    lines.emplace_back("no score tile: Q and K are not both in SRAM");
  }
  std::string names = "in SRAM:";
  bool written_back = false;
  for (const HeldTile& h : held) {
    names += fmt::format(" {}{}", tile_label(t, h.tile), h.written_back ? "*" : "");
    written_back = written_back || h.written_back;
  }
  if (written_back) names += " (* written back)";
  for (const std::string& l : wrap(names, static_cast<std::size_t>((width - kLeft) / kCharWidth))) lines.push_back(l);
  for (const std::string& l : lines) {
    out += text(kLeft, y, l, "font-size=\"11\"");
    y += kLine;
  }
  return y;
}

struct Panel {
  std::string svg;
  double width = 0;
  double height = 0;
};

Panel panel(const Trace& t, std::uint64_t at) {
  const Geometry g = geometry(t);
  const double x1 = kLeft + g.w + kStripGap;
  Panel p;
  p.width = std::max(kMinPanelWidth, x1 + static_cast<double>(tensors_of(t).size()) * kSlot + 8);
  const std::vector<HeldTile> held = resident_after(t, at);
  const std::optional<std::size_t> visit = visit_at(t, at);
  const Problem& pr = t.problem;
  std::string& out = p.svg;
  out += text(kLeft - 30, 24, t.schedule + " " + std::string(name(t.pass)), "font-size=\"16\" font-weight=\"bold\"");
  out += text(kLeft - 30, 42,
              fmt::format("n = {}, n_kv = {}, d = {}{} · B_r = {}, B_c = {} · T_r × T_c = {} × {}", pr.n, pr.n_kv, pr.d,
                          mask_text(pr) + pages_text(pr), t.tiles.br, t.tiles.bc, g.rows.count(), g.cols.count()));
  out += text(kLeft - 30, 58, order_caption(t));
  draw_tiles(out, t, g);
  draw_order(out, t, g);
  draw_numbers(out, t, g);
  draw_held(out, t, g, held, visit);
  draw_strip(out, t, g, held, x1);
  p.height = draw_notes(out, t, g, at, held, visit, p.width) + 6;
  return p;
}

std::vector<std::string> legend_lines(double width) {
  const std::string s =
      "Cells: score tiles S_ij = Q_i K_jᵀ, coloured and numbered by the order they are computed (from 0; grey: "
      "never, masked); the red line follows that order. Dashed: the Q tile's rows (blue) and the K tile's columns "
      "(orange) in SRAM at the step shown; black frame: the tile being computed. Bars: each tensor's rows, the "
      "part in SRAM filled (pale: written back to HBM, its slot free at the next load).";
  return wrap(s, static_cast<std::size_t>((width - 2 * kPanelGap) / kCharWidth));
}

}  // namespace

std::string render_trace_svg(const std::vector<Trace>& traces, std::optional<std::uint64_t> at) {
  std::vector<Panel> panels;
  for (const Trace& t : traces) {
    if (t.transfers.empty()) throw InputError("trace: " + t.schedule + " moves no tiles: nothing to draw");
    const std::uint64_t last = t.transfers.size() - 1;
    if (at && *at > last) {
      throw InputError("--at " + std::to_string(*at) + " is past the last step of " + t.schedule + " (" +
                       std::to_string(last) + ")");
    }
    panels.push_back(panel(t, at.value_or(last / 2)));
  }
  double width = kPanelGap, height = 0;
  for (const Panel& p : panels) {
    width += p.width + kPanelGap;
    height = std::max(height, p.height);
  }
  const std::vector<std::string> notes = legend_lines(width);
  const double total_height = height + 12 + static_cast<double>(notes.size()) * kLine;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"Helvetica, Arial, sans-serif\" font-size=\"11\">\n",
      px(width), px(total_height));
  out += "<title>iosim trace: the order in which schedules compute the tiles of the score matrix</title>\n";
  out +=
      "<defs>\n<marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
      "orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#d62728\"/></marker>\n";
  out += "<linearGradient id=\"ramp\">";
  for (int k = 0; k <= 4; ++k) out += fmt::format("<stop offset=\"{}\" stop-color=\"{}\"/>", k / 4.0, ramp(k / 4.0));
  out += "</linearGradient>\n</defs>\n";
  out += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n", px(width), px(total_height));
  double x = kPanelGap;
  for (std::size_t k = 0; k < panels.size(); ++k) {
    out += fmt::format("<g class=\"panel\" data-schedule=\"{}\" transform=\"translate({} 0)\">\n",
                       esc(traces[k].schedule), px(x));
    out += panels[k].svg + "</g>\n";
    x += panels[k].width + kPanelGap;
  }
  double y = height + 12;
  for (const std::string& l : notes) {
    out += text(kPanelGap, y, l, "font-size=\"10\" fill=\"#444444\"");
    y += kLine;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace iosim::report
