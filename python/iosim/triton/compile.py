"""Ahead-of-time compilation of the project's Triton kernels for a GPU that need not be present.

`compile_config(config)` builds the kernel's signature, compiles it with triton.compile for the target
(sm_90 by default: Triton compiles "cuda", 90 as sm_90a, so Hopper's wgmma is used), and returns the
compiled kernel with the resource usage read from ptxas's own report. Nothing here needs a GPU.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
from dataclasses import dataclass

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.runtime.errors import OutOfResources

from .config import Config
from .kernels import KERNELS, SCALARS

# The largest dynamic shared memory a block may opt in to, by compute capability (CUDA's
# sharedMemPerBlockOptin); Triton itself checks this only when it loads a kernel on a GPU.
MAX_SHARED_OPTIN = {80: 166912, 86: 101376, 89: 101376, 90: 232448, 100: 232448, 120: 101376}
DTYPES = {"fp16": "*fp16", "bf16": "*bf16"}


@dataclass
class Compiled:
    config: Config
    registers: int
    spills: int                 # bytes of spill stores (ptxas)
    spill_loads: int            # bytes of spill loads (ptxas)
    shared_bytes: int           # Triton's dynamic shared memory per block
    num_warps: int
    num_stages: int
    cubin: bytes
    name: str                   # the kernel's symbol in the cubin
    ptxas_log: str


class CompileError(Exception):
    """A config Triton (or ptxas, or the target's limits) refuses; the message is the reason."""


class _SharedOverLimit(Exception):
    """Raised inside triton.compile once the LLVM IR stage has fixed the kernel's shared memory above the
    target's limit: the config is refused for that reason whatever the later stages do, so they (PTX,
    ptxas, and the caller's disassembly) are not run."""

    def __init__(self, shared: int):
        super().__init__(shared)
        self.shared = shared


def _stop_over_shared_limit(limit: int, then=None):
    """A stages hook (triton.knobs.runtime.add_stages_inspection_hook) that raises _SharedOverLimit after
    the "llir" stage when its metadata["shared"] (the value the compiled kernel's metadata.shared takes;
    no later stage changes it) exceeds `limit`; `then`, a hook already set, runs first."""
    def hook(backend, stages, options, language, capability):
        if then is not None:
            then(backend, stages, options, language, capability)
        make_llir = stages["llir"]

        def llir(src, metadata):
            module = make_llir(src, metadata)
            if metadata.get("shared", 0) > limit:
                raise _SharedOverLimit(metadata["shared"])
            return module
        stages["llir"] = llir
    return hook


def _key_without_install_hash(src, backend, backend_options, env_vars) -> str:
    """Triton's get_cache_key less its triton_key(), a sha256 of Triton's whole install (libtriton.so
    included) that costs about 0.7 s of CPU the first time in each process."""
    return f"iosim-{src.hash()}-{backend.hash()}-{backend_options.hash()}-{sorted(env_vars.items())}"


@contextlib.contextmanager
def _private_triton_cache():
    """Triton's own cache, which compile_config never reads (always_compile) but Triton writes every
    stage's output to and reads the compiled kernel back from: a temporary folder for the one compile,
    so its key need not name the install (_key_without_install_hash) and ~/.triton/cache does not fill
    with what nothing reads."""
    module = sys.modules["triton.compiler.compiler"]
    real = module.get_cache_key
    with tempfile.TemporaryDirectory(prefix="iosim-triton-cache-") as tmp, triton.knobs.cache.scope():
        triton.knobs.cache.dir = tmp
        module.get_cache_key = _key_without_install_hash
        try:
            yield
        finally:
            module.get_cache_key = real


def signature(config: Config) -> tuple[dict, dict, dict]:
    """Triton's signature, constexprs and attributes for `config`, as the JIT would specialise a launch
    with 16-byte aligned pointers and n a multiple of 16."""
    fn = KERNELS[config.kernel]
    constexpr_values = {"BLOCK_M": config.block_m, "BLOCK_N": config.block_n, "HEAD_DIM": config.head_dim,
                        "CAUSAL": config.causal}
    sig, constexprs, attrs = {}, {}, {}
    for i, name in enumerate(fn.arg_names):
        if name in constexpr_values:
            sig[name] = "constexpr"
            constexprs[name] = constexpr_values[name]
        elif name in SCALARS:
            sig[name] = SCALARS[name]
            if name == "N_CTX":
                attrs[(i,)] = [["tt.divisibility", 16]]
        else:  # a tensor
            sig[name] = "*fp32" if name in ("L", "Delta") else DTYPES[config.dtype]
            attrs[(i,)] = [["tt.divisibility", 16]]
    return sig, constexprs, attrs


_PTXAS_USED = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes spill stores, (\d+) bytes spill loads")


def _reason(exc: BaseException) -> str:
    """Triton's reason in a few lines: the message without the PTX or MLIR it may quote."""
    text = str(exc).strip() or type(exc).__name__
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return f"{type(exc).__name__}: " + " | ".join(lines[:6])[:800]


def compile_config(config: Config, stop_over_shared_limit: bool = True) -> Compiled:
    """Compiles `config`; raises CompileError naming the config and Triton's reason if it cannot. A config
    over the target's shared memory is refused once the LLVM IR stage has sized it, unless
    `stop_over_shared_limit` is off (then after the whole compile: the same reason, more slowly)."""
    if config.kernel not in KERNELS:
        raise CompileError(f"{config.label()}: unknown kernel (known: {', '.join(KERNELS)})")
    fn = KERNELS[config.kernel]
    sig, constexprs, attrs = signature(config)
    target = GPUTarget("cuda", config.arch, 32)
    limit = MAX_SHARED_OPTIN.get(config.arch)
    log = io.StringIO()
    try:
        # ptxas -v's report is printed only when this knob is on; a Triton cache hit runs no ptxas, so
        # always compile (the project caches the result itself, family.py).
        with triton.knobs.nvidia.scope(), triton.knobs.compilation.scope(), triton.knobs.runtime.scope(), \
                _private_triton_cache(), contextlib.redirect_stdout(log):
            triton.knobs.nvidia.dump_ptxas_log = True
            triton.knobs.compilation.always_compile = True
            if limit is not None and stop_over_shared_limit:
                triton.knobs.runtime.add_stages_inspection_hook = _stop_over_shared_limit(
                    limit, triton.knobs.runtime.add_stages_inspection_hook)
            kernel = triton.compile(ASTSource(fn, sig, constexprs, attrs), target=target,
                                    options={"num_warps": config.num_warps, "num_stages": config.num_stages})
    except _SharedOverLimit as over:
        raise CompileError(f"{config.label()}: {OutOfResources(over.shared, limit, 'shared memory')}") from None
    except Exception as exc:  # Triton raises many kinds (CompilationError, PTXASError, RuntimeError...)
        raise CompileError(f"{config.label()}: {_reason(exc)}") from None
    md = kernel.metadata
    if limit is not None and md.shared > limit:
        raise CompileError(f"{config.label()}: {OutOfResources(md.shared, limit, 'shared memory')}")
    text = log.getvalue()
    used = _PTXAS_USED.search(text)
    spill = _PTXAS_SPILL.search(text)
    if used is None:
        raise CompileError(f"{config.label()}: no 'Used N registers' in ptxas's report: {text[-300:]!r}")
    registers = int(used.group(1))
    if registers * 32 * md.num_warps > 65536:
        raise CompileError(f"{config.label()}: {registers} registers x {32 * md.num_warps} threads exceed 65536")
    return Compiled(config=config, registers=registers,
                    spills=int(spill.group(1)) if spill else 0, spill_loads=int(spill.group(2)) if spill else 0,
                    shared_bytes=md.shared, num_warps=md.num_warps, num_stages=md.num_stages,
                    cubin=kernel.asm["cubin"], name=md.name, ptxas_log=text)

