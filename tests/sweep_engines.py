#!/usr/bin/env python3
"""`iosim sweep` as separate processes, as a Slurm array and a Ray cluster run it (docs/sweeps.md):

1. a serial run; 3 shards (--shard k/3) merged: the serial file, byte for byte;
2. a run killed (SIGKILL) part way, run again: the serial file;
3. --engine ray with a local runtime of 2 workers: the serial file; and again on a file that holds
   some records out of order and an incomplete last line: the serial file;
4. Ray missing (an `import ray` that fails), no Python, or an address with no cluster: one line on
   stderr, exit 2;
5. two runs started at once on one file: one writes it, the other is refused (or both finish one
   after the other), never a record twice; a file whose lock another process holds: refused, or
   waited for with --wait.

Usage: sweep_engines.py BUILD/iosim. Exit 77 (ctest: skipped) when Ray is not installed, unless CI is set.
"""
import fcntl
import os
import signal
import subprocess
import sys
import tempfile
import time

SPEC = """description: the test sweep of tests/sweep_engines.py
sweeps:
  - hardware: [teaching, a100]
    problems:
      - {n: [256, 1024], d: 64, mask: [none, causal]}
      - {n: 512, d: 64, heads: 4, kv_heads: 2, pass: [fwd, bwd]}
    schedules: [naive, flash2]
    tiles: [default, 16x16]
  - hardware: a100
    problems: [{n: [1024, 2048], d: [64, 128], heads: 2}]
    schedules: [flash1, flash2]
    predict: true
"""

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def run(args, env=None, check_rc=True):
    p = subprocess.run(args, capture_output=True, env=env, timeout=300)
    if check_rc and p.returncode != 0:
        print(f"FAIL  {' '.join(args)} exited {p.returncode}: {p.stderr.decode()}")
        sys.exit(1)
    return p


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    iosim = os.path.abspath(sys.argv[1])
    try:
        import ray  # noqa: F401
        have_ray = True
    except ImportError:
        have_ray = False
    env = dict(os.environ, IOSIM_PYTHON=sys.executable)

    with tempfile.TemporaryDirectory(prefix="iosim-sweep-") as tmp:
        spec = os.path.join(tmp, "spec.yaml")
        with open(spec, "w") as f:
            f.write(SPEC)
        out = lambda name: os.path.join(tmp, name)  # noqa: E731

        t0 = time.time()
        run([iosim, "sweep", spec, "-o", out("serial.jsonl"), "-q"])
        serial = read(out("serial.jsonl"))
        count = serial.count(b"\n")
        print(f"      serial: {count} records, {time.time() - t0:.1f} s")
        check(count == 56, "the spec has 48 + 8 points")

        for k in range(3):
            run([iosim, "sweep", spec, "-o", out(f"shard{k}.jsonl"), "--shard", f"{k}/3", "-q"])
        run([iosim, "sweep", "merge"] + [out(f"shard{k}.jsonl") for k in (1, 2, 0)] + ["-o", out("shards.jsonl")])
        check(read(out("shards.jsonl")) == serial, "3 shards merged: the serial records, byte for byte")

        # Killed for real once a record is written (the predicted points take a while), then resumed.
        p = subprocess.Popen([iosim, "sweep", spec, "-o", out("killed.jsonl"), "-q"])
        deadline = time.time() + 30
        while time.time() < deadline and p.poll() is None:
            if os.path.exists(out("killed.jsonl")) and os.path.getsize(out("killed.jsonl")) > 0:
                break
            time.sleep(0.005)
        killed = p.poll() is None
        if killed:
            p.send_signal(signal.SIGKILL)
        p.wait()
        left = read(out("killed.jsonl")).count(b"\n")
        print(f"      killed: {killed}, with {left} of {count} records written")
        run([iosim, "sweep", spec, "-o", out("killed.jsonl"), "-q"])
        check(read(out("killed.jsonl")) == serial, "a killed run, run again: the serial records")

        # Two runs at once on one file: one holds the file's lock, the other is refused with one line
        # (or starts after the first has finished, and finds nothing to run); never a record twice.
        both = [subprocess.Popen([iosim, "sweep", spec, "-o", out("twice.jsonl"), "-q"], stderr=subprocess.PIPE)
                for _ in range(2)]
        results = [(p.wait(timeout=300), p.stderr.read().decode()) for p in both]
        codes = sorted(c for c, _ in results)
        refused = [e for c, e in results if c == 2]
        check(codes in ([0, 0], [0, 2]) and all(e.count("\n") == 1 and "another iosim sweep is writing it" in e
                                                for e in refused),
              f"two runs at once: one runs, the other is refused in one line ({results})")
        check(read(out("twice.jsonl")) == serial, "two runs at once: every record once, the serial records")

        # A file whose lock another process holds: refused at once; with --wait, run once it is let go.
        with open(out("held.jsonl"), "wb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            p = run([iosim, "sweep", spec, "-o", out("held.jsonl")], check_rc=False)
            err = p.stderr.decode()
            check(p.returncode == 2 and err.count("\n") == 1 and "another iosim sweep is writing it" in err,
                  f"a held file: exit 2 and one line ({p.returncode}: {err.strip()})")
            waiting = subprocess.Popen([iosim, "sweep", spec, "-o", out("held.jsonl"), "--wait", "-q"])
            time.sleep(1)
            check(waiting.poll() is None, "--wait: still waiting while the lock is held")
        code = waiting.wait(timeout=300)
        check(code == 0 and read(out("held.jsonl")) == serial, "--wait: runs once the lock is let go")

        # Special files: a FIFO blocks an open for ever, /dev/zero never ends; both are refused at once.
        fifo = out("fifo")
        os.mkfifo(fifo)
        for args in (["sweep", spec, "-o", fifo], ["sweep", fifo, "--list"], ["sweep", "merge", fifo, "-o", "-"],
                     ["sweep", spec, "-o", "/dev/zero"], ["sweep", spec, "-o", "/dev/full", "--pending"],
                     ["sweep", "merge", "/dev/urandom", "-o", out("m.jsonl")]):
            try:
                p = subprocess.run([iosim] + args, capture_output=True, timeout=20)
                err = p.stderr.decode()
                ok = p.returncode == 2 and err.count("\n") == 1 and "not a regular file" in err and not p.stdout
                check(ok, f"{' '.join(args)}: exit 2 and one line ({p.returncode}: {err.strip()})")
            except subprocess.TimeoutExpired:
                check(False, f"{' '.join(args)}: hangs (killed after 20 s)")

        # Ray missing: an `import ray` that fails, ahead of the real one on the path.
        fake = os.path.join(tmp, "fake")
        os.makedirs(fake)
        with open(os.path.join(fake, "ray.py"), "w") as f:
            f.write("raise ImportError('No module named ray (a test stand-in)')\n")
        p = run([iosim, "sweep", spec, "-o", out("noray.jsonl"), "--engine", "ray"],
                env=dict(env, PYTHONPATH=fake), check_rc=False)
        err = p.stderr.decode()
        check(p.returncode == 2 and err.count("\n") == 1 and "pip install ray" in err,
              f"Ray missing: exit 2 and one line naming the install ({p.returncode}: {err.strip()})")
        p = run([iosim, "sweep", spec, "-o", out("noray.jsonl"), "--engine", "ray"],
                env=dict(env, IOSIM_PYTHON=os.path.join(tmp, "no-python")), check_rc=False)
        err = p.stderr.decode()
        check(p.returncode == 2 and err.count("\n") == 1 and "pip install" in err,
              f"no Python: exit 2 and one line ({p.returncode}: {err.strip()})")

        if not have_ray:
            print("Ray is not installed (scripts/setup --ray): the Ray runs are not tested")
            if os.environ.get("CI"):
                failures.append("Ray missing under CI")
            else:
                return 77 if not failures else 1

        if have_ray:
            p = run([iosim, "sweep", spec, "-o", out("noray.jsonl"), "--engine", "ray", "--ray-address", "127.0.0.1:1"],
                    env=env, check_rc=False)
            err = p.stderr.decode()
            check(p.returncode == 2 and err.count("\n") == 1 and "no Ray cluster answers" in err,
                  f"an address with no cluster: exit 2 and one line ({p.returncode}: {err.strip()})")
            t0 = time.time()
            run([iosim, "sweep", spec, "-o", out("ray.jsonl"), "--engine", "ray", "--workers", "2", "-q"], env=env)
            print(f"      ray: {time.time() - t0:.1f} s")
            check(read(out("ray.jsonl")) == serial, "Ray, 2 local workers: the serial records, byte for byte")

            lines = serial.splitlines(keepends=True)
            with open(out("ray-resume.jsonl"), "wb") as f:
                f.write(b"".join(lines[40:44] + lines[3:9]) + lines[20][:50])  # out of order, cut off
            run([iosim, "sweep", spec, "-o", out("ray-resume.jsonl"), "--engine", "ray", "--workers", "2", "-q"],
                env=env)
            check(read(out("ray-resume.jsonl")) == serial,
                  "Ray resuming a partial, unordered, cut file: the serial records")

    if failures:
        print(f"{len(failures)} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
