"""iosim.triton on the CPU: the project's kernels compiled for sm_90 and read as kernel families."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("triton", reason="iosim.triton needs triton (scripts/setup --triton)")

from iosim.triton.compile import Config  # noqa: E402
from iosim.triton.family import compiled_family  # noqa: E402


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("IOSIM_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "iosim-cache"))


FWD = Config(kernel="attn_fwd", block_m=128, block_n=64, head_dim=64, num_warps=4, num_stages=3)


def test_forward_compiles_with_a_tensor_core_loop():
    r = compiled_family(FWD)
    assert r["error"] is None and r["target"] == "cuda:90"
    assert r["registers"] > 0 and r["shared_bytes"] > 0 and r["spills"] == 0 and r["num_warps"] == 4
    (loop,) = r["loops"]
    assert loop["role"] == "unmasked" and loop["iterations_per_trip"] == 1
    per = loop["per_iteration"]
    # One 128x64 tile by a warpgroup of m64 HGMMAs: (128/64) x (64/16) for S = QKᵀ and again for PV.
    assert per["tensor"] == 16
    # exp2 of the 128x64 scores over 128 threads, and one rescale per row each thread holds (4).
    assert per["mufu"] == 64 + 4
    assert per["shuffle"] == 16                         # max and sum over the 4 lanes of each of 4 rows


def test_causal_forward_has_a_masked_loop():
    r = compiled_family(Config(kernel="attn_fwd", block_m=64, block_n=64, head_dim=64, causal=True,
                               num_warps=4, num_stages=2))
    roles = sorted(lp["role"] for lp in r["loops"])
    assert roles == ["masked", "unmasked"]
    masked, unmasked = sorted(r["loops"], key=lambda lp: lp["role"])
    assert masked["per_iteration"]["tensor"] == unmasked["per_iteration"]["tensor"] > 0
    assert masked["per_iteration"]["alu"] > unmasked["per_iteration"]["alu"]   # the mask's compares


def test_backward_dkdv_compiles():
    r = compiled_family(Config(kernel="attn_bwd_dkdv", block_m=64, block_n=64, head_dim=64,
                               num_warps=4, num_stages=2))
    assert r["error"] is None and r["registers"] > 0 and r["shared_bytes"] > 0
    tiles = [lp for lp in r["loops"] if lp["role"] == "unmasked"]
    assert len(tiles) == 1 and tiles[0]["per_iteration"]["tensor"] > 0
    assert [lp["role"] for lp in r["loops"] if lp["role"] == "outer"] == ["outer"]   # the group's heads


def test_backward_preprocess_has_no_loop_and_dq_one():
    """What the C++ side reads a backward record as: the preprocess's one step outside any loop, the dQ
    kernel's K/V loop (its products: S, dP, dQ) as the forward's."""
    pre = compiled_family(Config(kernel="attn_bwd_preprocess", block_m=64, block_n=64, head_dim=64))
    assert pre["error"] is None and pre["loops"] == [] and pre["prologue"]["counts"]["global"] > 0
    dq = compiled_family(Config(kernel="attn_bwd_dq", block_m=64, block_n=64, head_dim=64, num_warps=4, num_stages=2))
    assert dq["error"] is None
    assert [lp["role"] for lp in dq["loops"]] == ["unmasked"] and dq["loops"][0]["per_iteration"]["tensor"] > 0


def test_second_call_is_a_cache_hit():
    first = compiled_family(FWD)
    t0 = time.perf_counter()
    again = compiled_family(FWD)
    assert time.perf_counter() - t0 < 0.5
    assert again == first


def test_a_config_out_of_shared_memory_is_an_error_record():
    bad = Config(kernel="attn_fwd", block_m=256, block_n=256, head_dim=128, num_warps=4, num_stages=4)
    r = compiled_family(bad)
    assert r["error"] and "256x256" in r["error"] and "shared memory" in r["error"]
    assert r["registers"] is None and r["loops"] == []
    assert compiled_family(bad) == r                  # failures are cached too


def test_shared_memory_refusal_before_ptxas_gives_the_whole_compiles_reason():
    from iosim.triton.compile import CompileError, compile_config
    bad = Config(kernel="attn_fwd", block_m=256, block_n=128, head_dim=128, num_warps=8, num_stages=4)
    reasons = []
    for early in (True, False):
        with pytest.raises(CompileError) as exc:
            compile_config(bad, stop_over_shared_limit=early)
        reasons.append(str(exc.value))
    assert "shared memory" in reasons[0] and reasons[0] == reasons[1]


def test_one_disassembly_for_many_cubins_parses_as_one_each():
    from iosim.triton import sass
    from iosim.triton.compile import compile_config

    cubins = [compile_config(c).cubin for c in (FWD, Config(kernel="attn_fwd", block_m=64, block_n=32,
                                                             head_dim=64, num_warps=4, num_stages=2))]
    assert all(sass.sole_code(c) is not None for c in cubins)

    def key(text):
        return [(i.addr, i.opcode, i.predicate, i.target) + (() if i.opcode.startswith("BRA") else (i.operands,))
                for i in sass.parse(text)]
    assert [key(t) for t in sass.disassemble_many(cubins, 90)] == [key(sass.disassemble(c)) for c in cubins]
