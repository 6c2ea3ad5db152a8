import torch, sys
sys.path.insert(0,'/work/scratch20')
from grader.perf.probe import measure
def f64(x, w):
    return (x.double() @ w.double()).to(x.dtype).split(w.size(-1)//3, -1)
def f32(x, w):
    return (x.float() @ w.float()).to(x.dtype).split(w.size(-1)//3, -1)
def flat(x, w):
    d = w.size(-1)//3
    qkv = (x.reshape(-1, x.size(-1)) @ w).reshape(*x.shape[:-1], 3*d)
    return qkv.split(d, -1)
def contig(x, w):
    d = w.size(-1)//3
    qkv = x @ w
    return tuple(t.contiguous() for t in qkv.split(d, -1))
def chunks(x, w):
    d = w.size(-1)//3
    q, k, v = (x @ w).chunk(3, -1)
    return q.clone(), k.clone(), v.clone()
sizes=[(2,5,6,4),(7,6,5),(3,1,8,5),(2,4,6,6),(2,5,4,6,3),(2,4,6,5)]
for f in (f64, f32, flat, contig, chunks):
  bad=0; tot=0
  for sz in sizes:
    *bl, dm, d = sz
    for dt in (torch.float32, torch.float64, torch.float16):
      x=torch.randn(*bl,dm,dtype=dt); w=torch.randn(dm,3*d,dtype=dt)
      for _ in range(3):
        r=measure(f,(x,w))["returned"]; tot+=1; bad += any(o!=3 for o in r)
  print(f.__name__, bad, "/", tot)
print("detail")
for sz in sizes:
    *bl, dm, d = sz
    for dt in (torch.float32, torch.float64, torch.float16):
      x=torch.randn(*bl,dm,dtype=dt); w=torch.randn(dm,3*d,dtype=dt)
      r=[measure(f64,(x,w))["returned"][0] for _ in range(4)]
      print(sz, dt, r)
