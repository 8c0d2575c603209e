#!/usr/bin/env python3
"""The page of `iosim trace --format html` in a real browser (headless Chromium, ctest label `browser`).

    python3 tests/browser/trace_page.py --iosim build/iosim --out build/browser [--screenshot docs/img/x.png]

Writes the page and the trace's JSON for the same problem (naive, flash1, flash2 on the teaching GPU with
--predict), opens the page, steps through it by keyboard, and at every step visited checks each panel's
HBM counters per tensor and its L2 hits and misses against sums over the JSON's transfers. Checks that
the page asks for nothing but itself (no network), and that play/pause moves the step. Then opens a
paged trace under a sliding window and checks its block-table panel (the pages each step reads, as the
JSON names them) and the band of its score grid (skipped and masked tiles). Screenshots go to
--out. Without chromium it exits 77 (ctest: skipped) saying why, unless CI=true, where that is a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cdp  # noqa: E402

SKIP = 77
PROBLEM = ["-c", "teaching", "--n", "512", "--d", "16", "--br", "32", "--bc", "32",
           "--schedule", "naive,flash1,flash2", "--predict"]
# Paged K/V under a sliding window: the block-table panel and the band of the score grid.
PAGED = ["-c", "teaching", "--n", "256", "--d", "16", "--br", "32", "--bc", "32", "--causal", "--window", "64",
         "--page-size", "16", "--page-order", "7", "--schedule", "flash2,flashdecode"]
PAGED_STEPS = 40  # steps walked one by one, checking the highlighted pages at each

PAGES_SHOWN = """(() => [...document.querySelectorAll(".panel")].map((p) => {
  const box = p.querySelector(".pages");
  const nums = (sel, key) => [...p.querySelectorAll(sel)].map((e) => Number(e.dataset[key]));
  return {schedule: p.dataset.schedule, step: Number(p.querySelector(".now").dataset.step), panel: !!box,
          logical: nums(".blocktable rect.lp", "page").length, physical: nums(".blocktable rect.pp", "slot").length,
          hot: nums(".blocktable rect.lp.hot", "page"),
          hot_slots: nums(".blocktable rect.pp.hot", "slot").sort((a, b) => a - b),
          masked: p.querySelectorAll(".grid rect.cell.masked").length,
          never: p.querySelectorAll(".grid rect.cell.never").length};
}))()"""


def expected_pages(trace: dict, step: int) -> list:
    """The [logical, physical] pages a panel highlights at global step `step`: the latest transfer's that has any."""
    latest = []
    for x in trace["transfers"][: min(step, len(trace["transfers"]) - 1) + 1]:
        latest = x.get("pages", latest)
    return latest


