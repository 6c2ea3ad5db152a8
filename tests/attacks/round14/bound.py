import importlib.util, resource, sys, torch, math
torch.set_num_threads(1)
spec = importlib.util.spec_from_file_location("ex10", sys.argv[1]); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
g = torch.Generator().manual_seed(0)
q, k, v = torch.randn(1, 8192, 12, generator=g), torch.randn(1, 8192, 12, generator=g), torch.randn(1, 8192, 20, generator=g)
def st(f):
    for l in open("/proc/self/status"):
        if l.startswith(f + ":"): return int(l.split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_DATA, (st("VmData") + (128 << 20),) * 2)
resource.setrlimit(resource.RLIMIT_AS, (st("VmSize") + (128 << 20) + 64 * (72 << 20) + (1 << 30),) * 2)
try:
    out = m.tiled_attention(q, k, v, 64)
except Exception as e:
    print("RAISED", type(e).__name__, str(e)[:200]); sys.exit()
rows = [0, 100, 4000, 8191]
s = (q[:, rows].double() @ k.double().transpose(-1, -2)) / math.sqrt(12)
ref = torch.exp(s - s.amax(-1, keepdim=True)); ref = (ref / ref.sum(-1, keepdim=True)) @ v.double()
print("max err", (out[:, rows].double() - ref).abs().max().item(), "VmHWM", st("VmHWM") >> 20, "MiB")
