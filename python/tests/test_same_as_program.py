"""iosim.count, predict, tiles and bounds return exactly the program's `--format json` output, and its
table and CSV text with format=, over a small grid of runs (schedules, passes, masks, sweeps, tiles,
execution, the GPU model's options). Problems are small: the whole file runs in seconds."""

from __future__ import annotations

import pytest

import iosim
from conftest import argv

COUNT = [
    dict(config="a100", n=1024, d=64),
    dict(config="a100", n=[512, 1024], d=[64, 128], schedule=["naive", "flash1", "flash2", "dtiled"]),
    dict(config="h100", n=2048, d=128, pass_="bwd"),
    dict(config="a100", n=1024, d=64, heads=4, kv_heads=2, causal=True, pass_="fwdbwd", dtype="bf16"),
    dict(config="h200", n=1, n_kv=8192, d=128, heads=8, schedule="flashdecode", splits=4),
    dict(config="a100", n=2048, n_kv=1024, d=64, schedule="flash2", br=[64, 128], bc=64, warps=4, stages=2),
    dict(config="teaching", n=256, d=16, schedule=["flash1", "flash2"], execute="fp32", bug="no-rescale", seed=7),
    dict(config="teaching", n=128, d=16, pass_="bwd", execute="fp64", input_scale=2.5, dtype="fp32"),
    dict(scenario="gpt2-medium", n=1024),
    dict(config="a100", n=2048, d=64, causal=True, window=256, schedule=["naive", "flash1", "flash2"], pass_="fwdbwd"),
    dict(config="h200", n=1, n_kv=8192, d=128, heads=8, kv_heads=2, schedule=["flashdecode", "flash2"], page_size=16,
         page_order="random"),
]

PREDICT = [
    dict(config="h200", n=1024, d=64, heads=2, schedule="flash2"),
    dict(config="a100", n=1024, d=64, schedule=["naive", "flash1"], l2="exact", launch_order="heads"),
    dict(config="teaching", n=256, d=16, pass_="bwd", l2_policy="fifo", batch=2),
    dict(config="h200", n=1024, d=128, heads=4, pass_="fwdbwd", kernels="pytorch"),
    dict(config="h200", n=1, n_kv=4096, d=128, heads=8, kv_heads=2, schedule="flashdecode", page_size=64,
         page_order="7"),
]

TILES = [
    dict(config="teaching", n=256, d=16),
    dict(config="h200", n=1024, d=64, top=3, causal=True),
    dict(config="h200", n=1024, d=64, top=3, causal=True, window=128),
    dict(config="a100", n=512, d=64, pass_="bwd", schedule="flash2", l2_policy="random"),
]

BOUNDS = [
    dict(config="a100"),
    dict(config="teaching", pass_="bwd"),
    dict(config="h100", d=128, heads=2, dtype="fp32"),
    dict(config="a100", window=4096),
]


def _id(case: dict) -> str:
    return " ".join(argv(case))


@pytest.mark.parametrize("case", COUNT, ids=_id)
def test_count(cli, case):
    assert iosim.count(**case) == cli.json(argv(case))


@pytest.mark.parametrize("case", PREDICT, ids=_id)
def test_predict(cli, case):
    assert iosim.predict(**case) == cli.json([*argv(case), "--predict"])


@pytest.mark.parametrize("case", TILES, ids=_id)
def test_tiles(cli, case):
    assert iosim.tiles(**case) == cli.json(["tiles", *argv(case)])


@pytest.mark.parametrize("case", BOUNDS, ids=_id)
def test_bounds(cli, case):
    assert iosim.bounds(**case) == cli.json(["bounds", *argv(case)])


def test_results_are_plain_data():
    out = iosim.predict("a100", n=256, d=64, schedule="flash2")

    def plain(v):
        if isinstance(v, dict):
            return all(isinstance(k, str) and plain(x) for k, x in v.items())
        if isinstance(v, list):
            return all(plain(x) for x in v)
        return v is None or isinstance(v, (str, int, float, bool))

    assert plain(out)
    assert out["runs"][0]["schedules"][0]["name"] == "flash2"


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_other_formats_are_the_program_text(cli, fmt):
    case = dict(config="a100", n=[1024, 2048], d=64)
    assert iosim.count(**case, format=fmt) == cli.run([*argv(case), "--format", fmt]).stdout
    tile_case = dict(config="teaching", n=256, d=16, top=4)
    assert iosim.tiles(**tile_case, format=fmt) == cli.run(["tiles", *argv(tile_case), "--format", fmt]).stdout
