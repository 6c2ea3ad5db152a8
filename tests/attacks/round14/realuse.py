"""Real use (no grader): peak RSS growth of one call tiled_attention(q, k, v, 64, causal=True) at
B=1, H=4, L=1024 (per-head (L, L) float32 = 4 MiB, all heads 16 MiB) and L=4096 (64 MiB per head)."""
import importlib.util, resource, sys, torch
torch.set_num_threads(1)
spec = importlib.util.spec_from_file_location("ex10", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
L, H = int(sys.argv[2]), int(sys.argv[3])
q, k, v = (torch.randn(1, H, L, 32) for _ in range(3))
m.tiled_attention(q[..., :8, :], k[..., :8, :], v[..., :8, :], 64, causal=True)  # warm
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
m.tiled_attention(q, k, v, 64, causal=True)
print(f"{sys.argv[1].split('round14/')[1]:60s} L={L} H={H} peak RSS growth {(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024:7.1f} MiB")
