"""The package's functions: keywords named after the program's flags, passed to the native module."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Union

from . import _iosim

Config = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Ints = Union[int, Sequence[int]]
FORMATS = ("json", "table", "csv")


class Error(ValueError):
    """Input iosim refuses: str(e) is the line the program prints after "iosim: error: ".
    `exit_code` is the program's (2 for bad input)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


Error.__module__ = "iosim"  # shown as iosim.Error, where users catch it


def _as_list(value: Any) -> list:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        return [value]
    return list(value)


def _flags(**keywords: Any) -> dict[str, Any]:
    """The keywords as the program's flags: "n_kv" is --n-kv, "pass_" --pass, "schedule" --schedule;
    None is a flag not given, False a switch not given."""
    flags: dict[str, Any] = {}
    for key, value in keywords.items():
        if value is None or value is False:
            continue
        name = key.rstrip("_").replace("_", "-")
        if key == "config" and not isinstance(value, Mapping):
            value = os.fspath(value)
        elif key == "config":
            value = dict(value)
        elif name in ("n", "d", "br", "bc", "schedule"):
            value = _as_list(value)
        elif name in ("causal", "predict") and value is not True:
            raise TypeError(f"{key} must be True or False, got {value!r}")
        flags[name] = value
    return flags


def _call(command: str, fmt: str, flags: dict[str, Any]) -> Any:
    if fmt not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    code, out, error = _iosim.call(command, flags, fmt)
    if error:
        raise Error(error, code)
    return json.loads(out) if fmt == "json" else out


def count(config: Config | None = None, *, n: Ints | None = None, d: Ints | None = None,
          n_kv: int | None = None, batch: int | None = None, heads: int | None = None,
          kv_heads: int | None = None, causal: bool = False, window: int | None = None,
          page_size: int | None = None, page_order: str | None = None,
          dtype: str | None = None,
          pass_: str | None = None, schedule: str | Sequence[str] | None = None,
          br: Ints | None = None, bc: Ints | None = None, warps: int | None = None,
          stages: int | None = None, splits: int | None = None, scenario: str | None = None,
          execute: str | None = None, bug: str | None = None, seed: int | None = None,
          input_scale: float | None = None, max_time: str | float | None = None,
          max_memory: str | int | None = None, format: str = "json") -> Any:
    """`iosim --config CONFIG --n N --d D ... --format json`: the exact HBM and SRAM counts of each
    schedule and pass. Lists in n, d, br, bc sweep; `pass_` is --pass (fwd, bwd or fwdbwd);
    `page_size`, `page_order` ("contiguous", "random" or a seed as a string) are paged K/V;
    `execute` ("fp32", "fp64") also runs the schedules on numbers."""
    return _call("run", format, _flags(**_keywords(locals())))


def predict(config: Config | None = None, *, n: Ints | None = None, d: Ints | None = None,
            n_kv: int | None = None, batch: int | None = None, heads: int | None = None,
            kv_heads: int | None = None, causal: bool = False, window: int | None = None,
            page_size: int | None = None, page_order: str | None = None,
            dtype: str | None = None,
            pass_: str | None = None, schedule: str | Sequence[str] | None = None,
            br: Ints | None = None, bc: Ints | None = None, warps: int | None = None,
            stages: int | None = None, splits: int | None = None, scenario: str | None = None,
            launch_order: str | None = None, l2_policy: str | None = None, l2: str | None = None,
            kernels: str | None = None, execute: str | None = None, bug: str | None = None,
            seed: int | None = None, input_scale: float | None = None, max_time: str | float | None = None,
            max_memory: str | int | None = None, format: str = "json") -> Any:
    """count() and the GPU model (`--predict`): L2 and DRAM traffic, occupancy and time per kernel;
    `kernels="pytorch"` times flash2 as PyTorch's SDPA flash backend's kernels (--kernels)."""
    return _call("run", format, _flags(predict=True, **_keywords(locals())))


def tiles(config: Config | None = None, *, n: int | None = None, d: int | None = None,
          n_kv: int | None = None, batch: int | None = None, heads: int | None = None,
          kv_heads: int | None = None, causal: bool = False, window: int | None = None,
          page_size: int | None = None, page_order: str | None = None,
          dtype: str | None = None,
          pass_: str | None = None, schedule: str | None = None, splits: int | None = None,
          scenario: str | None = None, launch_order: str | None = None, l2_policy: str | None = None,
          l2: str | None = None, top: int | None = None, max_time: str | float | None = None,
          max_memory: str | int | None = None, kernels: str | None = None, format: str = "json") -> Any:
    """`iosim tiles`: tile shapes, warps and stages ranked by the GPU model's predicted time;
    `kernels="triton"` ranks the Triton menu, each priced from its compiled record (--kernels)."""
    return _call("tiles", format, _flags(**_keywords(locals())))


def bounds(config: Config | None = None, *, d: int | None = None, batch: int | None = None,
           heads: int | None = None, dtype: str | None = None, pass_: str | None = None,
           window: int | None = None, format: str = "json") -> Any:
    """`iosim bounds`: Theorem 2 (or 5, pass_="bwd") as fitted log-log slopes. A slope out of its
    tolerance is in the result (the program exits 1 for it), not an error."""
    return _call("bounds", format, _flags(**_keywords(locals())))


def _keywords(scope: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in scope.items() if k != "format"}
