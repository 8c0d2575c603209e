"""iosim.triton's disk cache: a hit reads the record without importing triton, and the key changes with
everything that changes the compiled code (the package's sources, Triton's environment)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from iosim.triton import family
from iosim.triton.config import Config

CFG = Config(kernel="attn_fwd", block_m=64, block_n=32, head_dim=64, num_warps=4, num_stages=2)
# A cache hit runs this: the batch driver on one config whose record is on disk.
_HIT = """
import json, sys
from iosim.triton import batch
records = batch.records([json.loads(sys.argv[1])])
print(json.dumps({"records": records, "triton": sorted(m for m in sys.modules if m.split(".")[0] == "triton")}))
"""


def test_a_cache_hit_imports_no_triton(tmp_path, monkeypatch):
    monkeypatch.setenv("IOSIM_CACHE_DIR", str(tmp_path))
    record = {"config": CFG.as_dict(), "error": None, "loops": [], "note": "hand-written"}
    family.store(CFG, record)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    out = subprocess.run([sys.executable, "-c", _HIT, json.dumps(CFG.as_dict())], env=env, check=True,
                         capture_output=True, text=True).stdout
    got = json.loads(out)
    assert got["records"] == [record]          # read from the cache, not compiled
    assert got["triton"] == []


def test_the_key_changes_with_every_keyed_source(monkeypatch):
    key = family.cache_key(CFG)
    for name in family.KEYED_SOURCES:
        real = family.source_text
        monkeypatch.setattr(family, "source_text", lambda n, name=name, real=real: real(n) + ("#" if n == name else ""))
        assert family.cache_key(CFG) != key, name
        monkeypatch.setattr(family, "source_text", real)
    assert family.cache_key(CFG) == key


def test_the_key_changes_with_the_config_and_tritons_environment(monkeypatch):
    key = family.cache_key(CFG)
    assert family.cache_key(Config(**dict(CFG.as_dict(), num_stages=3))) != key
    monkeypatch.setenv("TRITON_PTXAS_PATH", "/elsewhere/ptxas")       # another ptxas: other code
    assert family.cache_key(CFG) != key
    monkeypatch.delenv("TRITON_PTXAS_PATH")
    monkeypatch.setenv("PTXAS_OPTIONS", "-O1")
    assert family.cache_key(CFG) != key


def test_every_module_a_record_depends_on_is_keyed():
    pytest.importorskip("triton", reason="iosim.triton's compiler needs triton (scripts/setup --triton)")
    code = ("import sys, iosim.triton.batch, iosim.triton.compile, iosim.triton.family; "
            "print(' '.join(m.__file__ for n, m in sys.modules.items() if n.startswith('iosim.triton.')))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    files = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                           text=True).stdout.split()
    assert {os.path.basename(f) for f in files} - set(family.KEYED_SOURCES) == set()
