#!/usr/bin/env python3
"""Execute one notebook top to bottom; exit 1 on the first error (the test suite runs each notebook so).

    python3 notebooks/run_notebook.py notebooks/01-why-attention-is-io-bound.ipynb

The notebook runs in a kernel named python3 with notebooks/ as its working directory. Outputs are kept in
memory only: the file on disk is not modified.
"""

from __future__ import annotations

import importlib
import re
import sys
import time
from pathlib import Path

REQUIRED = ["numpy", "matplotlib", "nbformat", "nbclient", "ipykernel"]   # notebooks/requirements.txt
CELL_TIMEOUT_S = 120


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: run_notebook.py NOTEBOOK.ipynb", file=sys.stderr)
        return 2
    for module in REQUIRED:
        try:
            importlib.import_module(module)
        except ImportError:
            print(f"run_notebook.py: Python package '{module}' is missing: run scripts/setup --notebooks "
                  f"(installs notebooks/requirements.txt)", file=sys.stderr)
            return 1

    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    import iosim_nb
    try:
        iosim_nb.binary()
    except iosim_nb.IosimError as e:
        print(f"run_notebook.py: {e}", file=sys.stderr)
        return 1

    path = Path(argv[1]).resolve()
    if not path.is_file():
        print(f"run_notebook.py: {argv[1]}: no such notebook", file=sys.stderr)
        return 2
    nb = nbformat.read(path, as_version=4)
    if any(c.cell_type == "code" and (c.outputs or c.execution_count) for c in nb.cells):
        print(f"{path.name}: saved with outputs; clear them before committing (Jupyter: Edit → Clear Outputs "
              f"of All Cells)", file=sys.stderr)
        return 1
    client = NotebookClient(nb, timeout=CELL_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(Path(__file__).resolve().parent)}})
    start = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        failed = next((i for i, c in enumerate(nb.cells)
                       if any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        where = f"cell {failed}" if failed is not None else "a cell"
        if e.ename != "IosimError":   # iosim's own errors are one line already; others need their traceback
            print(re.sub(r"\x1b\[[0-9;]*m", "", str(e)), file=sys.stderr)
        print(f"{path.name}: {where} failed: {e.ename}: {e.evalue}", file=sys.stderr)
        return 1
    except CellTimeoutError as e:
        print(f"{path.name}: a cell ran longer than {CELL_TIMEOUT_S} s\n{e}", file=sys.stderr)
        return 1
    except DeadKernelError as e:
        print(f"{path.name}: the kernel died: {e}", file=sys.stderr)
        return 1
    print(f"{path.name}: {sum(c.cell_type == 'code' for c in nb.cells)} code cells ran without error "
          f"in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
