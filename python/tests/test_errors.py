"""Bad input raises iosim.Error (a ValueError) whose message is the program's one line for the same
input, less "iosim: error: "."""

from __future__ import annotations

import pytest

import iosim
from conftest import argv

BAD = [
    ("count", dict(config="a100", n=0, d=64)),                         # a size <= 0
    ("count", dict(config="a100", n=1024)),                            # d missing
    ("count", dict(config="a100", d=64)),                              # n missing
    ("count", dict(n=1024, d=64)),                                     # no config
    ("count", dict(config="a200", n=1024, d=64)),                      # no such config
    ("count", dict(config="no/such/file.yaml", n=1024, d=64)),
    ("count", dict(config="a100", n=1024, d=64, schedule="flash9")),   # no such schedule
    ("count", dict(config="a100", n=1024, d=64, schedule="flash2", br=4096, bc=4096)),  # does not fit
    ("count", dict(config="a100", n=1024, d=64, dtype="fp12")),
    ("count", dict(config="a100", n=1024, d=64, pass_="sideways")),
    ("count", dict(config="a100", n=1024, d=64, heads=3, kv_heads=2)),
    ("count", dict(config="a100", n=1.5, d=64)),                       # not an integer, as --n 1.5
    ("count", dict(config="a100", n=2**64, d=64)),                     # beyond 64 bits
    ("count", dict(config="a100", n=1024, d=64, batch=-1)),
    ("count", dict(config="a100", n=1024, d=64, bug="no-rescale")),    # --bug without --execute
    ("count", dict(config="a100", n=1024, d=64, execute="fp32", seed=-1)),
    ("count", dict(config="a100", n=1024, d=64, execute="fp32", input_scale=float("nan"))),
    ("count", dict(config="a100", n=8192, d=64, execute="fp64")),      # too large to execute
    ("count", dict(config="a100", n=2**40, d=2**40, heads=2**20)),     # counts overflow 64 bits
    ("count", dict(config="h200", n=65536, d=128, heads=64, schedule="flash2", max_memory="1MiB")),
    ("count", dict(config="a100", n=1024, d=64, max_time="soon")),
    ("count", dict(scenario="nope", n=1024, d=64)),
    ("predict", dict(config="a100", n=1024, d=64, l2_policy="mru")),
    ("predict", dict(config="a100", n=1024, d=64, launch_order="y")),
    ("predict", dict(config="a100", n=1024, d=64, l2="approximate")),
    ("predict", dict(config="a100", n=1024, d=64, warps=64)),
    ("tiles", dict(config="a100", n=[1024, 2048], d=64)),
    ("tiles", dict(config="a100", n=1024, d=64, pass_="both")),
    ("tiles", dict(config="a100", n=1024, d=64, top=0)),
    ("tiles", dict(config="a100", n=1024, d=64, top=-1)),
    ("tiles", dict(config="a100", n=1024, d=64, top="many")),
    ("tiles", dict(config="a100", n=1024, d=64, top=2**64)),
    ("tiles", dict(config="h200", n=131072, d=128, heads=64, max_time="1s")),
    ("bounds", dict(config="a100", pass_="fwdbwd")),
    ("bounds", dict(config="a100", d=0)),
    ("count", dict(config="a100", n=1024, d=64, window=64)),            # --window without --causal
    ("count", dict(config="a100", n=1024, d=64, causal=True, window=0)),
    ("count", dict(config="a100", n=1024, d=64, causal=True, window=2048)),  # wider than n_kv
    ("tiles", dict(config="a100", n=1024, d=64, window=64)),
    ("bounds", dict(config="a100", window=-1)),
    ("count", dict(config="a100", n=1024, d=64, schedule="flash2", page_size=48)),       # not a power of two
    ("count", dict(config="a100", n=1024, d=64, schedule="flash1", page_size=16)),       # no paged variant
    ("count", dict(config="a100", n=1024, d=64, schedule="flash2", page_size=16, page_order="shuffled")),
]

#: The program's arguments before and after the flags, per function.
AROUND = {"count": ([], []), "predict": ([], ["--predict"]), "tiles": (["tiles"], []), "bounds": (["bounds"], [])}


@pytest.mark.parametrize("function,case", BAD, ids=lambda v: v if isinstance(v, str) else " ".join(argv(v)))
def test_same_message_as_the_program(cli, function, case):
    before, after = AROUND[function]
    expected = cli.error([*before, *argv(case), *after])
    with pytest.raises(iosim.Error) as e:
        getattr(iosim, function)(**case)
    assert str(e.value) == expected
    assert e.value.exit_code == 2
    assert isinstance(e.value, ValueError)


def test_not_a_flag_is_a_type_error():
    with pytest.raises(TypeError):
        iosim.count("a100", n=1024, d=64, colour="red")
    with pytest.raises(TypeError):
        iosim.tiles("a100", n=1024, d=64, br=64)                       # tiles searches the tiles
    with pytest.raises(TypeError):
        iosim.count("a100", n=1024, d=64, causal="yes")
    with pytest.raises(ValueError, match="format must be one of json, table, csv"):
        iosim.count("a100", n=1024, d=64, format="xml")


@pytest.mark.parametrize("case,says", [
    (dict(config="a100\x00x", n=64, d=64), "--config: a NUL character in 'a100\\x00x'"),
    (dict(config="a100", n=64, d=64, dtype="fp16\x00"), "--dtype: a NUL character"),
    (dict(config="a100", n=64, d=64, schedule=["flash2\x00naive"]), "--schedule: a NUL character"),
    (dict(config="a100", n="64", d=64), "--n: expected an integer, got '64', a string"),
    (dict(config="a100", n=[64, "128"], d=64), "--n: expected an integer, got '128', a string"),
    (dict(config="a100", n=64, d=b"64"), "--d: expected an integer"),
    (dict(config="a100", n=64, d=64, heads="2"), "--heads: expected an integer"),
    (dict(config="a100", n=64, d=64, execute="fp32", seed="1"), "--seed: expected an integer"),
    (dict(config="a100", n=64, d=64, execute="fp32", input_scale="2"), "--input-scale: expected a number"),
])
def test_strings_where_numbers_belong_and_nul_characters(case, says):
    # The program cannot be given either (its argv holds no NUL, and every flag is text there).
    with pytest.raises(iosim.Error) as e:
        iosim.count(**case)
    assert says in str(e.value)
    assert e.value.exit_code == 2


def test_a_config_dict_with_a_nul_character():
    with pytest.raises(iosim.Error) as e:
        iosim.count({"name": "gpu\x00"}, n=64, d=64)
    assert "a NUL character" in str(e.value)


def test_a_long_list_is_refused_before_it_is_read():
    # Once 7.8 GB of memory before failing.
    with pytest.raises(iosim.Error) as e:
        iosim.count("teaching", n=[64] * 10**6, d=16)
    assert "--n (1000000 values) make more than 10000 points" in str(e.value)
    with pytest.raises(iosim.Error) as e:
        iosim.count("teaching", n=list(range(16, 16 * 201, 16)), d=16, br=[16] * 100)
    assert "make more than 10000 points" in str(e.value)
