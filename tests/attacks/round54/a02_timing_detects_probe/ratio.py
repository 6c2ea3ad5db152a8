# how much slower 30 tiny torch ops are under the grader's probe (grader.perf.probe.measure) than outside it
import time, torch
from grader.perf.probe import measure
def op_cost():
    a = torch.zeros(4); best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(30): a = a + 1.0
        best = min(best, time.perf_counter() - t)
    return best
base = min(op_cost() for _ in range(3))
seen = []
measure(lambda x: seen.append(op_cost()) or x * 1, (torch.randn(3),))
print(f"outside: {base*1e6:.0f} us, under the probe: {seen[0]*1e6:.0f} us, ratio {seen[0]/base:.1f}x")
