#!/usr/bin/env python3
"""Run a notebook top to bottom, and check that its committed outputs came from its committed code.

    python3 notebooks/run_notebook.py notebooks/01-why-attention-is-io-bound.ipynb           # check (the tests)
    python3 notebooks/run_notebook.py --write notebooks/01-why-attention-is-io-bound.ipynb   # re-execute in place

The notebooks are committed with their outputs, so that a reader sees the figures without running anything.
`--write` (scripts/run-notebooks) executes a notebook from scratch, stores the outputs, records in its
metadata `iosim` the version of the package iosim the notebooks import ("iosim " + iosim.__version__,
what `iosim --version` prints) and a SHA-256 of the code that made them (the code cells and iosim_nb.py),
and exports one figure to notebooks/img/NAME.png for the README: the first figure of the cell tagged
`readme-figure`, else the notebook's first figure.

The check (the default) fails, saying what to run, when the recorded version or hash is not today's, when a
cell fails, when a cell that had figures does not draw as many again, when a text output differs from the
committed one (for a cell tagged `rounding-level`: but for numbers within a factor of 2, see
ROUNDING_TAG), or when notebooks/img/NAME.png is not the notebook's figure. The file is not modified.
Paths inside the repository are written relative to it in the text outputs, so that they compare equal
on any checkout.
The notebook runs in a kernel named python3 with notebooks/ as its working directory, figures inline,
and imports the package iosim that this script imports (PYTHONPATH is passed on: build/python of a
build with -DIOSIM_PYTHON=ON, else the installed package), which finds configs by name in this
checkout's configs/ ($IOSIM_CONFIG_DIR), so that the outputs do not depend on where it is installed.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import os
import re
import sys
import time
from pathlib import Path

REQUIRED = ["numpy", "matplotlib", "nbformat", "nbclient", "ipykernel"]   # notebooks/requirements.txt
CELL_TIMEOUT_S = 120
HERE = Path(__file__).resolve().parent
IMG = HERE / "img"


def code_hash(nb) -> str:
    """SHA-256 of the code cells' sources, in order, and of iosim_nb.py, which they import."""
    h = hashlib.sha256()
    for c in nb.cells:
        if c.cell_type == "code":
            h.update(c.source.encode("utf-8") + b"\0")
    h.update((HERE / "iosim_nb.py").read_bytes())
    return h.hexdigest()


def iosim_version() -> str | None:
    """What `iosim --version` prints, from the package the notebooks import; None if there is none."""
    try:
        import iosim
    except ImportError:
        return None
    return f"iosim {iosim.__version__}"


def relative_paths(nb) -> None:
    """Paths inside the repository, in text outputs, written relative to it: the outputs then read the
    same on every checkout (iosim's JSON names its config file by its full path)."""
    root = str(HERE.parent) + os.sep
    for c in nb.cells:
        for o in c.get("outputs", []) if c.cell_type == "code" else []:
            if o.get("output_type") == "stream":
                o["text"] = o["text"].replace(root, "")
            elif "text/plain" in o.get("data", {}):
                o["data"]["text/plain"] = o["data"]["text/plain"].replace(root, "")


def clear(nb) -> None:
    for c in nb.cells:
        if c.cell_type == "code":
            c.outputs = []
            c.execution_count = None
            c.metadata.pop("execution", None)  # timings: they would change the file on every run


def texts(cell) -> list[str]:
    """A cell's text outputs: printed streams and plain-text results (figures and HTML left out).
    Consecutive chunks of one stream are one text: how the kernel splits a cell's prints into chunks
    depends on when they are flushed, which a loaded machine changes."""
    out = []
    stream = None
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            if stream == o["name"]:
                out[-1] += o["text"]
            else:
                out.append(f"{o['name']}: {o['text']}")
            stream = o["name"]
        elif "text/plain" in o.get("data", {}) and not any(k.startswith("image/") for k in o["data"]):
            out.append(o["data"]["text/plain"])
            stream = None
    return ["".join(out)]


# A cell tagged `rounding-level` prints errors at the level of floating-point rounding (an fp64 execution's
# relative error, 1e-16): their last digits depend on the machine's libm (glibc picks exp and log by CPU),
# not on the code. Its text compares equal when it is the same but for its numbers, each integer (a count)
# is the committed one and each other number within a factor of 2 of it (the order of magnitude is what
# such a cell shows).
ROUNDING_TAG = "rounding-level"
_INTEGER = re.compile(r"[-+]?\d+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")  # not inside a name


def same_at_rounding_level(old: list[str], new: list[str]) -> bool:
    if len(old) != len(new):
        return False
    for a, b in zip(old, new):
        if _NUMBER.sub("#", a) != _NUMBER.sub("#", b):
            return False
        for sx, sy in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            if _INTEGER.fullmatch(sx) or _INTEGER.fullmatch(sy):  # a count: exactly
                if sx != sy:
                    return False
                continue
            x, y = float(sx), float(sy)
            if (x == 0) != (y == 0) or (x != 0 and not 0.5 <= y / x <= 2):
                return False
    return True


def images(cell) -> list[str]:
    return [o["data"]["image/png"] for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]


