# What the grader's probe reports for the memory test's three calls and a value-size call, in-process.
import importlib.util, sys, torch
sys.path.insert(0, "/work/scratch20")
from grader.perf import probe
spec = importlib.util.spec_from_file_location("sub", sys.argv[1]); sub = importlib.util.module_from_spec(spec); spec.loader.exec_module(sub)
torch.set_num_threads(1)
for L in (256, 512, 1024):
    q, k, v = (torch.randn(1, 4, L, 32) for _ in "qkv")
    f = probe.measure(sub.tiled_attention, (q, k, v, 64), {"causal": True})
    print(f"L={L}: bytes={f['bytes']} shape={f['shape']} elements={f['elements']} element_shape={f['element_shape']} peak={f['peak']} products={f['products']} disabled={f['disabled']}")
q, k, v = torch.randn(2, 3, 12, 5), torch.randn(2, 3, 12, 5), torch.randn(2, 3, 12, 7)
f = probe.measure(sub.tiled_attention, (q, k, v, 4), {"causal": True})
print(f"value size L=12, block 4: element_shape={f['element_shape']} shapes={f['shapes']}")
