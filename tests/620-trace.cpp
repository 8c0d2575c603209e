// iosim trace: every transfer listed in order, totals equal to the ledger, flash1's column order against
// flash2's row order, residency, limits, and the command's text, JSON and SVG.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/trace/trace_sink.h"
#include "support/bad_input.h"
#include "support/cli_run.h"
#include "support/fixtures.h"

using namespace iosim;
using namespace iosim::test;

namespace {

/// `iosim args...` in this process (iosim::cli the namespace hides iosim::test::cli here).
CliResult run_cli(std::initializer_list<std::string> args) { return iosim::test::cli(args); }

Trace trace(const std::string& name, const ScheduleContext& ctx, Pass pass = Pass::fwd) {
  return trace_schedule(*make_schedule(name, pass, ctx), ctx);
}

std::vector<TileIndex> visit_indices(const Trace& t) {
  std::vector<TileIndex> out;
  for (const ScoreVisit& v : t.visits) out.push_back(v.index);
  return out;
}

std::vector<std::string> labels(const Trace& t, const std::vector<HeldTile>& held) {
  std::vector<std::string> out;
  for (const HeldTile& h : held) out.push_back(tile_label(t, h.tile) + (h.written_back ? "*" : ""));
  return out;
}

/// Whether every tag of `xml` is closed in order (declarations and comments skipped); counts elements.
bool balanced(const std::string& xml, std::size_t& elements) {
  std::vector<std::string> open;
  elements = 0;
  for (std::size_t at = xml.find('<'); at != std::string::npos; at = xml.find('<', at + 1)) {
    if (xml.compare(at, 2, "<?") == 0 || xml.compare(at, 4, "<!--") == 0) continue;
    const std::size_t end = xml.find('>', at);
    if (end == std::string::npos) return false;
    const std::string tag = xml.substr(at + 1, end - at - 1);
    if (tag.empty()) return false;
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
      continue;
    }
    ++elements;
    const std::string name = tag.substr(0, tag.find_first_of(" \n/"));
    if (tag.back() != '/') open.push_back(name);
  }
  return open.empty();
}

/// The tile rects of one panel of the SVG: (i, j) → visit, in document order.
struct SvgTile {
  std::uint64_t i, j;
  std::string visit;
};
std::vector<SvgTile> svg_tiles(const std::string& panel) {
  // Attributes in the order the renderer writes them: class="tile" data-i="I" data-j="J" data-visit="V".
  const auto attribute = [&](std::size_t& at, const std::string& name) {
    const std::string key = name + "=\"";
    at = panel.find(key, at);
    REQUIRE(at != std::string::npos);
    at += key.size();
    const std::size_t end = panel.find('"', at);
    std::string value = panel.substr(at, end - at);
    at = end;
    return value;
  };
  std::vector<SvgTile> out;
  for (std::size_t at = panel.find("class=\"tile\""); at != std::string::npos;
       at = panel.find("class=\"tile\"", at)) {
    const std::uint64_t i = std::stoull(attribute(at, "data-i"));
    const std::uint64_t j = std::stoull(attribute(at, "data-j"));
    out.push_back({i, j, attribute(at, "data-visit")});
  }
  return out;
}

std::string panel_of(const std::string& svg, const std::string& schedule) {
  const std::size_t a = svg.find("data-schedule=\"" + schedule + "\"");
  if (a == std::string::npos) return {};
  return svg.substr(a, svg.find("</g>", a) - a);
}

}  // namespace

/// `p` with its K/V in pages of `size` tokens, shuffled by `seed`.
Problem paged(Problem p, std::uint64_t size, std::uint64_t seed) {
  p.page_size = size;
  p.page_order = PageOrder::random;
  p.page_seed = seed;
  return p;
}