def figure(nb) -> str | None:
    """The README's figure (base64 PNG): the tagged cell's first, else the notebook's first."""
    tagged = [c for c in nb.cells if c.cell_type == "code" and "readme-figure" in c.metadata.get("tags", [])]
    for c in tagged + [c for c in nb.cells if c.cell_type == "code"]:
        if images(c):
            return images(c)[0]
    return None


def execute(nb, name: str) -> str | None:
    """Runs every cell; returns None, or why it failed."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    os.environ.pop("MPLBACKEND", None)  # the inline backend, so that figures become outputs
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(HERE)}})
    try:
        client.execute()
    except CellExecutionError as e:
        failed = next((i for i, c in enumerate(nb.cells)
                       if any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        where = f"cell {failed}" if failed is not None else "a cell"
        detail = "" if e.ename == "Error" else re.sub(r"\x1b\[[0-9;]*m", "", str(e)) + "\n"   # iosim.Error: one line
        return f"{detail}{name}: {where} failed: {e.ename}: {e.evalue}"
    except CellTimeoutError as e:
        return f"{name}: a cell ran longer than {CELL_TIMEOUT_S} s\n{e}"
    except DeadKernelError as e:
        return f"{name}: the kernel died: {e}"
    return None


def compare(committed, ran, name: str) -> list[str]:
    """Where the fresh run's outputs differ from the committed ones."""
    problems = []
    code = [(i, c) for i, c in enumerate(committed.cells) if c.cell_type == "code"]
    fresh = [c for c in ran.cells if c.cell_type == "code"]
    for (i, old), new in zip(code, fresh):
        if any(o.get("output_type") == "error" for o in old.outputs):
            problems.append(f"cell {i}: committed with an error")
        if len(images(old)) != len(images(new)):
            problems.append(f"cell {i}: {len(images(new))} figures now, {len(images(old))} committed")
        rounded = ROUNDING_TAG in old.get("metadata", {}).get("tags", [])
        same = same_at_rounding_level(texts(old), texts(new)) if rounded else texts(old) == texts(new)
        if not same:
            problems.append(f"cell {i}: its text output differs from the committed one")
    return problems


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if a != "--write"]
    write = "--write" in argv[1:]
    if len(args) != 1:
        print("usage: run_notebook.py [--write] NOTEBOOK.ipynb", file=sys.stderr)
        return 2
    for module in REQUIRED:
        try:
            importlib.import_module(module)
        except ImportError:
            print(f"run_notebook.py: Python package '{module}' is missing: run scripts/setup --notebooks "
                  f"(installs notebooks/requirements.txt)", file=sys.stderr)
            return 1

    import nbformat
    # Names (config="a100") found in this checkout's configs/, whichever package is imported: the
    # outputs print the config's path, which then reads the same for an installed package.
    os.environ["IOSIM_CONFIG_DIR"] = str(HERE.parent / "configs")
    os.environ["IOSIM_SCENARIO_DIR"] = str(HERE.parent / "scenarios")
    version = iosim_version()
    if version is None:
        print("run_notebook.py: the Python package 'iosim' is missing: pip install . (after scripts/setup --python), "
              "or build with -DIOSIM_PYTHON=ON and put build/python on PYTHONPATH", file=sys.stderr)
        return 1

    path = Path(args[0]).resolve()
    if not path.is_file():
        print(f"run_notebook.py: {args[0]}: no such notebook", file=sys.stderr)
        return 2
    name = path.name
    committed = nbformat.read(path, as_version=4)
    digest = code_hash(committed)
    again = f"run scripts/run-notebooks {path.stem} and commit the result"
    if not write:
        recorded = committed.metadata.get("iosim", {})
        if recorded.get("code_sha256") != digest:
            print(f"{name}: its outputs are not from its code (the code cells or iosim_nb.py changed): {again}",
                  file=sys.stderr)
            return 1
        if recorded.get("version") != version:
            print(f"{name}: its outputs are from {recorded.get('version', 'no recorded iosim')}, this is {version}: "
                  f"{again}", file=sys.stderr)
            return 1

    nb = nbformat.from_dict(committed)
    clear(nb)
    start = time.monotonic()
    failure = execute(nb, name)
    if failure:
        print(failure, file=sys.stderr)
        return 1
    took = time.monotonic() - start
    relative_paths(nb)
    png = figure(nb)
    if png is None:
        print(f"{name}: draws no figure", file=sys.stderr)
        return 1
    image = IMG / f"{path.stem}.png"
    if write:
        nb.metadata["iosim"] = {"version": version, "code_sha256": digest}
        nbformat.write(nb, path)
        IMG.mkdir(exist_ok=True)
        image.write_bytes(base64.b64decode(png))
        print(f"{name}: executed in {took:.1f} s and written with its outputs; figure {image.relative_to(HERE.parent)}")
        return 0
    problems = compare(committed, nb, name)
    committed_png = figure(committed)
    if not image.is_file() or committed_png is None or image.read_bytes() != base64.b64decode(committed_png):
        problems.append(f"{image.relative_to(HERE.parent)} is not the notebook's committed figure")
    for p in problems:
        print(f"{name}: {p}", file=sys.stderr)
    if problems:
        print(f"{name}: {again}", file=sys.stderr)
        return 1
    print(f"{name}: {sum(c.cell_type == 'code' for c in nb.cells)} code cells ran without error in {took:.1f} s; "
          f"outputs match the committed ones ({version})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
