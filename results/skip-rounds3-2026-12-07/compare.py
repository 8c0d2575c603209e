import json
import sys

K = [
    "dram__bytes_read",
    "dram__bytes_write",
    "lts__t_sectors_srcunit_ltcfabric_op_read",
    "lts__t_sectors_srcunit_tex_op_read",
]


def pred(p):
    d = json.load(open(p))
    return d["runs"][0]["schedules"][0]["predicted"] if "runs" in d else d["predicted"]


f, e = pred(sys.argv[1]), pred(sys.argv[2])
worst = 0
for t in ("cold", "warm"):
    for kf, ke in zip(f[t]["kernels"], e[t]["kernels"]):
        row = []
        for k in K:
            r = (kf[k] - ke[k]) / ke[k] * 100 if ke[k] else 0
            worst = max(worst, abs(r))
            row.append(f"{k.split('_')[-2] if 'fabric' not in k else 'fabric'}:{r:+.3f}%")
        print(t, kf["name"], " ".join(row))
print(f"worst {worst:.3f}%")
