import json, glob, re, subprocess, sys
sys.path.insert(0, '/work/main/build/python')
from iosim.triton import sass
exec(open('/tmp/cubx/paths.py').read().split("cub = open")[0].split("from iosim.triton.pipes")[1].split('\n',1)[1])
meas = {}
for f in ('results/h200-2026-12-01b/instruction-mix/mix-d64.json','results/h200-2026-12-01b/instruction-mix/mix-d128.json'):
    for r in json.load(open(f)):
        if r['schedule']=='flash2' and r['pass']=='fwd':
            meas[(r['d'], r['br'], r['bc'], r['warps'], r['stages'])] = r['measured_total']/r['warp_steps']
rows=[]
for cub in sorted(glob.glob('/tmp/fullgen/flash2_fwd_*_fp16_*.cubin')):
    # one cubin holds several kernels: disassemble per function
    txt = sass.disassemble(open(cub,'rb').read())
    funcs = re.split(r'\n\s*\.text\.(\S+):', txt)
    for i in range(1, len(funcs), 2):
        name, body = funcs[i], funcs[i+1]
        m = re.search(r'Flash2FwdTraitsILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E', name)
        if not m: continue
        key = tuple(int(x) for x in m.groups())
        ins = sass.parse(body); loops = sass.find_loops(ins)
        top = [l for l in loops if l.depth == 0]
        if not top: continue
        lp = max(top, key=lambda l: l.end - l.start)
        lo, hi = paths(ins, lp)
        rows.append((key, lo, hi, meas.get(key)))
for k, lo, hi, m in rows:
    print(k, lo, hi, round(m,1) if m else None)
