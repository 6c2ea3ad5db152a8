"""exercise 3 returning a different odd object at each call"""
import math
import torch

_n = [0]

class Sub(torch.Tensor):
    pass

class Evil:
    def __eq__(self, other): raise RuntimeError("eq <script>")
    def __repr__(self): raise RuntimeError("repr")
    def __len__(self): return -1
    def __getattr__(self, name): raise SystemExit(3)

def _weird(good):
    kinds = [
        lambda: good.to_sparse(),
        lambda: torch.empty(0, 2**40, 2**20, device="meta"),
        lambda: good.as_subclass(Sub),
        lambda: good.to(torch.complex64),
        lambda: good.reshape(*([1] * 60), *good.shape[-2:])[..., :1, :1] if good.dim() >= 2 else good,
        lambda: torch.empty((0,) + (2**31,) * 4),
        lambda: good.numpy(),
        lambda: Evil(),
        lambda: (good,) * 100000,
        lambda: {object(): good},
        lambda: good.expand(*([2**20] * 2), *good.shape) if good.numel() < 64 else good.unsqueeze(0).expand(2**16, *good.shape),
        lambda: float("nan"),
        lambda: 10 ** 5000 / 7 if False else 1e308 * 10,
        lambda: "x" * (50 << 20),
        lambda: [good] * 1_000_000,
        lambda: torch.nested.nested_tensor([good.reshape(-1)[:3], good.reshape(-1)[:5]]),
        lambda: good.to(torch.float8_e4m3fn),
        lambda: torch.quantize_per_tensor(good.float(), 0.1, 0, torch.qint8),
    ]
    k = kinds[_n[0] % len(kinds)]
    _n[0] += 1
    return k()

def scale_scores(scores, d_k):
    return _weird(scores / math.sqrt(d_k))

def scaled_scores(q, k):
    return _weird(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)))
