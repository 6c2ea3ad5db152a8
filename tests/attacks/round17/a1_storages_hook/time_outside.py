"""Outside the grader: per-step time of decode steps at the documented CPU sizes (d_model 512, 8 heads,
8 KV heads, batch 1, 1024 tokens cached), one thread, solution vs the attack's file (nobody probes the cache)."""
import importlib.util, sys, time, torch
torch.set_num_threads(1)
def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); return m
sol = load("/work/scratch17/solutions/exercise8_kv_cache.py", "sol")
att = load(sys.argv[1] if len(sys.argv) > 1 else "submission/exercise8_kv_cache.py", "att")
def bench(mod, length=1024, steps=40):
    torch.manual_seed(0)
    m = mod.CachedGroupedQueryAttention(512, 8, 8); cache = mod.KVCache(1, 8, 64, length + steps + 8)
    with torch.no_grad():
        m(torch.randn(1, length, 512), cache)
        toks = [torch.randn(1, 1, 512) for _ in range(steps)]
        outs, t = [], []
        for x in toks:
            s = time.thread_time(); outs.append(m(x, cache)); t.append(time.thread_time() - s)
    return sorted(t)[len(t)//2], torch.cat(outs, 1)
for rep in range(2):
    ts, os_ = bench(sol); ta, oa = bench(att)
    print(f"median step at 1024 cached: solution {ts*1e3:.3f} ms, attack {ta*1e3:.3f} ms, ratio {ta/ts:.1f}x; max|diff| {float((os_-oa).abs().max()):.2e}")