TEST_CASE("a trace's totals equal the ledger's HBM counts, for every schedule and pass") {
  Problem causal = problem(200, 16);
  causal.causal = true;
  const Problem decode = problem(1, 32, 1, 1, 300);
  Problem window = problem(256, 16);
  window.causal = true;
  window.window = 72;
  // Paged K/V: the block table's reads are counted and traced like any tensor's (a page smaller than
  // B_c, several pages a tile; and one larger, several tiles a page).
  const Problem paged_problems[] = {paged(problem(256, 16), 8, 3), paged(window, 16, 5), paged(decode, 8, 11),
                                    paged(problem(1, 32, 1, 1, 512), 256, 2)};
  std::vector<Problem> problems{problem(256, 16), problem(200, 24, 1, 1, 136), causal, decode, window};
  problems.insert(problems.end(), std::begin(paged_problems), std::end(paged_problems));
  std::uint64_t paged_traces = 0;
  for (const Problem& p : problems) {
    for (const ScheduleInfo& s : schedule_catalog()) {
      for (Pass pass : {Pass::fwd, Pass::bwd}) {
        if (!has_pass(s.name, pass) || !runs_anywhere(s.name) || !as_taken_by(s.name, p)) continue;
        if (p.paged() && (!s.caps.paged_fwd || pass != Pass::fwd)) continue;  // refused (problem_flags)
        const ScheduleContext ctx = context(p, with_sram(16384));
        CAPTURE(s.name);
        CAPTURE(name(pass));
        CAPTURE(p.n);
        const auto sched = make_schedule(s.name, pass, ctx);
        const ScheduleRun run = run_schedule(*sched, ctx);
        const Trace t = trace_schedule(*sched, ctx);
        CHECK(t.hbm == run.ledger.total(Level::hbm));
        for (Tensor x : kAllTensors) CHECK(t.tensors[index(x)] == run.ledger.at(Level::hbm, x));
        CHECK(t.transfers.size() == run.ledger.transfers());
        CHECK(t.loads + t.stores + t.reduces == t.transfers.size());
        CHECK(t.compute.matmul == run.ledger.matmul_flops());
        CHECK(t.compute.vector == run.ledger.vector_flops());
        CHECK(t.compute.special == run.ledger.special_flops());
        for (std::size_t k = 0; k < t.transfers.size(); ++k) REQUIRE(t.transfers[k].step == k);
        if (p.paged()) {
          ++paged_traces;
          CHECK(t.tensors[index(Tensor::BT)].read_bytes.value > 0);
        }
      }
    }
  }
  CHECK(paged_traces >= 8);  // flash2 and the two flashdecodes on each paged problem they take
}

TEST_CASE("paged K/V: each K/V load names its pages, each block-table read the entries of the next tile's") {
  Problem p = problem(256, 16);
  p.causal = true;
  p.window = 72;
  const Trace t = trace("flash2", context(paged(p, 16, 5), with_sram(16384), tiles(32, 32)));
  REQUIRE(t.block_table.pages() == 16);
  std::vector<bool> seen(16, false);
  bool shuffled = false;
  for (std::uint64_t k = 0; k < 16; ++k) {
    const std::uint64_t slot = t.block_table.slot(0, k);
    REQUIRE(slot < 16);
    CHECK_FALSE(seen[slot]);
    seen[slot] = true;
    shuffled = shuffled || slot != k;
  }
  CHECK(shuffled);
  std::vector<PageRead> table_read;  // the entries of the latest block-table read
  std::uint64_t kv_loads = 0;
  for (const TraceTransfer& x : t.transfers) {
    const std::vector<PageRead> pages = pages_read(t, x.tile);
    if (x.tile.tensor == Tensor::BT) {
      REQUIRE(pages.size() == 2);  // B_c = 32 over pages of 16
      CHECK(x.index.i == pages.front().page / 2);
      table_read = pages;
    } else if (x.tile.tensor == Tensor::K || x.tile.tensor == Tensor::V) {
      ++kv_loads;
      REQUIRE(pages.size() == 2);
      CHECK(pages == table_read);  // read through the entries just loaded
      for (const PageRead& r : pages) {
        CHECK(r.page == x.tile.row / 16 + (r.page - pages.front().page));
        CHECK(r.slot == t.block_table.slot(0, r.page));
      }
    } else {
      CHECK(pages.empty());
    }
  }
  CHECK(kv_loads > 0);
  // The window's band: every visit within it, the edge tiles masked, the whole ones not.
  const Mask mask(t.problem);
  std::uint64_t masked = 0;
  for (const ScoreVisit& v : t.visits) {
    bool all = true, any = false;
    for (std::uint64_t r = v.row; r < v.row + v.rows; ++r) {
      for (std::uint64_t c = v.col; c < v.col + v.cols; ++c) {
        all = all && mask.sees(r, c);
        any = any || mask.sees(r, c);
      }
    }
    CHECK(any);
    CHECK(v.masked == !all);
    masked += v.masked ? 1U : 0U;
  }
  CHECK(masked > 0);
  CHECK(masked < t.visits.size());
}

