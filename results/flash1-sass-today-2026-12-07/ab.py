#!/usr/bin/env python3
"""ab.py BUILD A B [EXTRA.json ...]: every time-model ctest of BUILD (`ctest -R time-model -N -V`), and
scripts/time-validation.py on each EXTRA run file (configs/h100.yaml), run with iosim binary A and with B.
Prints one markdown row a ctest (median |error|: A, B, the ctest's limit, B within it) and, for each
EXTRA file, one row a schedule x pass."""
import re
import shlex
import subprocess
import sys

ROW = re.compile(r"^\| (all|iosim: [^|]+?|[a-z][^|]*?) \| (\d+) \| ([\d.]+)% \|")


def medians(cmd):
    """{row label: median |error| %} of one time-validation.py run (its stdout's first table)."""
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    return {m.group(1): float(m.group(3)) for m in map(ROW.match, out.splitlines()) if m}


def ctests(build):
    text = subprocess.run(["ctest", "--test-dir", build, "-R", "time-model", "-N", "-V"],
                          capture_output=True, text=True, check=True).stdout
    cmds = [shlex.split(line.split("Test command: ", 1)[1]) for line in text.splitlines()
            if "Test command: " in line]
    names = re.findall(r"Test +#\d+: (\S+)", text)
    return list(zip(names, cmds))


def main():
    if len(sys.argv) < 4:
        print("usage: ab.py BUILD A B [EXTRA.json ...]", file=sys.stderr)
        return 2
    build, a, b, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    print("| ctest | A | B | limit | B passes |\n|---|---|---|---|---|")
    for name, cmd in ctests(build):
        i = cmd.index("--fail-above-median")
        limit = float(cmd[i + 1])
        base = cmd[:i] + cmd[i + 2:]
        j = base.index("--iosim")
        ra = medians(base[:j + 1] + [a] + base[j + 2:])["all"]
        rb = medians(base[:j + 1] + [b] + base[j + 2:])["all"]
        print(f"| {name} | {ra:.1f}% | {rb:.1f}% | {limit} | {'yes' if rb <= limit else 'NO'} |",
              flush=True)
    for path in extra:
        cmd = [sys.executable, "scripts/time-validation.py", path, "--config", "configs/h100.yaml", "--iosim"]
        ra, rb = medians(cmd + [a]), medians(cmd + [b])
        print(f"\n{path}\n\n| kernels | A | B |\n|---|---|---|")
        for k in ra:
            print(f"| {k} | {ra[k]:.1f}% | {rb.get(k, float('nan')):.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
