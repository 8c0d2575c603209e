"""The hardware as a name (searched as --config searches), as a file, or as a dict of the same keys:
the same counts, and a dict held to the rules of a file."""

from __future__ import annotations

import json

import pytest
import yaml

import iosim
from conftest import REPO

PROBLEM = dict(n=1024, d=64, schedule=["naive", "flash2"])


def _without_file(out: dict) -> dict:
    """The output less what depends on the config's file: its path, and the measured error of each
    prediction (configs/validated-error.csv is read beside a config file, by its name)."""
    out = json.loads(json.dumps(out))
    out["config"].pop("file")
    for run in out.get("runs", []):
        for s in run["schedules"]:
            s.pop("validated", None)
    return out


@pytest.mark.parametrize("name", ["a100", "h200", "teaching"])
def test_name_file_and_dict_agree(cli, name):
    path = REPO / "configs" / f"{name}.yaml"
    by_name = iosim.predict(name, **PROBLEM)
    assert by_name["config"]["file"] == str(path)                    # found where --config finds it
    assert iosim.predict(path, **PROBLEM) == by_name                 # a path (pathlib) to the same file
    relative = iosim.predict(f"configs/{name}.yaml", **PROBLEM)
    assert relative == cli.json(["-c", f"configs/{name}.yaml", "--predict", "--n", "1024", "--d", "64",
                                 "--schedule", "naive,flash2"])
    as_dict = iosim.predict(yaml.safe_load(path.read_text()), **PROBLEM)
    assert as_dict["config"]["file"] == "<dict>"
    assert _without_file(as_dict) == _without_file(by_name)
    # A config given as a dict is one's own: no measured error is claimed for it.
    assert all(s["validated"] is None for s in as_dict["runs"][0]["schedules"])
    if name == "h200":  # flash2's forward without a mask was measured on the H200
        assert by_name["runs"][0]["schedules"][1]["validated"]["mask"] == "none"


def test_dict_tiles_and_bounds_agree():
    config = yaml.safe_load((REPO / "configs" / "teaching.yaml").read_text())
    assert _without_file(iosim.tiles(config, n=256, d=16)) == _without_file(iosim.tiles("teaching", n=256, d=16))
    assert _without_file(iosim.bounds(config)) == _without_file(iosim.bounds("teaching"))


def test_a_changed_dict_changes_the_model():
    config = yaml.safe_load((REPO / "configs" / "teaching.yaml").read_text())
    config["sm"]["sram_per_block_bytes"] = 8192
    small = iosim.count(config, n=1024, d=16, schedule="flash1")["runs"][0]["schedules"][0]
    base = iosim.count("teaching", n=1024, d=16, schedule="flash1")["runs"][0]["schedules"][0]
    assert small["sram_limit_bytes"] == 8192 and base["sram_limit_bytes"] == 16384
    assert small["hbm"]["read_bytes"] > base["hbm"]["read_bytes"]    # a smaller M: more K/V passes


def _teaching() -> dict:
    return yaml.safe_load((REPO / "configs" / "teaching.yaml").read_text())


def _error(config: dict) -> str:
    with pytest.raises(iosim.Error) as e:
        iosim.count(config, n=256, d=16)
    return str(e.value)


def test_dict_errors_name_the_key():
    c = _teaching()
    c["sm"]["cuont"] = 4
    assert _error(c) == "<dict>: unknown key 'sm.cuont' (did you mean 'sm.count'?)"
    c = _teaching()
    c["sm"]["count"] = "4"                                            # a string, as "4" quoted in a file
    assert _error(c) == "<dict>: sm.count: expected a positive integer, got '4', a string (quoted or tagged)"
    c = _teaching()
    c["sm"]["count"] = 4.0
    assert _error(c) == "<dict>: sm.count: expected a positive integer, got '4.0'"
    c = _teaching()
    del c["l2"]
    assert _error(c) == "<dict>: l2: missing (required)"
    c = _teaching()
    c["l2"]["ways"] = {1, 2}
    assert _error(c) == ("<dict>: l2.ways: a value of Python type set (a config holds numbers, strings, "
                         "booleans, lists and dicts)")
    c = _teaching()
    c["sm"][3] = 4
    assert _error(c) == "<dict>: sm: a key that is not a name (3)"


def test_dict_errors_match_a_file_with_the_same_keys(cli, tmp_path):
    c = _teaching()
    c["l2"]["line_bytes"] = 96
    path = tmp_path / "bad.yaml"
    path.write_text(json.dumps(c))                                    # JSON is YAML
    assert _error(c) == cli.error(["-c", str(path), "--n", "256", "--d", "16"]).replace(str(path), "<dict>")
