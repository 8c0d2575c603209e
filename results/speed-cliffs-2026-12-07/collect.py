"""Every iosim command line the measured-data ctests run, without running iosim: each test's script is
imported and run with its subprocess.run replaced by a recorder (JSON lines: test, argv).

    python3 collect.py BUILD_DIR OUT.jsonl

The --uncalibrated tests' configs are written beside OUT (in uncalibrated/), not to a temporary folder,
so that the commands can be run afterwards.
"""
import importlib.util
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path


def tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "-L", "measured-data", "-N", "-V"],
                         capture_output=True, text=True, check=True).stdout
    commands = dict(re.findall(r"^(\d+): Test command: (.*)$", out, re.M))
    for number, name in re.findall(r"^\s*Test\s+#(\d+): (\S+)", out, re.M):
        yield name, shlex.split(commands[number])


def collect(name, argv, sink, keep):
    script = argv[1]
    spec = importlib.util.spec_from_file_location(Path(script).stem.replace("-", "_"), script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    def run(cmd, **_):
        sink.append({"test": name, "argv": [str(c) for c in cmd]})
        if "tiles" in cmd:  # triton-compare.py: a menu that ranks nothing, so that it goes on to the next shape
            return subprocess.CompletedProcess(cmd, 0, '{"candidates": []}', "")
        return subprocess.CompletedProcess(cmd, 1, "", "not run: collect.py")  # refused: the next run is asked

    mod.subprocess = type("S", (), {"run": staticmethod(run), "CompletedProcess": subprocess.CompletedProcess})
    mod.tempfile = type("T", (), {"TemporaryDirectory": lambda: type("D", (), {"name": keep})})
    mod.concurrent = type("C", (), {"futures": type("F", (), {"ThreadPoolExecutor": Pool})})
    sys.argv = argv[1:]
    try:
        mod.main()
    except Exception:  # noqa: BLE001 -- the report after the runs has nothing to read: the commands are all in
        pass


class Pool:
    """The scripts' thread pool, run in turn, a run that fails as None: every run is asked for."""

    def __init__(self, _jobs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *_):
        return False

    @staticmethod
    def map(f, xs):
        out = []
        for x in xs:
            try:
                out.append(f(x))
            except Exception:  # noqa: BLE001 -- the stub's output parses as nothing
                out.append(None)
        return out


def main():
    build, out = sys.argv[1], sys.argv[2]
    sink = []
    keep = Path(out).resolve().parent / "uncalibrated"
    keep.mkdir(exist_ok=True)
    for name, argv in tests(build):
        collect(name, argv, sink, str(keep))
    with open(out, "w") as f:
        for r in sink:
            f.write(json.dumps(r) + "\n")
    print(f"{len(sink)} iosim commands from {len({r['test'] for r in sink})} tests")


if __name__ == "__main__":
    main()