def check_paged(browser, iosim: str, out: Path, failures: list[str]) -> None:
    """The block-table panel of a paged, windowed trace: present, and following the steps."""
    page = out / "trace-paged.html"
    subprocess.run([iosim, "trace", *PAGED, "-f", "html", "-o", str(page)], check=True)
    traces = json.loads(subprocess.run([iosim, "trace", *PAGED, "-f", "json"], check=True,
                                       capture_output=True, text=True).stdout)["traces"]
    browser.call("Page.navigate", url=page.resolve().as_uri())
    browser.wait_for("location.pathname.endsWith('trace-paged.html') && document.body && "
                     "document.body.dataset.ready === '1'",
                     "the paged page ready")
    sets = {t["schedule"]: set() for t in traces}
    for step in range(PAGED_STEPS + 1):
        if step:
            browser.press("ArrowRight")
        shown = browser.evaluate(PAGES_SHOWN)
        if [p["schedule"] for p in shown] != [t["schedule"] for t in traces]:
            failures.append(f"paged page: panels {[p['schedule'] for p in shown]}, expected one per trace")
            return
        for p, t in zip(shown, traces):
            pages = t["paging"]["pages"]
            if not p["panel"] or p["logical"] != pages or p["physical"] != pages:
                failures.append(f"paged page, {t['schedule']}: block table panel {p['panel']} with {p['logical']} "
                                f"logical and {p['physical']} physical pages, expected {pages} each")
                return
            want = expected_pages(t, step)
            if p["hot"] != [k for k, _ in want] or p["hot_slots"] != sorted(s for _, s in want):
                failures.append(f"paged page, step {step}, {t['schedule']}: pages highlighted {p['hot']} in slots "
                                f"{p['hot_slots']}, the JSON says {want}")
            sets[t["schedule"]].add(tuple(p["hot"]))
            if step == 0:
                masked = sum(1 for v in t["visits"] if v["masked"])
                never = t["grid"]["t_r"] * t["grid"]["t_c"] - len(t["visits"])
                # flash2 skips the tiles outside the band; flashdecode's block sees the keys of all its rows
                band = t["schedule"] != "flash2" or never > 0
                if p["masked"] != masked or p["never"] != never or not masked or not band:
                    failures.append(f"paged page, {t['schedule']}: {p['masked']} tiles marked masked and "
                                    f"{p['never']} skipped, the JSON says {masked} and {never} (masked above 0 "
                                    "under a window, and skipped too for flash2)")
    for name, seen in sets.items():
        if len([s for s in seen if s]) < 2:
            failures.append(f"paged page, {name}: the highlighted pages did not change over {PAGED_STEPS} steps "
                            f"({sorted(seen)})")
    browser.screenshot(str(out / "trace-paged.png"))


def expected(trace: dict, step: int) -> dict:
    """What a panel should show at global step `step`: sums over the JSON's transfers 0 … min(step, last)."""
    s = min(step, len(trace["transfers"]) - 1)
    names = {x["tensor"] for x in trace["transfers"]} | {"total"}
    c = {"step": s, "read": dict.fromkeys(names, 0), "write": dict.fromkeys(names, 0), "hit": 0, "miss": 0,
         "l2write": 0}
    per_step = trace["predicted"]["per_step"]
    for x in trace["transfers"][: s + 1]:
        for name in (x["tensor"], "total"):
            c["read"][name] += 0 if x["dir"] == "store" else x["bytes"]
            c["write"][name] += 0 if x["dir"] == "load" else x["bytes"]
        if per_step:
            c["hit"] += x["l2"]["hit_sectors"]
            c["miss"] += x["l2"]["miss_sectors"]
            c["l2write"] += x["l2"]["write_sectors"]
    if not per_step:  # standard attention: no per-step L2 figures, and the page shows none
        c["hit"] = c["miss"] = c["l2write"] = None
    c["running"] = [b["block"] for k in trace["predicted"]["kernels"] for b in k["blocks"]
                    if per_step and b["first_step"] <= s < b["first_step"] + b["steps"]]
    return c


SHOWN = """(() => {
  const num = (e) => e ? Number(e.textContent.replace(/[^0-9]/g, "")) : null;
  return {
    step: Number(document.body.dataset.step),
    panels: [...document.querySelectorAll(".panel")].map((p) => {
      const c = {schedule: p.dataset.schedule, step: Number(p.querySelector(".now").dataset.step),
                 read: {}, write: {}};
      for (const td of p.querySelectorAll("td[data-counter]")) c[td.dataset.counter][td.dataset.tensor] = num(td);
      c.hit = num(p.querySelector('[data-l2="hit"]'));
      c.miss = num(p.querySelector('[data-l2="miss"]'));
      c.l2write = num(p.querySelector('[data-l2="write"]'));
      c.running = [...p.querySelectorAll("span.blk.run")].map((s) => Number(s.dataset.block));
      return c;
    })};
})()"""


