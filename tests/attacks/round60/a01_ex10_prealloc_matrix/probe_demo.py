# what the grader's probe reports for one causal call at L = 256, 512, 1024 (the memory test's sizes)
import importlib.util, sys, torch
from grader.perf import probe
for which in ("sub", "control"):
    spec = importlib.util.spec_from_file_location("m_" + which, f"/work/round60/a01_ex10_prealloc_matrix/{which}/exercise10_tiled_attention.py")
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    for L in (256, 512, 1024):
        q, k, v = (torch.randn(1, 4, L, 32) for _ in range(3))
        r = probe.measure(m.tiled_attention, (q, k, v, 64), {"causal": True})
        print(which, L, "bytes", r["bytes"], "shape", r["shape"], "peak", r["peak"], "elements", r["elements"],
              "widest", r["widest"], "disabled", r["disabled"], "full matrix bytes", 4 * L * L * 4)