TEST_CASE("flash1 computes the score tiles down each column, flash2 along each row") {
  const ScheduleContext ctx = context(problem(128, 16), with_sram(16384), tiles(32, 32));
  const Trace f1 = trace("flash1", ctx);
  const Trace f2 = trace("flash2", ctx);
  std::vector<TileIndex> by_columns, by_rows;
  for (std::uint64_t a = 0; a < 4; ++a) {
    for (std::uint64_t b = 0; b < 4; ++b) {
      by_columns.push_back({b, a});
      by_rows.push_back({a, b});
    }
  }
  CHECK(visit_indices(f1) == by_columns);
  CHECK(visit_indices(f2) == by_rows);
  CHECK(visit_order(f1).by_columns);
  CHECK_FALSE(visit_order(f1).by_rows);
  CHECK(visit_order(f2).by_rows);
  CHECK_FALSE(visit_order(f2).by_columns);
  SUBCASE("the backward passes: both K/V tile outer") {
    CHECK(visit_order(trace("flash1", ctx, Pass::bwd)).by_columns);
    CHECK(visit_order(trace("flash2", ctx, Pass::bwd)).by_columns);
  }
  SUBCASE("every tile listed: flash2 loads each K_j once per Q tile, in order") {
    std::vector<std::uint64_t> k_rows;
    for (const TraceTransfer& x : f2.transfers) {
      if (x.tile.tensor == Tensor::K) k_rows.push_back(x.tile.row);
    }
    REQUIRE(k_rows.size() == 16);
    for (std::size_t k = 0; k < 16; ++k) CHECK(k_rows[k] == 32 * (k % 4));
  }
}

TEST_CASE("flash1 forward, n = 64, by hand: steps, tiles, bytes and residency") {
  const ScheduleContext ctx = context(problem(64, 16), with_sram(16384), tiles(32, 32));
  const Trace t = trace("flash1", ctx);
  // Initialisation: O, l, m stored per Q tile (steps 0–5); then K_0, V_0, and the first inner step.
  const std::vector<std::string> first = {"O_0", "l_0", "m_0", "O_1", "l_1", "m_1", "K_0", "V_0",
                                          "Q_0", "O_0", "l_0", "m_0", "O_0", "l_0", "m_0", "Q_1"};
  REQUIRE(t.transfers.size() > first.size());
  for (std::size_t k = 0; k < first.size(); ++k) CHECK(tile_label(t, t.transfers[k].tile) == first[k]);
  CHECK(t.transfers[0].dir == Direction::sram_to_hbm);
  CHECK(t.transfers[0].bytes == Bytes(32 * 16 * 2));
  CHECK(t.transfers[1].bytes == Bytes(32 * 4));  // l is fp32
  CHECK(t.transfers[8].dir == Direction::hbm_to_sram);
  CHECK(t.transfers[15].index == TileIndex{1, 0});
  // 2 × 3 initial stores, 2 column × (2 + 2 × (4 loads + 3 stores)) = 6 + 32.
  CHECK(t.transfers.size() == 38);

  CHECK(labels(t, resident_after(t, 5)) == std::vector<std::string>{"O_1*", "l_1*", "m_1*"});
  CHECK(labels(t, resident_after(t, 6)) == std::vector<std::string>{"K_0"});
  CHECK(labels(t, resident_after(t, 11)) == std::vector<std::string>{"Q_0", "K_0", "V_0", "O_0", "l_0", "m_0"});
  CHECK(labels(t, resident_after(t, 14)) == std::vector<std::string>{"Q_0", "K_0", "V_0", "O_0*", "l_0*", "m_0*"});
  CHECK(labels(t, resident_after(t, 15)) == std::vector<std::string>{"Q_1", "K_0", "V_0"});
  CHECK(t.visits[0].before == 12);  // S_0,0 after step 11, S_1,0 after step 18
  CHECK(t.visits[1].before == 19);
  CHECK(t.visits[1].index == TileIndex{1, 0});
  CHECK_FALSE(visit_at(t, 7).has_value());                 // K_0 and V_0 only
  CHECK(visit_at(t, 8) == std::optional<std::size_t>(0));  // Q_0 loaded: S_0,0 is next
  CHECK(visit_at(t, 14) == std::optional<std::size_t>(0));
  CHECK(visit_at(t, 15) == std::optional<std::size_t>(1));  // Q_1 loaded: S_1,0 is next
}