def check(shown: dict, traces: list[dict], step: int, failures: list[str]) -> None:
    if shown["step"] != step:
        failures.append(f"the page is at step {shown['step']}, expected {step}")
        return
    if [p["schedule"] for p in shown["panels"]] != [t["schedule"] for t in traces]:
        failures.append(f"panels {[p['schedule'] for p in shown['panels']]}, expected one per trace")
        return
    for p, t in zip(shown["panels"], traces):
        want = expected(t, step)
        for key in ("step", "read", "write", "hit", "miss", "l2write", "running"):
            if p[key] != want[key]:
                failures.append(f"step {step}, {t['schedule']}: {key} shown {p[key]}, the JSON says {want[key]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iosim", required=True)
    ap.add_argument("--out", required=True, help="folder for the page, the JSON and the screenshots")
    ap.add_argument("--screenshot", help="also save the screenshot of the middle step here (docs/img/)")
    args = ap.parse_args()

    chromium = cdp.find_chromium()
    if chromium is None:
        why = "chromium is not installed (scripts/setup --browser installs Debian's package)"
        if os.environ.get("CI") == "true":
            print(f"trace_page.py: FAIL: {why}; CI must run the browser test", file=sys.stderr)
            return 1
        print(f"trace_page.py: SKIPPED: {why}")
        return SKIP

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    page = out / "trace.html"
    start = time.monotonic()
    subprocess.run([args.iosim, "trace", *PROBLEM, "-f", "html", "-o", str(page)], check=True)
    traces = json.loads(subprocess.run([args.iosim, "trace", *PROBLEM, "-f", "json"], check=True,
                                       capture_output=True, text=True).stdout)["traces"]
    last = max(len(t["transfers"]) for t in traces) - 1

    browser = cdp.Browser(chromium)
    failures: list[str] = []
    try:
        browser.call("Network.enable")
        browser.call("Page.enable")
        url = page.resolve().as_uri()
        browser.call("Page.navigate", url=url)
        browser.wait_for("document.body && document.body.dataset.ready === '1'", "ready")

        def at(step: int) -> None:
            check(browser.evaluate(SHOWN), traces, step, failures)

        at(0)
        browser.press("ArrowRight")
        at(1)
        browser.press("ArrowRight", 4)
        at(5)
        browser.press("PageDown")
        at(15)
        browser.press("ArrowLeft", shift=True)
        at(5)
        browser.press("ArrowRight", 7, shift=True)
        at(75)
        browser.press("End")
        at(last)
        browser.press("ArrowRight")
        at(last)
        browser.press("Home")
        at(0)
        browser.press("ArrowLeft")
        at(0)
        middle = min(len(t["transfers"]) for t in traces if t["predicted"]["per_step"]) // 2
        while int(browser.evaluate("document.body.dataset.step")) < middle:
            browser.press("PageDown")
        browser.press("ArrowLeft", int(browser.evaluate("document.body.dataset.step")) - middle)
        at(middle)
        browser.screenshot(str(out / f"trace-step-{middle}.png"))
        if args.screenshot:
            browser.screenshot(args.screenshot)

        browser.press(" ")  # play
        time.sleep(0.6)
        browser.press(" ")  # pause
        played = int(browser.evaluate("document.body.dataset.step"))
        if played <= middle:
            failures.append(f"play did not move the step (still {played} after 0.6 s at 8 steps/s)")
        time.sleep(0.3)
        if int(browser.evaluate("document.body.dataset.step")) != played:
            failures.append("pause did not stop the step")
        else:
            at(played)
        browser.screenshot(str(out / f"trace-step-{played}.png"))

        asked = sorted({e["params"]["request"]["url"] for e in browser.events
                        if e.get("method") == "Network.requestWillBeSent"})
        foreign = [u for u in asked if u.split("#")[0] != url and not u.startswith("data:")]
        if foreign:
            failures.append(f"the page asked for more than itself: {foreign}")
        if not any(u.split("#")[0] == url for u in asked):
            failures.append("no request for the page itself was seen (is the network check blind?)")

        check_paged(browser, args.iosim, out, failures)
    finally:
        browser.close()

    for f in failures:
        print(f"trace_page.py: FAIL: {f}", file=sys.stderr)
    if failures:
        return 1
    print(f"trace_page.py: {len(traces)} panels, counters checked at 12 steps, play/pause, no network; "
          f"a paged, windowed page's block table followed over {PAGED_STEPS} steps; "
          f"screenshots in {out} ({time.monotonic() - start:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
