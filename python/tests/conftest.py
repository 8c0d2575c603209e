"""What the package's tests share: the iosim program to compare with, and the same search folders for
both (configs/ and scenarios/ of this checkout), so that config.file reads the same in both outputs.

The program is IOSIM_BIN, else build/iosim or build-ci/iosim of this checkout; none is an error, not a
skip (the equality with the program is what these tests are for)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def _binary() -> Path:
    env = os.environ.get("IOSIM_BIN")
    candidates = [Path(env)] if env else [REPO / "build" / "iosim", REPO / "build-ci" / "iosim"]
    for c in candidates:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    raise pytest.UsageError(f"no iosim program to compare with: looked for {', '.join(map(str, candidates))} "
                            "(build it, or set IOSIM_BIN)")


BIN = _binary()
os.environ["IOSIM_CONFIG_DIR"] = str(REPO / "configs")
os.environ["IOSIM_SCENARIO_DIR"] = str(REPO / "scenarios")


def argv(keywords: dict[str, Any]) -> list[str]:
    """The keywords of a package call as the program's flags: n_kv=4 is --n-kv 4, pass_="bwd" is
    --pass bwd, a list is comma-separated, True a switch."""
    out = []
    for key, value in keywords.items():
        flag = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, ",".join(map(str, value))]
        else:
            out += [flag, str(value)]
    return out


class Cli:
    """Runs the program in this checkout's root, as the package runs (same working directory)."""

    def run(self, args: list[str]) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN), *args], capture_output=True, text=True, check=False, cwd=REPO)

    def json(self, args: list[str]) -> Any:
        proc = self.run([*args, "--format", "json"])
        assert proc.returncode in (0, 1), proc.stderr
        return json.loads(proc.stdout)

    def error(self, args: list[str]) -> str:
        """The one line the program prints on stderr, less "iosim: error: ", for input it refuses."""
        proc = self.run(args)
        assert proc.returncode == 2, (proc.returncode, proc.stdout[:200])
        line = proc.stderr.rstrip("\n")
        assert "\n" not in line and line.startswith("iosim: error: "), proc.stderr
        return line.removeprefix("iosim: error: ")


@pytest.fixture(scope="session")
def cli() -> Cli:
    return Cli()


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def pytest_report_header() -> list[str]:
    import iosim

    return [f"iosim {iosim.__version__} from {Path(iosim.__file__).parent}; the program {BIN}"]
