"""The package's version is the program's, and its build pins are the ones scripts/setup --python installs."""

from __future__ import annotations

import re
import sys

import iosim
from conftest import REPO


def test_version_is_the_programs(cli):
    assert f"iosim {iosim.__version__}" == cli.run(["--version"]).stdout.strip()
    project = re.search(r"project\(iosim VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text()).group(1)
    assert iosim.__version__ == project                               # pyproject.toml's version comes from here


def test_build_pins_agree():
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    pins = {line.split("#")[0].strip() for line in (REPO / "python/requirements.txt").read_text().splitlines()}
    for requirement in pyproject["build-system"]["requires"]:
        assert "==" in requirement and requirement in pins, requirement


def test_named_configs_are_found_without_the_variable(monkeypatch):
    """Without $IOSIM_CONFIG_DIR a name is found among the configs the package ships (installed) or
    the checkout's (the build tree's module)."""
    monkeypatch.delenv("IOSIM_CONFIG_DIR")
    monkeypatch.chdir("/")
    out = iosim.count("teaching", n=64, d=16)
    assert out["config"]["name"] == "teaching-gpu"
    assert out["config"]["file"].endswith("configs/teaching.yaml")
