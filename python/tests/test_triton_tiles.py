"""`iosim tiles --kernels triton` end to end at one small shape: the Triton menu compiled for sm_90 on the
CPU (or read from the cache), priced from the records; and iosim.triton.prune on that ranking."""

import json
import os
import subprocess
import time

import pytest

pytest.importorskip("triton", reason="--kernels triton needs triton (scripts/setup --triton)")

IOSIM = os.environ.get("IOSIM_BIN", "build/iosim")
ARGS = ["tiles", "-c", "h200", "--n", "1024", "--d", "64", "--kernels", "triton", "-f", "json", "--quiet"]


def _run(tmp_cache):
    env = dict(os.environ, IOSIM_CACHE_DIR=str(tmp_cache))
    start = time.monotonic()
    r = subprocess.run([IOSIM, *ARGS], capture_output=True, text=True, env=env, timeout=600)
    return r, time.monotonic() - start


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("triton-cache")


def test_tiles_kernels_triton(cache):
    cold, cold_s = _run(cache)
    assert cold.returncode == 0, cold.stderr
    cached, cached_s = _run(cache)
    assert cached.returncode == 0, cached.stderr
    print(f"iosim tiles --kernels triton: cold {cold_s:.1f} s, cached {cached_s:.1f} s")
    out = json.loads(cached.stdout)
    cands = out["candidates"]
    assert len(cands) == 64  # {32, 64, 128, 256}² × warps {4, 8} × stages {2, 3}
    ok = [c for c in cands if c["feasible"]]
    assert ok and all("compiled record" in c["priced_from"] for c in ok)
    assert [c["time_ms"] for c in ok] == sorted(c["time_ms"] for c in ok)
    assert json.loads(cold.stdout) == out  # the cache changes nothing


BWD = ["-c", "h100", "--n", "1024", "--d", "64", "--kernels", "triton", "--pass", "bwd", "--predict",
       "--br", "64", "--bc", "64", "--causal", "-f", "json"]


def test_kernels_triton_backward(cache):
    """flash2's backward priced from the three compiled records of one config (64 x 64, causal)."""
    env = dict(os.environ, IOSIM_CACHE_DIR=str(cache))
    r = subprocess.run([IOSIM, *BWD], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)["runs"][0]["schedules"][0]
    assert s["variant"] == "Triton"
    kernels = s["predicted"]["cold"]["kernels"]
    assert [k["name"] for k in kernels] == ["flash2_bwd_preprocess", "flash2_bwd_dkdv", "flash2_bwd_dq"]
    assert all(k["time"]["family"] == "triton-fa2-bwd" and k["time"]["total_ms"] > 0 for k in kernels)


def test_kernels_triton_garbled_record_is_one_line(tmp_path):
    """A driver that answers with something other than records: one error line, exit 2."""
    fake = tmp_path / "python3"
    fake.write_text("#!/bin/sh\necho 'not records'\n")
    fake.chmod(0o755)
    env = dict(os.environ, IOSIM_PYTHON=str(fake))
    r = subprocess.run([IOSIM, *BWD], capture_output=True, text=True, env=env)
    assert r.returncode == 2
    assert r.stderr.startswith("iosim: error: --kernels triton") and r.stderr.count("\n") == 1


def test_prune_keeps_the_fastest(cache, monkeypatch):
    """iosim.triton.prune as Triton's early_config_prune: the three configs tiles ranks first (the cache
    from the test above makes it quick)."""
    import triton

    import iosim.triton
    monkeypatch.setenv("IOSIM_CACHE_DIR", str(cache))

    class Q:
        shape = (1, 1, 1024, 64)

    configs = [triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=w, num_stages=st)
               for m in (64, 128) for n in (32, 64) for w in (4, 8) for st in (2, 3)]
    kept = iosim.triton.prune(configs, {"Q": Q()})
    assert len(kept) == 3 and all(k in configs for k in kept)
