"""What the notebooks share besides the package iosim, which they call for every number:

    import iosim
    import iosim_nb as nb
    out = iosim.count("a100", n=4096, d=64)            # iosim -c a100 --n 4096 --d 64 --format json
    peak = nb.config_value(out["config"]["file"], "peak.tensor_fp16_tflops")
    nb.show()

REPO is the checkout (for configs/); DATA the GPU measurements the notebooks read (notebooks/data, copied
from results/ with their origins in its README); config_value reads a number of a hardware config;
show() draws the figures.
"""

from __future__ import annotations

from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent
REPO = NOTEBOOKS.parent
DATA = NOTEBOOKS / "data"


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
