#!/usr/bin/env python3
"""`iosim sweep SPEC -o OUT --engine ray`: a sweep's points as Ray tasks (docs/sweeps.md).

`iosim sweep` starts this driver after checking SPEC; it can also be run by hand:

    scripts/sweep-ray.py --iosim build/iosim --spec SPEC.yaml --out OUT.jsonl [--address ADDR] [--workers N]

1. `iosim sweep SPEC -o OUT --pending`: the points not yet in OUT (cutting an incomplete last line that a
   killed run left), checked, as i:j ranges of the canonical order.
2. Those points dealt into chunks; each chunk one Ray task that runs `iosim sweep SPEC --points LIST -o -`
   and returns its records (bytes). At most --workers tasks run at once.
3. Each finished chunk's records are appended to OUT at once (a kill keeps what finished: run again to
   resume), then `iosim sweep merge OUT -o OUT` puts OUT in the canonical order, so that it is byte for
   byte what the serial run writes.

On a cluster, every node must see the iosim binary, SPEC and the configs at the same paths (a shared
file system or one image); the tasks run in this driver's working directory when the node has it.
Bad input: one line on stderr, exit 2. A failing task: its own error line, and its exit code.
"""
import argparse
import os
import socket
import subprocess
import sys

INSTALL = "pip install ray (or scripts/setup --ray)"


def fail(message, code=2):
    print(f"iosim: error: {message}", file=sys.stderr)
    sys.exit(code)


class Args(argparse.ArgumentParser):
    def error(self, message):  # one line and exit 2, as iosim does
        fail(f"sweep-ray.py: {message}")


def parse_ranges(text):
    """ "0:3,7" → [0, 1, 2, 7] (as `iosim sweep --pending` writes them)."""
    out = []
    for item in filter(None, text.strip().split(",")):
        a, _, b = item.partition(":")
        out.extend(range(int(a), int(b)) if b else [int(a)])
    return out


def as_ranges(indices):
    out, k = [], 0
    while k < len(indices):
        j = k + 1
        while j < len(indices) and indices[j] == indices[j - 1] + 1:
            j += 1
        out.append(str(indices[k]) if j - k == 1 else f"{indices[k]}:{indices[j - 1] + 1}")
        k = j
    return ",".join(out)


def last_line(data):
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""


def reachable(address, seconds=10):
    """Fails (one line, exit 2) unless HOST:PORT (or ray://HOST:PORT) accepts a connection."""
    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        fail(f"--ray-address must be HOST:PORT, ray://HOST:PORT or auto (got '{address}')")
    try:
        socket.create_connection((host, int(port)), timeout=seconds).close()
    except OSError as e:
        fail(f"--ray-address {address}: no Ray cluster answers there ({e}); start one with ray start --head")


def iosim(cmd):
    """Runs iosim here; on failure forwards its one-line error and exits with its code."""
    p = subprocess.run(cmd, capture_output=True)
    if p.returncode != 0:
        print(last_line(p.stderr) or f"iosim: error: {' '.join(cmd)} exited {p.returncode}", file=sys.stderr)
        sys.exit(p.returncode)
    return p.stdout


def main():
    ap = Args(description=__doc__.splitlines()[0])
    ap.add_argument("--iosim", required=True, help="the iosim program")
    ap.add_argument("--spec", required=True, help="the sweep file")
    ap.add_argument("--out", required=True, help="the records file (resumed when it exists)")
    ap.add_argument("--address", default="", help="a running Ray cluster (default: start a local runtime)")
    ap.add_argument("--workers", type=int, default=0, help="tasks at once (default: the cluster's CPUs)")
    ap.add_argument("--chunk", type=int, default=0, help="points per task (default: about 4 tasks per worker)")
    ap.add_argument("--max-time", default="")
    ap.add_argument("--max-memory", default="")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if a.workers < 0 or a.chunk < 0:
        fail("sweep-ray.py: --workers and --chunk must be positive")
    try:
        import ray
    except ImportError as e:
        fail(f"--engine ray needs Ray for Python ({e}): {INSTALL}")

    limits = ((["--max-time", a.max_time] if a.max_time else [])
              + (["--max-memory", a.max_memory] if a.max_memory else []))
    base = [a.iosim, "sweep", a.spec] + limits
    pending = parse_ranges(iosim(base + ["-o", a.out, "--pending"]).decode())
    done = 0
    if pending:
        env = {k: v for k, v in os.environ.items() if k.startswith("IOSIM_")}
        if a.address and a.address != "auto":
            reachable(a.address)  # Ray itself retries an unreachable address for minutes
        try:
            if a.address:
                ray.init(address=a.address, runtime_env={"env_vars": env} if env else None,
                         logging_level="ERROR", log_to_driver=False)
            else:
                ray.init(num_cpus=a.workers or os.cpu_count() or 1, include_dashboard=False,
                         object_store_memory=128 << 20, logging_level="ERROR", log_to_driver=False)
        except Exception as e:  # an address with no cluster behind it, a runtime that cannot start
            where = f"the cluster at {a.address}" if a.address else "a local Ray runtime"
            fail(f"--engine ray: cannot start or reach {where}: {' '.join(str(e).split())[:300]}",
                 2 if a.address else 1)
        workers = a.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        chunk = a.chunk or max(1, -(-len(pending) // (4 * workers)))
        n_chunks = -(-len(pending) // chunk)
        # Dealt round robin: neighbours in the canonical order (often similar cost) go to different tasks.
        chunks = [pending[c::n_chunks] for c in range(n_chunks)]
        cwd = os.getcwd()

        @ray.remote(num_cpus=1)
        def run_points(cmd, cwd):
            try:
                p = subprocess.run(cmd, capture_output=True, cwd=cwd if os.path.isdir(cwd) else None)
            except OSError as e:  # no iosim at that path on this node
                return 127, b"", f"iosim: error: a Ray task cannot run {cmd[0]}: {e}\n".encode()
            return p.returncode, p.stdout, p.stderr

        todo = list(range(n_chunks))
        running = {}
        with open(a.out, "ab") as out:
            while todo or running:
                while todo and len(running) < workers:
                    c = todo.pop(0)
                    cmd = base + ["--points", as_ranges(chunks[c]), "-o", "-", "--quiet"]
                    running[run_points.remote(cmd, cwd)] = c
                ready, _ = ray.wait(list(running), num_returns=1)
                c = running.pop(ready[0])
                rc, stdout, stderr = ray.get(ready[0])
                if rc != 0:
                    for r in running:
                        ray.cancel(r, force=True)
                    print(last_line(stderr) or f"iosim: error: a sweep task exited {rc}", file=sys.stderr)
                    sys.exit(rc)
                records = stdout.count(b"\n")
                if records != len(chunks[c]) or not stdout.endswith(b"\n"):
                    fail(f"a sweep task returned {records} records for {len(chunks[c])} points", 1)
                out.write(stdout)
                out.flush()
                os.fsync(out.fileno())
                done += len(chunks[c])
        ray.shutdown()
    open(a.out, "ab").close()  # a sweep with nothing to run still leaves its (empty) file
    iosim([a.iosim, "sweep", "merge", a.out, "-o", a.out])
    if not a.quiet:
        print(f"sweep: {done} points run as Ray tasks; {a.out} merged", file=sys.stderr)


if __name__ == "__main__":
    main()
