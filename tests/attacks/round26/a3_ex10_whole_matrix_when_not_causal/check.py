# evidence: non-causal self-attention with L < 512 builds the whole (L_q, L_k) matrix, which the docstring
# forbids ("Never build a tensor of shape (..., L_q, L_k)"); the values are right (so only the rule is broken)
import importlib.util, math, torch
from torch.utils._python_dispatch import TorchDispatchMode
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise10_tiled_attention.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
class Shapes(TorchDispatchMode):
    def __init__(self): super().__init__(); self.shapes = []
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, torch.Tensor): self.shapes.append(tuple(out.shape))
        return out
g = torch.Generator().manual_seed(0)
for L, causal in [(256, False), (256, True), (511, False), (8192, False)]:
    q, k, v = (torch.randn(1, 4 if L < 8192 else 1, L, 8, generator=g, dtype=torch.float64) for _ in "qkv")
    with Shapes() as rec:
        out = m.tiled_attention(q, k, v, 64, causal=causal)
    whole = [s for s in rec.shapes if s[-2:] == (L, L)]
    if L < 8192:
        mask = torch.ones(L, L, dtype=torch.bool).tril() if causal else torch.ones(L, L, dtype=torch.bool)
        ref = torch.softmax((q @ k.transpose(-2, -1) / math.sqrt(8)).masked_fill(~mask, -math.inf), -1) @ v
        err = (out - ref).abs().max().item()
    else:
        err = float("nan")
    print(f"L={L} causal={causal}: (L, L) tensors built: {len(whole)} e.g. {whole[:1]}; max |out - ref| = {err:.2e}")
