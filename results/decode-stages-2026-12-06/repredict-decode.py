import json,glob,collections,subprocess,sys,statistics
sys.path.insert(0,'scripts')
import importlib.util
spec=importlib.util.spec_from_file_location("tv","scripts/time-validation.py"); tv=importlib.util.module_from_spec(spec); spec.loader.exec_module(tv)
iosim=sys.argv[1]
out=[]
for f in sorted(glob.glob('results/h100-2026-12-06[eghi]/validation-*.json')):
    d=json.load(open(f))
    groups=collections.OrderedDict()
    for r in d.get('runs',[]):
        if r.get('schedule','').startswith('flashdecode'):
            pr=r['problem']; key=(r['schedule'],json.dumps(pr,sort_keys=True))
            groups.setdefault(key,[]).append(r)
    for (sch,_),runs in groups.items():
        stages=[3,1,2] if len(runs)==3 else [3]
        for st,r in zip(stages,runs):
            t=dict(r['tile']); t['stages']=st
            cmd=[iosim,'--config','configs/h100.yaml','--schedule',sch,'--pass','fwd',*tv.problem_flags(r['problem']),*tv.kernel_flags(t),'--predict','--format','json']
            p=json.loads(subprocess.run(cmd,capture_output=True,text=True,check=True).stdout)
            pred=p["runs"][0]["schedules"][0]["predicted"]["cold"]["time_ms"]
            m=[x for x in r['rows'] if x['quantity']=='time, cold L2'][0]['measured']
            out.append((f.split('/')[1],sch,r['problem'].get('window',0),r['problem'].get('page_size',0),r['problem']['batch'],r['problem']['n_kv'],st,pred,m))
for o in out: print(o[:7], "pred %.4f meas %.4f err %+.1f%%"%(o[7],o[8],100*(o[8]-o[7])/o[8]))
err=[abs((o[8]-o[7])/o[8]) for o in out]
print("median |err| %.1f%%  n=%d"%(100*statistics.median(err),len(err)))
for name,sel in [("window",lambda o:o[2]>0),("no window",lambda o:o[2]==0)]:
  e=[(o[8]-o[7])/o[8] for o in out if sel(o)]; print(name,"median |err| %.1f%% signed median %+.1f%% n=%d"%(100*statistics.median(map(abs,e)),100*statistics.median(e),len(e)))
