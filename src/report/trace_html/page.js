// iosim trace --format html: steps through the traces embedded in the page (the JSON of
// `iosim trace --format json`, in <script id="trace-data">). Hand-written, no library, no network.
// One slider for all panels: at global step s each panel shows its own step min(s, last).
"use strict";

const data = JSON.parse(document.getElementById("trace-data").textContent);
const SVG = "http://www.w3.org/2000/svg";
const fmt = (x) => x.toLocaleString("en-US");

// Viridis, five stops, interpolated: visit 0 dark purple, the last yellow (as the SVG picture).
const STOPS = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
function colour(f) {
  const x = Math.min(Math.max(f, 0), 1) * (STOPS.length - 1);
  const k = Math.min(Math.floor(x), STOPS.length - 2), u = x - k;
  const c = STOPS[k].map((v, i) => Math.round(v + u * (STOPS[k + 1][i] - v)));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

function el(tag, attrs, parent, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// What HBM a transfer moves: a load reads, a store writes, a reduce does both (as the trace's totals).
function moved(x) {
  return { read: x.dir === "store" ? 0 : x.bytes, write: x.dir === "load" ? 0 : x.bytes };
}

// Per trace, running sums after each step: HBM bytes per tensor, and the L2 sectors with --predict.
function prepare(t) {
  const n = t.transfers.length;
  const tensors = [...new Set(t.transfers.map((x) => x.tensor))];
  const cum = {};
  for (const name of tensors.concat(["total"])) cum[name] = { read: new Float64Array(n), write: new Float64Array(n) };
  const l2 = { hit: new Float64Array(n), miss: new Float64Array(n), write: new Float64Array(n) };
  const run = {}; for (const name of tensors.concat(["total"])) run[name] = { read: 0, write: 0 };
  let hit = 0, miss = 0, wr = 0;
  t.transfers.forEach((x, s) => {
    const m = moved(x);
    for (const name of [x.tensor, "total"]) { run[name].read += m.read; run[name].write += m.write; }
    for (const name in run) { cum[name].read[s] = run[name].read; cum[name].write[s] = run[name].write; }
    if (x.l2) { hit += x.l2.hit_sectors; miss += x.l2.miss_sectors; wr += x.l2.write_sectors; }
    l2.hit[s] = hit; l2.miss[s] = miss; l2.write[s] = wr;
  });
  // Visits in order, and the step after which each is computed (-1: before the first transfer).
  // Per step, the rows of the latest Q and K transfers (the tiles the SRAM list names).
  const lastLoad = { Q: new Array(n), K: new Array(n) };
  let lq = null, lk = null;
  t.transfers.forEach((x, s) => {
    if (x.tensor === "Q") lq = x.rows;
    if (x.tensor === "K") lk = x.rows;
    lastLoad.Q[s] = lq; lastLoad.K[s] = lk;
  });
  const after = t.visits.map((v) => (v.after_step === null ? -1 : v.after_step));
  // Paged K/V: per step, the pages of the latest transfer that read some (a K, V or block-table tile).
  const pages = new Array(n);
  let lp = null;
  t.transfers.forEach((x, s) => { if (x.pages) lp = x.pages; pages[s] = lp; });
  return { t, n, tensors, cum, l2, after, lastLoad, pages };
}

function label(x) { return `${x.tensor}_${x.tile[0]}` + (x.tile[1] ? `,${x.tile[1]}` : ""); }

class Panel {
  constructor(p, root) {
    this.p = p;
    const t = p.t;
    const box = el("div", { class: "panel", "data-schedule": t.schedule }, root);
    el("h2", {}, box, `${t.schedule} ${t.pass}`);
    el("div", { class: "sub" }, box,
       `B_r = ${t.tile.br}, B_c = ${t.tile.bc} · ${t.grid.t_r} × ${t.grid.t_c} score tiles · ` +
       `${fmt(p.n)} transfers · order: ${t.order}`);
    this.now = el("div", { class: "now" }, box);
    this.buildGrid(box);
    if (t.problem.causal) {
      el("div", { class: "legend" }, box,
         (t.problem.window ? `causal, window of ${t.problem.window} keys: the band of tiles computed; ` : "causal: ") +
         "grey tiles are skipped (every score masked), tiles with a slash are computed and then masked");
    }
    if (t.paging) this.buildPages(box);
    el("div", { class: "legend" }, box, "in SRAM after this step (dashed: written back, red: just moved)");
    this.sram = el("div", { class: "sram" }, box);
    this.buildCounters(box);
    if (t.predicted) this.buildPredicted(box);
    this.done = 0;  // visits drawn as computed
  }

  buildGrid(box) {
    const t = this.p.t, tr = t.grid.t_r, tc = t.grid.t_c;
    const size = Math.max(4, Math.min(28, Math.floor(340 / Math.max(tr, tc))));
    this.size = size;
    const svg = el("svg:svg", { class: "grid", width: tc * size + 2, height: tr * size + 2 }, box);
    // A visit covers the cells of its rows and columns: one tile S_ij, or (standard attention) all of S.
    const owner = new Map();
    for (const v of t.visits) {
      for (let i = Math.floor(v.rows[0] / t.tile.br); i < Math.ceil(v.rows[1] / t.tile.br); i++) {
        for (let j = Math.floor(v.cols[0] / t.tile.bc); j < Math.ceil(v.cols[1] / t.tile.bc); j++) {
          if (!owner.has(`${i},${j}`)) owner.set(`${i},${j}`, v);
        }
      }
    }
    this.cells = t.visits.map(() => []);
    const last = Math.max(1, t.visits.length - 1);
    for (let i = 0; i < tr; i++) {
      for (let j = 0; j < tc; j++) {
        const v = owner.get(`${i},${j}`);
        const r = el("svg:rect", { x: 1 + j * size, y: 1 + i * size, width: size, height: size,
                                   class: v ? "cell future" : "cell never", "data-i": i, "data-j": j,
                                   "data-visit": v ? v.visit : "none" }, svg);
        if (v) {
          r.setAttribute("fill", colour(v.visit / last));
          this.cells[v.visit].push(r);
          // A tile an edge of the mask crosses (one score tile, not standard attention's whole S).
          if (v.masked && v.rows[1] - v.rows[0] <= t.tile.br && v.cols[1] - v.cols[0] <= t.tile.bc) {
            r.classList.add("masked");
            el("svg:line", { class: "maskline", x1: 1 + j * size, y1: 1 + i * size, x2: 1 + (j + 1) * size,
                             y2: 1 + (i + 1) * size }, svg);
          }
          if (size >= 16 && (v.rows[1] - v.rows[0] <= t.tile.br || (i === 0 && j === 0))) {
            el("svg:text", { x: 3 + j * size, y: size - 4 + i * size }, svg, String(v.visit));
          }
        }
      }
    }
    this.qband = el("svg:rect", { class: "qband", x: 1, width: tc * size, height: 0, y: 0 }, svg);
    this.kband = el("svg:rect", { class: "kband", y: 1, height: tr * size, width: 0, x: 0 }, svg);
    this.frame = el("svg:rect", { class: "frame", width: size, height: size, x: -99, y: -99 }, svg);
  }

  // The block table: each logical page of K/V (top row) joined to the physical page of HBM holding it
  // (bottom row); the pages the step's tile reads in red.
  buildPages(box) {
    const pg = this.p.t.paging, n = pg.pages;
    this.pagebox = el("div", { class: "pages" }, box);
    el("div", { class: "legend" }, this.pagebox,
       `block table: ${n} pages of ${pg.page_size} tokens, ${pg.page_order}` +
       (pg.page_order === "random" ? ` (seed ${pg.seed})` : "") +
       ". Top: K/V's logical pages in token order; bottom: the physical pages of HBM holding them. " +
       "Red: the pages the latest K, V or block-table transfer reads.");
    const w = Math.max(3, Math.min(22, Math.floor(520 / n))), h = 16, gap = 40;
    const svg = el("svg:svg", { class: "blocktable", width: n * w + 2, height: 2 * h + gap + 2 }, this.pagebox);
    this.links = []; this.lpages = []; this.ppages = new Array(n);
    for (const [page, slot] of pg.block_table) {
      this.links[page] = el("svg:line", { class: "link", "data-page": page, x1: 1 + (page + 0.5) * w, y1: 1 + h,
                                          x2: 1 + (slot + 0.5) * w, y2: 1 + h + gap }, svg);
    }
    for (const [page, slot] of pg.block_table) {
      this.lpages[page] = el("svg:rect", { class: "lp", "data-page": page, x: 1 + page * w, y: 1, width: w,
                                           height: h }, svg);
      this.ppages[slot] = el("svg:rect", { class: "pp", "data-slot": slot, "data-page": page, x: 1 + slot * w,
                                           y: 1 + h + gap, width: w, height: h }, svg);
      if (w >= 16) {
        el("svg:text", { x: 1 + page * w + w / 2, y: h - 3 }, svg, String(page));
        el("svg:text", { x: 1 + slot * w + w / 2, y: h + gap + h - 3 }, svg, String(slot));
      }
    }
    this.pagenow = el("div", { class: "pagenow" }, this.pagebox);
    this.hot = [];
  }

  showPages(s, x) {
    for (const [page, slot] of this.hot) {
      for (const e of [this.lpages[page], this.ppages[slot], this.links[page]]) e.classList.remove("hot");
    }
    this.hot = this.p.pages[s] || [];
    for (const [page, slot] of this.hot) {
      for (const e of [this.lpages[page], this.ppages[slot], this.links[page]]) e.classList.add("hot");
    }
    const list = this.hot.map(([page, slot]) => `${page}→${slot}`).join(" ");
    this.pagebox.setAttribute("data-hot", this.hot.map(([page]) => page).join(","));
    this.pagenow.textContent = !this.hot.length ? "no K/V page read yet"
      : `${x.pages ? "this step reads" : "last read"} pages (logical→physical): ${list}`;
  }

  buildCounters(box) {
    const t = this.p.t;
    const tab = el("table", { class: "counters" }, box);
    const head = el("tr", {}, tab);
    for (const h of ["HBM bytes", "read", "written", "of total read", "of total written"]) el("th", {}, head, h);
    this.rows = {};
    for (const name of this.p.tensors.concat(["total"])) {
      const tr = el("tr", { class: name === "total" ? "total" : "" }, tab);
      el("td", {}, tr, name);
      const read = el("td", { "data-counter": "read", "data-tensor": name }, tr);
      const write = el("td", { "data-counter": "write", "data-tensor": name }, tr);
      const tot = name === "total" ? t.totals : t.totals.tensors[name];
      el("td", {}, tr, fmt(tot.read_bytes));
      el("td", {}, tr, fmt(tot.write_bytes));
      this.rows[name] = { tr, read, write };
    }
  }

  buildPredicted(box) {
    const pr = this.p.t.predicted;
    this.l2 = el("div", { class: "l2" }, box);
    el("div", { class: "legend" }, box,
       `GPU model (${data.config.name}, cold L2): which block ran on which SM, wave by wave; ` +
       (pr.per_step ? "red: the block making this step's transfer; " : "") +
       "hit rate: the wave's L2 reads that hit");
    this.blocks = [];
    for (const k of pr.kernels) {
      const tab = el("table", { class: "waves" }, box);
      const head = el("tr", {}, tab);
      el("th", {}, head, k.name);
      for (let sm = 0; sm < k.sms; sm++) el("th", {}, head, `SM ${sm}`);
      el("th", {}, head, "hit rate");
      const MAX_WAVES = 8;
      for (const w of k.waves.slice(0, MAX_WAVES)) {
        const tr = el("tr", {}, tab);
        el("td", { class: "b" }, tr, `wave ${w.wave}`);
        const cells = [];
        for (let sm = 0; sm < k.sms; sm++) cells.push(el("td", {}, tr));
        for (const b of k.blocks.filter((b) => b.wave === w.wave)) {
          const span = el("span", { class: "blk", "data-block": b.block }, cells[b.sm], String(b.block));
          this.blocks.push({ b, span });
        }
        const rate = w.read_sectors ? (100 * w.read_hit_sectors / w.read_sectors).toFixed(0) + "%" : "-";
        el("td", { class: "b" }, tr, rate);
      }
      if (k.waves.length > MAX_WAVES) {
        el("td", { class: "b", colspan: k.sms + 2 }, el("tr", {}, tab), `… ${k.waves.length - MAX_WAVES} more waves`);
      }
    }
  }

  show(global) {
    const p = this.p, t = p.t;
    const s = Math.min(global, p.n - 1);
    const x = t.transfers[s];
    const just = x.sram.find((l) => l.replace("*", "").startsWith(x.tensor + "_")) || label(x);
    this.now.textContent = `step ${fmt(s)} of ${fmt(p.n - 1)}${global > s ? " (finished)" : ""}: ${x.dir} ` +
      `${just.replace("*", "")} rows [${x.rows[0]}, ${x.rows[1]}) cols [${x.cols[0]}, ${x.cols[1]}), ${fmt(x.bytes)} B` +
      (x.pages ? `, pages ${x.pages.map(([page, slot]) => `${page}→${slot}`).join(" ")}` : "");
    this.now.setAttribute("data-step", s);
    // Score tiles computed by now: full colour; the rest faded; the latest one framed.
    let done = 0;
    while (done < p.after.length && p.after[done] <= s) done++;
    for (let v = Math.min(done, this.done); v < Math.max(done, this.done); v++) {
      for (const c of this.cells[v]) c.classList.toggle("future", v >= done);
    }
    this.done = done;
    const size = this.size;
    if (done > 0) {
      const v = t.visits[done - 1];
      const i0 = Math.floor(v.rows[0] / t.tile.br), i1 = Math.ceil(v.rows[1] / t.tile.br);
      const j0 = Math.floor(v.cols[0] / t.tile.bc), j1 = Math.ceil(v.cols[1] / t.tile.bc);
      this.frame.setAttribute("x", 1 + j0 * size);
      this.frame.setAttribute("y", 1 + i0 * size);
      this.frame.setAttribute("width", (j1 - j0) * size);
      this.frame.setAttribute("height", (i1 - i0) * size);
    } else {
      this.frame.setAttribute("x", -99);
    }
    // SRAM: one chip per tile held; Q's rows and K's columns outlined on the grid.
    this.sram.textContent = "";
    for (const l of x.sram) {
      const wb = l.endsWith("*");
      el("span", { class: "chip" + (wb ? " wb" : "") + (l === just ? " just" : "") }, this.sram, l);
    }
    // The rows of the Q tile and of the K tile held (K's rows are S's columns), from their last load.
    const q = x.sram.some((l) => l.startsWith("Q_")) ? p.lastLoad.Q[s] : null;
    const k = x.sram.some((l) => l.startsWith("K_")) ? p.lastLoad.K[s] : null;
    this.qband.setAttribute("y", q ? 1 + q[0] / t.tile.br * size : -999);
    this.qband.setAttribute("height", q ? (q[1] - q[0]) / t.tile.br * size : 0);
    this.kband.setAttribute("x", k ? 1 + k[0] / t.tile.bc * size : -999);
    this.kband.setAttribute("width", k ? (k[1] - k[0]) / t.tile.bc * size : 0);
    for (const name in this.rows) {
      const r = this.rows[name];
      r.read.textContent = fmt(p.cum[name].read[s]);
      r.write.textContent = fmt(p.cum[name].write[s]);
      r.tr.classList.toggle("moved", name === x.tensor);
    }
    if (this.pagebox) this.showPages(s, x);
    if (this.l2) this.showPredicted(s, x);
  }

  showPredicted(s, x) {
    const pr = this.p.t.predicted;
    if (!pr.per_step) {
      this.l2.textContent = `L2 per step: not shown, ${pr.why_not_per_step}. The model's whole run: ` +
        `${fmt(pr.l2_read_sectors)} sectors read, ${fmt(pr.l2_write_sectors)} written; DRAM ` +
        `${fmt(pr.dram_read_bytes)} B read, ${fmt(pr.dram_write_bytes)} B written.`;
      return;
    }
    const l2 = x.l2, c = this.p.l2;
    const tot = c.hit[s] + c.miss[s];
    this.l2.innerHTML = "";
    el("div", {}, this.l2).append(
      "L2 at this step: ", el("b", { "data-l2": "step-hit" }, null, fmt(l2.hit_sectors)), " hit, ",
      el("b", { "data-l2": "step-miss" }, null, fmt(l2.miss_sectors)), " missed, ",
      el("b", { "data-l2": "step-write" }, null, fmt(l2.write_sectors)), " written (32-byte sectors)");
    el("div", {}, this.l2).append(
      "so far: ", el("b", { "data-l2": "hit" }, null, fmt(c.hit[s])), " hits, ",
      el("b", { "data-l2": "miss" }, null, fmt(c.miss[s])), " misses",
      tot ? ` (${(100 * c.hit[s] / tot).toFixed(1)}% hit)` : "", ", ",
      el("b", { "data-l2": "write" }, null, fmt(c.write[s])), " written");
    for (const { b, span } of this.blocks) {
      span.classList.toggle("run", s >= b.first_step && s < b.first_step + b.steps);
      span.classList.toggle("done", s >= b.first_step + b.steps);
    }
  }
}

// The bars at the top: HBM bytes each schedule has moved by this step, on one scale.
function buildCompare(preps) {
  const box = document.getElementById("compare");
  const max = Math.max(...preps.map((p) => p.cum.total.read[p.n - 1] + p.cum.total.write[p.n - 1]));
  const rows = preps.map((p) => {
    const row = el("div", { class: "cmp" }, box);
    el("span", { class: "name" }, row, p.t.schedule);
    const track = el("div", { class: "track" }, row);
    const bar = el("div", { class: "bar" }, track);
    const text = el("span", { "data-compare": p.t.schedule }, row);
    return { p, bar, text };
  });
  return (s) => {
    for (const { p, bar, text } of rows) {
      const k = Math.min(s, p.n - 1);
      const now = p.cum.total.read[k] + p.cum.total.write[k];
      const all = p.cum.total.read[p.n - 1] + p.cum.total.write[p.n - 1];
      bar.style.width = `${(100 * now / max).toFixed(2)}%`;
      text.textContent = `${fmt(now)} B of ${fmt(all)} B`;
    }
  };
}

function main() {
  const preps = data.traces.map(prepare);
  const last = Math.max(...preps.map((p) => p.n)) - 1;
  const panels = preps.map((p) => new Panel(p, document.getElementById("panels")));
  const compare = buildCompare(preps);
  const slider = document.getElementById("step");
  const steplabel = document.getElementById("steplabel");
  const play = document.getElementById("play");
  const speed = document.getElementById("speed");
  slider.max = last;
  let step = 0, timer = null;
  function go(s) {
    step = Math.min(Math.max(0, Math.round(s)), last);
    slider.value = step;
    steplabel.textContent = `step ${fmt(step)} / ${fmt(last)}`;
    document.body.setAttribute("data-step", step);
    for (const panel of panels) panel.show(step);
    compare(step);
    history.replaceState(null, "", `#step=${step}`);
  }
  function toggle() {
    if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; return; }
    if (step >= last) go(0);
    play.textContent = "pause";
    timer = setInterval(() => { if (step >= last) toggle(); else go(step + 1); }, 1000 / Number(speed.value));
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  play.addEventListener("click", toggle);
  speed.addEventListener("change", () => { if (timer) { toggle(); toggle(); } });
  document.getElementById("first").addEventListener("click", () => go(0));
  document.getElementById("prev").addEventListener("click", () => go(step - 1));
  document.getElementById("next").addEventListener("click", () => go(step + 1));
  document.getElementById("last").addEventListener("click", () => go(last));
  document.addEventListener("keydown", (e) => {
    const big = e.shiftKey ? 10 : 1;
    const moves = { ArrowRight: step + big, ArrowLeft: step - big, PageDown: step + 10, PageUp: step - 10,
                    Home: 0, End: last };
    if (e.key in moves) { go(moves[e.key]); e.preventDefault(); }
    else if (e.key === " ") { toggle(); e.preventDefault(); }
  });
  const m = /step=(\d+)/.exec(location.hash);
  go(m ? Number(m[1]) : 0);
  document.body.setAttribute("data-ready", "1");
}

main();
