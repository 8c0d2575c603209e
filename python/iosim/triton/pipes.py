"""Which pipe (issue class) each SASS opcode belongs to: the one table the instruction mix uses.

Classes:
  tensor   matrix products on the tensor cores (mma.sync's HMMA, Hopper's warpgroup HGMMA, ...)
  mufu     the special-function unit (MUFU.EX2, .RCP, .LG2, ...)
  alu      the FMA and integer/logic pipes and conversions, per-thread registers
  uniform  the uniform datapath (one value per warp: UIADD3, UMOV, R2UR, ...); they take an issue slot
           like any other instruction but not the per-thread pipes
  shared   shared memory (LDS, STS, LDSM, STSM, shared atomics)
  global   global memory and copies into shared memory (LDG, STG, LDGSTS, TMA's UTMALDG, LDGDEPBAR)
  shuffle  warp shuffles (SHFL)
  barrier  block and warpgroup synchronisation (BAR, SYNCS mbarrier ops, DEPBAR, WARPSYNC, WARPGROUP)
  other    control flow, constants, special registers and anything not listed
The key is the opcode's base (before its first '.'); `classify` looks there and nowhere else.
"""

from __future__ import annotations

PIPES = ("tensor", "mufu", "alu", "uniform", "shared", "global", "shuffle", "barrier", "other")

_TABLE = {
    "tensor": "HMMA HGMMA IMMA IGMMA BMMA BGMMA DMMA QGMMA OMMA UTCHMMA UTCQMMA UTCIMMA UTCOMMA",
    "mufu": "MUFU",
    "alu": ("FFMA FADD FMUL FMNMX FSEL FSETP FSET FCHK FRND FSWZADD HADD2 HMUL2 HFMA2 HMNMX2 HSETP2 HSET2 "
            "DADD DMUL DFMA DSETP "
            "IMAD IMADSP IADD3 IADD VIADD VIADDMNMX IMNMX VIMNMX IMUL ISETP ISET ICMP SEL LOP3 LOP SHF SHL SHR "
            "LEA PRMT BMSK BREV FLO POPC IABS IDP IDP4A "
            "MOV MOVM P2R R2P PLOP3 PSETP "
            "F2F F2FP F2I I2F I2FP F2IP I2IP"),
    "uniform": ("UIADD3 UIMAD UMOV ULEA USHF USEL UISETP ULOP3 ULOP UPRMT USGXT UFLO UPOPC UBREV UBMSK UPLOP3 "
                "UP2UR UR2UP R2UR REDUX VOTEU UCLEA ULDC UMNMX UIMNMX USETMAXREG UPSETP UF2FP"),
    "shared": "LDS STS LDSM STSM ATOMS LDSLK STSCUL",
    "global": ("LDG STG LDGSTS LDGDEPBAR UTMALDG UTMASTG UTMAPF UTMAREDG UBLKCP UBLKRED UBLKPF RED REDG ATOMG ATOM "
               "LD ST LDL STL CCTL"),
    "shuffle": "SHFL",
    "barrier": "BAR SYNCS DEPBAR WARPSYNC WARPGROUP MEMBAR ERRBAR FENCE ARRIVES",
}

OPCODE_PIPE = {op: pipe for pipe, ops in _TABLE.items() for op in ops.split()}


def base(opcode: str) -> str:
    """The opcode without its modifiers: 'MUFU.EX2' -> 'MUFU', 'HGMMA.64x64x16.F32' -> 'HGMMA'."""
    return opcode.split(".", 1)[0]


def classify(opcode: str) -> str:
    return OPCODE_PIPE.get(base(opcode), "other")


def empty_counts() -> dict:
    return {p: 0 for p in PIPES}
