import time, torch
from grader.perf import probe
from grader.sandbox import rules
def cost():
    t=time.perf_counter()
    for _ in range(20): torch.empty(0)
    return (time.perf_counter()-t)/20
g = rules.Guard(("softmax","fused-attention","multihead-attention"), "/dev/null")
print("plain", cost())
print("guard mode", g.run(cost))
out=[]
def f(x):
    out.append(cost()); return x+1
m = probe.measure(lambda x: g.run(f, x), (torch.zeros(3),), {})
print("probe+guard", out, m.get("disabled"))
