#!/usr/bin/env python3
"""Progress on stderr only when it is a terminal, and never with --quiet; stdout the same either way.

Usage: progress_tty.py IOSIM_BINARY. Runs `iosim tiles` (a few seconds of work) three times:
stderr on a pseudo-terminal, stderr to a file, and on the pseudo-terminal with --quiet.
"""
import os
import subprocess
import sys
import tempfile

# Long enough (7 s of CPU here, 2026-12-01, after shared replays made n 16384 take 1.9 s) that the
# progress line, shown after a second, appears.
ARGS = ["tiles", "-c", "h200", "--n", "32768", "--d", "128", "--heads", "8", "-f", "csv"]


def run_on_pty(cmd):
    master, slave = os.openpty()
    with tempfile.TemporaryFile() as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=slave, stdin=subprocess.DEVNULL)
        os.close(slave)
        err = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed its end
                break
            if not chunk:
                break
            err += chunk
        code = p.wait()
        os.close(master)
        out.seek(0)
        return code, out.read(), err.decode("utf-8", "replace")


def main():
    binary = sys.argv[1]
    failures = []
    code, out_tty, err_tty = run_on_pty([binary] + ARGS)
    if code != 0:
        failures.append(f"tty run exited {code}: {err_tty!r}")
    if "tiles: candidates:" not in err_tty or "ETA" not in err_tty:
        failures.append(f"no progress on the terminal: {err_tty!r}")
    if not err_tty.endswith("\r\x1b[K"):
        failures.append(f"the progress line was not cleared at the end: {err_tty[-80:]!r}")
    with tempfile.TemporaryFile() as err_file:
        p = subprocess.run([binary] + ARGS, stdout=subprocess.PIPE, stderr=err_file, check=False)
        err_file.seek(0)
        err_plain = err_file.read()
    if p.returncode != 0 or err_plain:
        failures.append(f"stderr to a file: exit {p.returncode}, stderr {err_plain!r} (expected nothing)")
    if p.stdout != out_tty:
        failures.append("stdout differs between stderr on a terminal and stderr to a file")
    code, out_quiet, err_quiet = run_on_pty([binary] + ARGS + ["--quiet"])
    if code != 0 or err_quiet:
        failures.append(f"--quiet on a terminal: exit {code}, stderr {err_quiet!r} (expected nothing)")
    if out_quiet != out_tty:
        failures.append("stdout differs with --quiet")
    for f in failures:
        print("FAIL:", f)
    if not failures:
        print("progress: shown on a terminal, cleared at the end; none to a file or with --quiet; stdout unchanged")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
