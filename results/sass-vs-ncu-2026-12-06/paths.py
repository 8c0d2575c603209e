import sys
sys.path.insert(0, '/work/main/build/python')
from iosim.triton import sass
from iosim.triton.pipes import classify

def is_uncond(i):
    op = i.opcode.split('.')[0]
    return (op in ('BRA', 'JMP') and not i.predicate) or op in ('EXIT', 'RET') and not i.predicate

def paths(ins, loop):
    body = [i for i in ins if loop.contains(i.addr)]
    idx = {i.addr: k for k, i in enumerate(body)}
    n = len(body)
    INF = float('inf')
    lo = [INF] * (n + 1); hi = [-INF] * (n + 1)
    lo[0] = hi[0] = 0
    # DP over instructions in address order: value at k = instructions issued before reaching k
    for k, i in enumerate(body):
        if lo[k] == INF: continue
        a, b = lo[k] + 1, hi[k] + 1
        succ = []
        if i.addr == loop.end:
            succ.append(n)
        else:
            if i.target is not None and i.target > i.addr and i.target in idx:
                succ.append(idx[i.target])
            if not is_uncond(i):
                succ.append(k + 1)
        for s in succ:
            lo[s] = min(lo[s], a); hi[s] = max(hi[s], b)
    return lo[n], hi[n]

cub = open(sys.argv[1], 'rb').read()
ins = sass.parse(sass.disassemble(cub))
for l in sass.find_loops(ins):
    print(hex(l.start), hex(l.end), 'depth', l.depth, 'static', (l.end - l.start)//16 + 1, 'min/max path', paths(ins, l))
