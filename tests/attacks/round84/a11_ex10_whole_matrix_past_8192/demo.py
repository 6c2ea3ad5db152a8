# peak memory of one call at L = 8192 (the grader's longest) and at L = 12288, one head, float32, block 64
import importlib.util, sys, resource, torch, subprocess
if len(sys.argv) == 3:
    spec = importlib.util.spec_from_file_location("m", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    L = int(sys.argv[2]); g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, L, 16, generator=g) for _ in range(3))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = m.tiled_attention(q, k, v, 64, True)
    print(f"L={L}: peak RSS grew by {(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024:.0f} MiB")
else:
    for L in (8192, 12288):
        subprocess.run([sys.executable, __file__, sys.argv[1], str(L)])
