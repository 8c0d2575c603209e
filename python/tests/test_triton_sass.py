"""The SASS parser (iosim.triton.sass) on small hand-written snippets: loops, nesting, counts by pipe,
the padding after EXIT, both disassemblers' branch syntax, the loop counter's step."""

from __future__ import annotations

import pytest

pytest.importorskip("triton", reason="iosim.triton needs triton (scripts/setup --triton)")

from iosim.triton import pipes, sass  # noqa: E402

# nvdisasm -c style: labels, a loop over tiles holding an inner loop, padding after EXIT.
NESTED = """
        /*0000*/                   S2R R0, SR_TID.X ;
        /*0010*/                   MOV R4, RZ ;
.L_x_0:
        /*0020*/                   HGMMA.64x64x16.F32 R8, gdesc[UR4], RZ, !UPT ;
        /*0030*/                   MUFU.EX2 R9, R9 ;
.L_x_1:
        /*0040*/                   LDS.128 R12, [R2] ;
        /*0050*/                   IADD3 R5, R5, 0x1, RZ ;
        /*0060*/                   ISETP.GE.AND P1, PT, R5, R6, PT ;
        /*0070*/              @!P1 BRA `(.L_x_1) ;
        /*0080*/                   IADD3 R4, R4, 0x40, RZ ;
        /*0090*/                   SHFL.BFLY PT, R3, R2, 0x1, 0x1f ;
        /*00a0*/                   ISETP.GE.AND P0, PT, R4, R7, PT ;
        /*00b0*/              @!P0 BRA `(.L_x_0) ;
        /*00c0*/                   STG.E.128 desc[UR6][R2.64], R8 ;
        /*00d0*/                   EXIT ;
.L_x_2:
        /*00e0*/                   BRA `(.L_x_2);
        /*00f0*/                   NOP;
.L_x_3:
"""

# cuobjdump -sass style: branch targets are addresses, encodings in trailing comments; a 64-bit
# counter compared through a uniform predicate, incremented with a carry out.
CUOBJDUMP = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;        /* 0x00000a0000017a02 */
        /*0010*/                   UIADD3 UR40, UP1, UR40, 0x80, URZ ;   /* 0x0000008028287890 */
        /*0020*/                   HMMA.16816.F32 R4, R8, R12, R4 ;      /* 0x0000000c0804723c */
        /*0030*/                   UISETP.GE.U32.AND UP0, UPT, UR40, UR46, UPT ; /* 0x000000 */
        /*0040*/                   UISETP.GE.AND.EX UP0, UPT, UR41, UR44, UPT, UP0 ; /* 0x0 */
        /*0050*/                   PLOP3.LUT P0, PT, PT, PT, UP0, 0x80, 0x0 ;  /* 0x0 */
        /*0060*/              @!P0 BRA 0x10 ;                     /* 0xfffffffc00 */
        /*0070*/                   EXIT ;                            /* 0x000000000000794d */
        /*0080*/                   BRA 0x80;                         /* 0xfffffffc00fc7947 */
