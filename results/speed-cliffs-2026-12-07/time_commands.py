"""Times each distinct iosim command of collect.py's list once, in turn: wall and CPU seconds (the child's
user + system), and the fast replay's l2_sample_stride where the output is JSON.

    python3 time_commands.py CMDS.jsonl IOSIM OUT.jsonl [--timeout S] [--repo DIR]

IOSIM replaces the binary the list names; --repo replaces the checkout its configs and data are read from.
"""
import argparse
import json
import os
import re
import subprocess
import time


def stride_of(stdout):
    try:
        run = json.loads(stdout)["runs"][0]["schedules"][0]["predicted"]["cold"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return run.get("l2_sample_stride")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmds")
    ap.add_argument("iosim")
    ap.add_argument("out")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--repo", default="/work/main")
    a = ap.parse_args()
    seen, todo = set(), []
    for line in open(a.cmds):
        r = json.loads(line)
        argv = [a.iosim] + [re.sub(r"^/work/main/", a.repo.rstrip("/") + "/", x) for x in r["argv"][1:]]
        if tuple(argv) not in seen:
            seen.add(tuple(argv))
            todo.append((r["test"], argv))
    with open(a.out, "w") as f:
        for i, (test, argv) in enumerate(todo):
            before = os.times()
            t0 = time.monotonic()
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=a.timeout)
                rc, stdout = done.returncode, done.stdout
            except subprocess.TimeoutExpired:
                rc, stdout = "timeout", ""
            wall = time.monotonic() - t0
            after = os.times()
            cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            rec = {"test": test, "argv": argv, "rc": rc, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3),
                   "stride": stride_of(stdout), "load1": os.getloadavg()[0]}
            f.write(json.dumps(rec) + "\n")
            f.flush()
            print(f"{i + 1}/{len(todo)} {wall:7.2f}s {test}", flush=True)


if __name__ == "__main__":
    main()
