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


def test_kernels_triton_refuses_backward():
    r = subprocess.run([IOSIM, "-c", "h200", "--n", "1024", "--d", "64", "--kernels", "triton", "--pass", "bwd",
                        "--predict"], capture_output=True, text=True)
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