"""


def test_classify_uses_one_table():
    assert pipes.classify("HGMMA.64x64x16.F32") == "tensor"
    assert pipes.classify("HMMA.16816.F32") == "tensor"
    assert pipes.classify("MUFU.EX2") == "mufu"
    assert pipes.classify("F2FP.F16.F32.PACK_AB") == "alu"
    assert pipes.classify("LDSM.16.M88.4") == "shared"
    assert pipes.classify("UTMALDG.2D") == "global"
    assert pipes.classify("LDGDEPBAR") == "global"
    assert pipes.classify("REDG.E.ADD.F32.FTZ.RN.STRONG.GPU") == "global"  # sm_90's atomicAdd, result unused
    assert pipes.classify("SYNCS.ARRIVE.TRANS64") == "barrier"
    assert pipes.classify("WARPGROUP.ARRIVE") == "barrier"
    assert pipes.classify("UIADD3") == "uniform"
    assert pipes.classify("BRA") == "other"
    every = [op for ops in pipes._TABLE.values() for op in ops.split()]
    assert len(every) == len(set(every)), "an opcode listed twice"


def test_nested_loops_and_their_own_counts():
    ins = sass.parse(NESTED)
    assert [i.opcode for i in ins][:2] == ["S2R", "MOV"]
    assert ins[-1].opcode == "NOP"
    loops = sass.find_loops(ins)
    assert [(lp.start, lp.end, lp.depth) for lp in loops] == [(0x20, 0xB0, 0), (0x40, 0x70, 1)]
    outer, inner = loops
    assert outer.inner == [inner]
    own = sass.loop_counts(ins, outer)["by_pipe"]     # the inner loop's LDS and compares are not the outer's
    assert own["tensor"] == 1 and own["mufu"] == 1 and own["shuffle"] == 1 and own["shared"] == 0
    assert own["alu"] == 2 and own["other"] == 1        # IADD3, ISETP; the BRA
    assert sass.loop_counts(ins, inner)["by_pipe"]["shared"] == 1
    assert sass.counter_step(ins, outer) == 0x40 and sass.counter_step(ins, inner) == 1


def test_padding_is_neither_loop_nor_epilogue():
    ins = sass.parse(NESTED)
    loops = sass.find_loops(ins)
    assert all(lp.start != 0xE0 for lp in loops)        # BRA to itself after EXIT
    out = sass.outside_counts(ins, loops)
    assert sum(out["prologue"]["by_pipe"].values()) == 2
    assert out["epilogue"]["by_opcode"] == {"STG": 1, "EXIT": 1}


def test_cuobjdump_addresses_and_a_64_bit_counter():
    ins = sass.parse(CUOBJDUMP)
    loops = sass.find_loops(ins)
    assert [(lp.start, lp.end) for lp in loops] == [(0x10, 0x60)]
    assert sass.loop_counts(ins, loops[0])["by_pipe"]["tensor"] == 1
    assert sass.counter_step(ins, loops[0]) == 0x80


def test_predicated_instruction_keeps_its_opcode():
    (i,) = sass.parse("        /*0100*/              @!P0 LDGSTS.E.BYPASS.128 [R53+0x1800], desc[UR50][R32.64], !P0 ;")
    assert i.predicate == "@!P0" and i.opcode == "LDGSTS.E.BYPASS.128" and pipes.classify(i.opcode) == "global"


def test_raw_disassembly_relabelled_parses_as_the_cubins():
    # nvdisasm -b of a second function placed at 0x100 after another: its addresses and branch targets
    # are the concatenation's; _labelled gives back the function's own, targets as labels.
    raw = [(a - 0x100, line.replace(f"/*{a:04x}*/", f"/*{a - 0x100:04x}*/")) for a, line in (
        (0x100, "        /*0100*/                   MOV R4, RZ ;"),
        (0x110, "        /*0110*/                   IADD3 R4, R4, 0x40, RZ ;"),
        (0x120, "        /*0120*/                   ISETP.GE.AND P0, PT, R4, R7, PT ;"),
        (0x130, "        /*0130*/              @!P0 BRA 0x110 ;"),
        (0x140, "        /*0140*/                   EXIT ;"),
        (0x150, "        /*0150*/                   BRA 0x150;"))]
    text = sass._labelled(raw, 0x100, 0x60)
    ins = sass.parse(text)
    assert [i.addr for i in ins] == [0x0, 0x10, 0x20, 0x30, 0x40, 0x50]
    assert ins[3].target == 0x10 and ins[5].target == 0x50 and ins[3].predicate == "@!P0"
    assert [(lp.start, lp.end) for lp in sass.find_loops(ins)] == [(0x10, 0x30)]
    assert sass.counter_step(ins, sass.find_loops(ins)[0]) == 0x40


def test_sole_code_refuses_what_is_not_a_cubin():
    assert sass.sole_code(b"not an elf") is None
    assert sass.sole_code(b"\x7fELF\x02\x01" + bytes(64)) is None


def test_raw_branch_out_of_the_function_is_refused():
    raw = [(0x0, "        /*0000*/                   BRA 0x400 ;")]     # the next function's code
    assert sass._labelled(raw, 0x100, 0x10) is None
