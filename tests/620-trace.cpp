// iosim trace: every transfer listed in order, totals equal to the ledger, flash1's column order against
// flash2's row order, residency, limits, and the command's text, JSON and SVG.
#include <doctest/doctest.h>

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

TEST_CASE("a trace's totals equal the ledger's HBM counts, for every schedule and pass") {
  Problem causal = problem(200, 16);
  causal.causal = true;
  const Problem decode = problem(1, 32, 1, 1, 300);
  for (const Problem& p : {problem(256, 16), problem(200, 24, 1, 1, 136), causal, decode}) {
    for (const ScheduleInfo& s : schedule_catalog()) {
      for (Pass pass : {Pass::fwd, Pass::bwd}) {
        if (!has_pass(s.name, pass) || !runs_anywhere(s.name) || !as_taken_by(s.name, p)) continue;
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
      }
    }
  }
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
  };
  check_bad_inputs(cases);
}
