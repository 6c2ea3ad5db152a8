# allocations the probe sees or not: a storage made by its Python constructor, then pointed at by a tensor
import torch
torch.set_num_threads(1)
from grader.perf import probe
x = torch.randn(4)
def untyped(t):
    st = torch.UntypedStorage(4 << 20)  # 4 MiB
    buf = torch.empty(0).set_(st, 0, (1 << 20,), (1,))
    buf.fill_(1.0)
    return buf[:4] + t
def typed(t):
    buf = torch.empty(0).set_(torch.FloatStorage(1 << 20))
    buf.zero_()
    return buf[:4] + t
def empty(t):
    buf = torch.empty(1 << 20)
    buf.fill_(1.0)
    return buf[:4] + t
for f in (untyped, typed, empty):
    r = probe.measure(f, (x,))
    print(f"{f.__name__:8s} bytes={r['bytes']:8d} shape={r['shape']} peak={r['peak']:8d} written={r['written']:8d} exported={r['exported']} disabled={r['disabled']}")
