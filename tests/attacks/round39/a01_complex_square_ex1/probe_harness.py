import torch, sys, importlib.util, collections
sys.path.insert(0,'/work/scratch20')
from grader.perf.probe import measure
spec=importlib.util.spec_from_file_location("s","/work/round39/a01_complex_square_ex1/sub/exercise1_projection.py"); s=importlib.util.module_from_spec(spec); spec.loader.exec_module(s)
c=collections.Counter()
for sz in [(2,5,6,4),(7,6,5),(3,1,8,5),(2,4,6,6),(2,5,4,6,3),(2,4,6,5)]:
  *bl,dm,d=sz
  for dt in (torch.float32,torch.float64,torch.float16):
    for _ in range(5):
      x=torch.randn(*bl,dm,dtype=dt); w=torch.randn(dm,3*d,dtype=dt)
      m=measure(s.fused_project,(x,w)); c[(m["combining"], tuple(m["returned"]))]+=1
print(c)
