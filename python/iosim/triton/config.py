"""One compiled variant of one kernel (its tiles, launch options, data type and target), importable
without Triton: a cache hit (family.py, batch.py) reads its record without importing triton."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Config:
    """One compiled variant of one kernel: its tiles, launch options and data type."""
    kernel: str = "attn_fwd"
    block_m: int = 128
    block_n: int = 64
    head_dim: int = 64
    causal: bool = False
    num_warps: int = 4
    num_stages: int = 3
    dtype: str = "fp16"
    arch: int = 90

    def as_dict(self) -> dict:
        return asdict(self)

    def label(self) -> str:
        return (f"{self.kernel} {self.dtype} d={self.head_dim} {self.block_m}x{self.block_n} "
                f"warps={self.num_warps} stages={self.num_stages}{' causal' if self.causal else ''} sm_{self.arch}")
