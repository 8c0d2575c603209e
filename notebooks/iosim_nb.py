"""What the notebooks share: find the iosim program, run it, read its JSON (docs/json-schema.md).

    import iosim_nb as nb
    out = nb.run("--config", "a100.yaml", "--n", "4096", "--d", "64")   # iosim ... --format json
    rows = nb.run_csv("tiles", "--config", "h200.yaml", "--n", "8192", "--d", "64")

The program is looked for in this order: the environment variable IOSIM_BIN, build/iosim and
build-ci/iosim beside this folder, then `iosim` on PATH.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parent
REPO = NOTEBOOKS.parent


class IosimError(RuntimeError):
    """iosim could not be found, or exited with an error."""


def binary() -> Path:
    """The iosim program to run (see the module's docstring for the search order)."""
    env = os.environ.get("IOSIM_BIN")
    if env:
        path = Path(env)
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise IosimError(f"IOSIM_BIN={env} is not an executable file")
        return path
    for candidate in (REPO / "build" / "iosim", REPO / "build-ci" / "iosim"):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    on_path = shutil.which("iosim")
    if on_path:
        return Path(on_path)
    raise IosimError(
        "iosim not found: set IOSIM_BIN, or build it (cmake -S . -B build && cmake --build build --target iosim)"
    )


def _run(args: tuple[str, ...], fmt: str) -> str:
    cmd = [str(binary()), *map(str, args), "--format", fmt]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise IosimError(f"{' '.join(cmd)} exited with {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def run(*args: str | int | float) -> dict[str, Any]:
    """Run `iosim ARGS --format json` and return its JSON object; raise IosimError on failure."""
    return json.loads(_run(tuple(map(str, args)), "json"))


def run_csv(*args: str | int | float) -> list[dict[str, str]]:
    """Run `iosim ARGS --format csv` and return its rows (values are strings)."""
    return list(csv.DictReader(io.StringIO(_run(tuple(map(str, args)), "csv"))))


def config_value(path: str | Path, key: str) -> float:
    """A number from a hardware config, as `section.key` (e.g. "peak.tensor_fp16_tflops").

    The configs are two-level YAML maps (docs/configs.md); this reads that shape only, so that the
    notebooks need no YAML library.
    """
    section, name = key.split(".")
    current = None
    for raw in Path(path).read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        if not line.startswith(" "):
            current = line.rstrip(":").strip()
        elif current == section:
            k, _, v = line.strip().partition(":")
            if k == name:
                return float(v)
    raise KeyError(f"{key} not in {path}")


def show() -> None:
    """plt.show(); under a non-interactive backend (the tests set MPLBACKEND=Agg) draw the figures
    instead, so that a plotting error still fails the run, and close them."""
    import matplotlib
    import matplotlib.pyplot as plt

    if matplotlib.get_backend().lower() == "agg":
        for num in plt.get_fignums():
            plt.figure(num).canvas.draw()
        plt.close("all")
    else:
        plt.show()
