# In-process demo: what the grader's probe reports for one call vs what the call actually built.
import importlib.util, sys, torch
sys.path.insert(0, "/work/scratch20")
from grader.perf import probe
spec = importlib.util.spec_from_file_location("sub", sys.argv[1]); sub = importlib.util.module_from_spec(spec); spec.loader.exec_module(sub)
for L in (256, 512, 1024):
    q, k, v = (torch.randn(1, 4, L, 32) for _ in "qkv")
    sub.BIGGEST["cells"] = 0
    found = probe.measure(sub.tiled_attention, (q, k, v, 64), {"causal": True})
    print(f"L={L}: probe bytes={found['bytes']} shape={found['shape']} element_shape={found['element_shape']} "
          f"products={found['products']} disabled={found['disabled']} | actually built a whole matrix of "
          f"{sub.BIGGEST['cells']} cells (= 4*L*L = {4*L*L}), {sub.BIGGEST['cells']*8/2**20:.1f} MiB float64")
