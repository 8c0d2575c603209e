import json, sys
sys.path.insert(0, '/work/wt-gqaheads2/scripts')
import importlib.util
spec = importlib.util.spec_from_file_location("acc", "/work/wt-gqaheads2/scripts/l2-accuracy.py")
acc = importlib.util.module_from_spec(spec); spec.loader.exec_module(acc)
def load(f): return json.load(open(f))["runs"][0]["schedules"][0]["predicted"]
for tag in sys.argv[2:]:
    for h in sys.argv[1].split(','):
        fa, ex = load(f"/tmp/gq2/{tag}-fast-{h}.json"), load(f"/tmp/gq2/br-exact-{h}.json")
        worst = (0, '')
        row = []
        for (key, name, v, scale), (_, _, e, _) in zip(acc.values(fa), acc.values(ex)):
            err = acc.error(v, e, scale)
            own = (v - e) / e if e else 0
            row.append(f"{name.split('.')[0]}.{key}: {100*err:.3f}% (own {100*own:+.3f}%)")
            worst = max(worst, (err, name))
        print(tag, h, "heads", fa["cold"]["kernels"][0]["heads_replayed"], "stride", fa["cold"]["l2_sample_stride"], "worst %.3f%% %s" % (100*worst[0], worst[1]))
        for r in row: print("   ", r)
