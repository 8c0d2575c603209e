"""Kernel families read from compiled Triton code: the project's attention kernels (kernels.py), their
compilation for a GPU that need not be present (compile.py), their SASS instruction mix by pipe
(sass.py), the record the time model can read, cached on disk (family.py; many at once: batch.py), and
an autotuner's pruning by iosim's prediction (prune.py). Needs the triton package (scripts/setup
--triton); nothing here imports torch except the launch and reference code."""


def prune(configs, named_args, **kwargs):
    """iosim.triton.prune.prune (imported on first use: the pruning needs iosim's module)."""
    from .prune import prune as _prune
    return _prune(configs, named_args, **kwargs)