TEST_CASE("ragged n: the last tiles are short, and still one visit per tile") {
  const ScheduleContext ctx = context(problem(100, 16, 1, 1, 68), with_sram(16384), tiles(32, 32));
  const Trace t = trace("flash2", ctx);
  REQUIRE(t.visits.size() == 4 * 3);
  const ScoreVisit& last = t.visits.back();
  CHECK(last.index == TileIndex{3, 2});
  CHECK(last.row == 96);
  CHECK(last.rows == 4);
  CHECK(last.col == 64);
  CHECK(last.cols == 4);
  const TraceTransfer& o = t.transfers.back();
  CHECK(tile_label(t, o.tile) == "L_3");
  CHECK(o.bytes == Bytes(4 * 4));
}

TEST_CASE("causal: the masked tiles are never visited") {
  Problem p = problem(128, 16);
  p.causal = true;
  const ScheduleContext ctx = context(p, with_sram(16384), tiles(32, 32));
  for (const char* s : {"flash1", "flash2"}) {
    const Trace t = trace(s, ctx);
    CHECK(t.visits.size() == 10);  // the lower triangle of 4 × 4 tiles
    for (const ScoreVisit& v : t.visits) CHECK(v.index.j <= v.index.i);
  }
}

TEST_CASE("limits: one head, n up to 4096, at most 100,000 transfers") {
  const auto says = [](const ScheduleContext& ctx, const std::string& what, const TraceLimits& lim = {}) {
    try {
      (void)trace_schedule(*make_schedule("flash2", Pass::fwd, ctx), ctx, lim);
    } catch (const InputError& e) {
      return std::string(e.what()).find(what) != std::string::npos;
    }
    return false;
  };
  CHECK(says(context(problem(8192, 16)), "n = 8192 is above the limit of 4096"));
  CHECK(says(context(problem(64, 16, 1, 1, 5000)), "n_kv = 5000 is above the limit of 4096"));
  CHECK(says(context(problem(256, 16, 2, 4)), "batch × heads must be 1 (got 8)"));
  CHECK(
      says(context(problem(256, 16), with_sram(16384), tiles(32, 32)), "above the limit of 10", TraceLimits{4096, 10}));
  CHECK_FALSE(says(context(problem(256, 16), with_sram(16384), tiles(32, 32)), "limit"));
}

