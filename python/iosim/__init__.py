"""iosim as a Python package: the program's commands in-process, their JSON as Python data.

    import iosim
    out = iosim.count("a100", n=8192, d=64)                  # iosim -c a100 --n 8192 --d 64 -f json
    out = iosim.predict("h200", n=8192, d=64, heads=16, schedule="flash2")        # ... --predict
    top = iosim.tiles("h200", n=8192, d=64)                  # iosim tiles -c h200 --n 8192 --d 64
    fit = iosim.bounds("a100", pass_="bwd")                  # iosim bounds -c a100 --pass bwd

Each function returns exactly what the program prints with `--format json` (docs/json-schema.md), as
dicts, lists, ints, floats, strs and bools; `format="table"` or `"csv"` returns the program's text
instead. The hardware (`config`) is a name in configs/ (searched as `--config` searches), a file, or a
dict with a config file's keys. Bad input raises iosim.Error, whose message is the line the program
prints after "iosim: error: ".
"""

from __future__ import annotations

from pathlib import Path

from . import _iosim
from ._api import Error, bounds, count, predict, tiles

__all__ = ["Error", "count", "predict", "tiles", "bounds", "__version__"]

#: The version of the program it runs (`iosim --version` prints "iosim " and this).
__version__ = _iosim.version().removeprefix("iosim ")

_HERE = Path(__file__).resolve().parent
if (_HERE / "configs").is_dir():  # installed: the configs and scenarios shipped beside it
    _iosim.set_installed_dirs(str(_HERE / "configs"), str(_HERE / "scenarios"))