TEST_CASE("iosim trace: a table of every transfer, then the totals") {
  const CliResult r = run_cli(
      {"trace", "-c", "teaching", "--n", "64", "--d", "16", "--schedule", "flash1", "--br", "32", "--bc", "32"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  for (const char* s : {"flash1 fwd", "B_r = 32, B_c = 32", "38 transfers", "order: columns", "in SRAM after",
                        "compute  S_0,0", "= Q_0 K_0ᵀ", "Q_0 K_0 V_0 O_0 l_0 m_0", "O_0* l_0* m_0*", "totals"}) {
    CHECK_MESSAGE(r.out.find(s) != std::string::npos, s);
  }
  // One table row per transfer and per visit: steps 0 … 37 each start a row.
  std::size_t rows = 0;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string step, kind;
    const bool indented = !line.empty() && line.front() == ' ';
    if (indented && fields >> step >> kind && step.find_first_not_of("0123456789") == std::string::npos &&
        (kind == "load" || kind == "store" || kind == "reduce")) {
      ++rows;
    }
  }
  CHECK(rows == 38);
}

TEST_CASE("iosim trace -f json: transfers in order, totals equal to iosim's run JSON") {
  const CliResult r = run_cli({"trace", "-c", "teaching", "--n", "200", "--d", "16", "--schedule", "flash1,flash2",
                               "--pass", "bwd", "-f", "json"});
  REQUIRE(r.code == 0);
  const YAML::Node j = parse_json(r.out);
  CHECK(j["schema_version"].as<int>() == 1);
  REQUIRE(j["traces"].size() == 2);
  const CliResult run = run_cli(
      {"-c", "teaching", "--n", "200", "--d", "16", "--schedule", "flash1,flash2", "--pass", "bwd", "-f", "json"});
  REQUIRE(run.code == 0);
  const YAML::Node counted = parse_json(run.out)["runs"][0]["schedules"];
  for (std::size_t k = 0; k < 2; ++k) {
    const YAML::Node t = j["traces"][k];
    CHECK(t["schedule"].as<std::string>() == counted[k]["name"].as<std::string>());
    CHECK(t["pass"].as<std::string>() == "bwd");
    CHECK(t["problem"]["n"].as<std::uint64_t>() == 200);
    CHECK(t["tile"]["br"].as<std::uint64_t>() == counted[k]["tile"]["br"].as<std::uint64_t>());
    for (const char* f : {"read_bytes", "write_bytes", "read_elements", "write_elements"}) {
      CHECK(t["totals"][f].as<std::uint64_t>() == counted[k]["hbm"][f].as<std::uint64_t>());
    }
    CHECK(t["totals"]["transfers"].as<std::uint64_t>() == counted[k]["transfers"].as<std::uint64_t>());
    CHECK(t["totals"]["tensors"]["dO"]["read_bytes"].as<std::uint64_t>() ==
          counted[k]["tensors"]["dO"]["read_bytes"].as<std::uint64_t>());
    // The listed transfers add up to the totals.
    std::uint64_t read = 0, step = 0;
    for (const YAML::Node& x : t["transfers"]) {
      CHECK(x["step"].as<std::uint64_t>() == step++);
      if (x["dir"].as<std::string>() != "store") read += x["bytes"].as<std::uint64_t>();
    }
    CHECK(read == t["totals"]["read_bytes"].as<std::uint64_t>());
  }
  const YAML::Node x0 = j["traces"][1]["transfers"][0];
  CHECK(x0["tensor"].as<std::string>() == "O");
  CHECK(x0["dir"].as<std::string>() == "load");
  CHECK(x0["rows"][1].as<std::uint64_t>() - x0["rows"][0].as<std::uint64_t>() ==
        j["traces"][1]["tile"]["br"].as<std::uint64_t>());
  CHECK(x0["cols"][1].as<std::uint64_t>() == 16);
  CHECK(x0["tile"][0].as<std::uint64_t>() == 0);
  CHECK(x0["sram"][0].as<std::string>() == "O_0");
}

TEST_CASE("iosim trace --page-size: pages in the JSON and the table, totals equal to iosim's tensor by tensor") {
  const std::initializer_list<std::string> problem_args = {
      "-c", "teaching", "--n", "256", "--d", "16", "--br", "32", "--bc", "32", "--causal", "--window", "64",
      "--page-size", "16", "--page-order", "7", "--schedule", "flash2"};
  std::vector<std::string> trace_args{"trace"};
  trace_args.insert(trace_args.end(), problem_args);
  std::vector<std::string> json_args = trace_args;
  json_args.insert(json_args.end(), {"-f", "json"});
  std::vector<std::string> run_args(problem_args);
  run_args.insert(run_args.end(), {"-f", "json"});
  const CliResult r = iosim::test::cli(json_args);
  REQUIRE(r.code == 0);
  const CliResult run = iosim::test::cli(run_args);
  REQUIRE(run.code == 0);
  const YAML::Node t = parse_json(r.out)["traces"][0];
  const YAML::Node counted = parse_json(run.out)["runs"][0]["schedules"][0];
  CHECK(t["problem"]["window"].as<std::uint64_t>() == 64);
  const YAML::Node pg = t["paging"];
  CHECK(pg["page_size"].as<std::uint64_t>() == 16);
  CHECK(pg["page_order"].as<std::string>() == "random");
  CHECK(pg["seed"].as<std::uint64_t>() == 7);
  REQUIRE(pg["block_table"].size() == 16);
  std::vector<std::uint64_t> slot_of(16);
  for (std::size_t k = 0; k < 16; ++k) {
    CHECK(pg["block_table"][k][0].as<std::uint64_t>() == k);
    slot_of[k] = pg["block_table"][k][1].as<std::uint64_t>();
  }
  CHECK(counted["tensors"]["BT"]["read_bytes"].as<std::uint64_t>() > 0);
  for (const auto& entry : counted["tensors"]) {
    const std::string tensor = entry.first.as<std::string>();
    CAPTURE(tensor);
    for (const char* f : {"read_bytes", "write_bytes", "read_elements", "write_elements"}) {
      const std::uint64_t want = entry.second[f].as<std::uint64_t>();
      const YAML::Node got = t["totals"]["tensors"][tensor];
      CHECK((got ? got[f].as<std::uint64_t>() : 0) == want);
    }
  }
  CHECK(t["totals"]["transfers"].as<std::uint64_t>() == counted["transfers"].as<std::uint64_t>());
  std::uint64_t bt = 0, kv = 0;
  for (const YAML::Node& x : t["transfers"]) {
    const std::string tensor = x["tensor"].as<std::string>();
    const bool reads_pages = tensor == "K" || tensor == "V" || tensor == "BT";
    REQUIRE(static_cast<bool>(x["pages"]) == reads_pages);
    if (!reads_pages) continue;
    (tensor == "BT" ? bt : kv) += 1;
    const std::uint64_t first = tensor == "BT" ? x["rows"][0].as<std::uint64_t>() : x["rows"][0].as<std::uint64_t>() / 16;
    REQUIRE(x["pages"].size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CHECK(x["pages"][k][0].as<std::uint64_t>() == first + k);
      CHECK(x["pages"][k][1].as<std::uint64_t>() == slot_of[first + k]);
    }
  }
  CHECK(bt > 0);
  CHECK(kv == 2 * bt);
  std::uint64_t masked = 0;
  for (const YAML::Node& v : t["visits"]) masked += v["masked"].as<bool>() ? 1U : 0U;
  CHECK(masked > 0);

  std::vector<std::string> svg_args = trace_args;
  svg_args.insert(svg_args.end(), {"-f", "svg"});
  const CliResult svg = iosim::test::cli(svg_args);
  REQUIRE(svg.code == 0);
  std::size_t ticks = 0;
  for (std::size_t at = svg.out.find("class=\"page\""); at != std::string::npos;
       at = svg.out.find("class=\"page\"", at + 1)) {
    ++ticks;
  }
  CHECK(ticks == 2 * 15);  // the 15 boundaries of 16 pages, on K and on V

  const CliResult text = iosim::test::cli(trace_args);
  REQUIRE(text.code == 0);
  for (const std::string& s : std::vector<std::string>{"pages of 16 (random, seed 7)",
                                                      "block table: 0→" + std::to_string(slot_of[0]), "  pages  ",
                                                      "BT_0", "visit 0, masked"}) {
    CHECK_MESSAGE(text.out.find(s) != std::string::npos, s);
  }
}

TEST_CASE("iosim trace -f svg: valid XML, a tile per cell, flash1 by columns beside flash2 by rows") {
  TempDir dir;
  const std::string file = dir.path() + "/trace.svg";
  const CliResult r = run_cli(
      {"trace", "-c", "teaching", "--n", "128", "--d", "16", "--br", "32", "--bc", "32", "-f", "svg", "--out", file});
  REQUIRE(r.code == 0);
  CHECK(r.out.empty());
  std::ifstream in(file);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(svg.rfind("<?xml", 0) == 0);
  std::size_t elements = 0;
  CHECK(balanced(svg, elements));
  CHECK(elements > 100);
  CHECK(svg.find("& ") == std::string::npos);
  const std::vector<SvgTile> f1 = svg_tiles(panel_of(svg, "flash1"));
  const std::vector<SvgTile> f2 = svg_tiles(panel_of(svg, "flash2"));
  REQUIRE(f1.size() == 16);
  REQUIRE(f2.size() == 16);
  for (const SvgTile& c : f1) CHECK(c.visit == std::to_string(c.j * 4 + c.i));  // down each column
  for (const SvgTile& c : f2) CHECK(c.visit == std::to_string(c.i * 4 + c.j));  // along each row
  CHECK(panel_of(svg, "flash1").find("column by column") != std::string::npos);
  CHECK(panel_of(svg, "flash2").find("row by row") != std::string::npos);
  CHECK(svg.find("class=\"current\"") != std::string::npos);

  SUBCASE("causal: masked tiles drawn, never visited; --at picks the step") {
    const CliResult c = run_cli({"trace", "-c", "teaching", "--n", "128", "--d", "16", "--br", "32", "--bc", "32",
                                 "--causal", "--schedule", "flash2", "-f", "svg", "--at", "0"});
    REQUIRE(c.code == 0);
    CHECK(balanced(c.out, elements));
    const std::vector<SvgTile> tiles = svg_tiles(c.out);
    REQUIRE(tiles.size() == 16);
    for (const SvgTile& t : tiles) CHECK((t.visit == "none") == (t.j > t.i));
    CHECK(c.out.find("after step 0 of") != std::string::npos);
    CHECK(c.out.find("no score tile: Q and K are not both in SRAM") != std::string::npos);
  }
}

TEST_CASE("iosim trace, bad input: one line on stderr and exit code 2") {
  const BadInput cases[] = {
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "-f", "png"}, "--format"},
      {{"trace", "-c", "teaching", "--n", "8192", "--d", "16"}, "n = 8192 is above the limit of 4096"},
      {{"trace", "-c", "teaching", "--n", "4096", "--d", "16", "--br", "16", "--bc", "16", "--schedule", "flash2"},
       "above the limit of 100000"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--heads", "2"}, "batch × heads must be 1"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--pass", "fwdbwd"}, "--pass must be fwd or bwd"},
      {{"trace", "-c", "teaching", "--n", "256,512", "--d", "16"}, "--n"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--br", "32", "--br", "64"},
       "give one --br and one --bc"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--at", "3"}, "--at is for --format svg"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "-f", "svg", "--at", "100000"}, "past the last step"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--schedule", "flash9"}, "unknown schedule 'flash9'"},
      {{"trace", "-c", "teaching", "--d", "16"}, "sequence length is missing"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "-f", "svg", "--out", "/nonexistent/dir/x.svg"},
       "cannot write"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--page-order", "random"}, "--page-order needs --page-size"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--page-size", "16", "--page-order", "sideways"},
       "--page-order must be contiguous, random or an integer seed"},
      {{"trace", "-c", "teaching", "--n", "256", "--d", "16", "--page-size", "64", "--br", "16", "--bc", "96",
        "--schedule", "flash2"},
       "must divide one another"},
  };
  check_bad_inputs(cases);
}

TEST_CASE("iosim trace --page-size refuses the schedules without pages as iosim does, in the same line") {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--schedule", "flash1"}, std::vector<std::string>{"--schedule", "flash2", "--pass", "bwd"},
        std::vector<std::string>{}}) {  // by default trace takes flash1 too
    std::vector<std::string> args{"-c", "teaching", "--n", "256", "--d", "16", "--page-size", "16"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> trace_args{"trace"};
    trace_args.insert(trace_args.end(), args.begin(), args.end());
    const CliResult t = iosim::test::cli(trace_args);
    const CliResult r = iosim::test::cli(args);
    CAPTURE(t.err);
    CHECK(t.code == 2);
    CHECK(r.code == 2);
    CHECK(t.err.find("has no paged variant") != std::string::npos);
    CHECK(std::count(t.err.begin(), t.err.end(), '\n') == 1);
    if (!extra.empty()) CHECK(t.err == r.err);
  }
}
