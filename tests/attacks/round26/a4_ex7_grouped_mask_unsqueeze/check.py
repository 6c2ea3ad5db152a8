# float64 evidence: the submission's GroupedQueryAttention against plain GQA (repeat_kv, one mask broadcast to
# (B, H, L, L)) for masks the docstring allows ("a bool tensor broadcastable to the scores (B, H, L, L)")
# that the grader never passes: (L, L) and per-head (B, H, L, L). Its own tests pass only (B, 1, L, L).
import importlib.util, math, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise7_gqa.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def plain(mod, x, mask):
    B, L, _ = x.shape; H, Hkv, dh = mod.n_heads, mod.n_kv_heads, mod.d_head
    q = mod.q_proj(x).view(B, L, H, dh).transpose(1, 2)
    k = mod.k_proj(x).view(B, L, Hkv, dh).transpose(1, 2).repeat_interleave(H // Hkv, 1)
    v = mod.v_proj(x).view(B, L, Hkv, dh).transpose(1, 2).repeat_interleave(H // Hkv, 1)
    s = (q @ k.transpose(-2, -1) / math.sqrt(dh)).masked_fill(~mask, -math.inf)
    w = torch.softmax(s, -1).masked_fill(~mask, 0.0)
    return mod.o_proj((w @ v).transpose(1, 2).reshape(B, L, -1))
torch.manual_seed(0)
mod = m.GroupedQueryAttention(18, 6, 2).double()  # 6 query heads, 2 KV heads: n_rep = 3
for L in (3, 5):
    x = torch.randn(2, L, 18, dtype=torch.float64)
    cases = {"(B,1,L,L) causal (what the grader passes)": torch.ones(L, L, dtype=torch.bool).tril().expand(2, 1, L, L),
             "(L,L) causal": torch.ones(L, L, dtype=torch.bool).tril(),
             "(L,L) all True": torch.ones(L, L, dtype=torch.bool)}
    for name, mask in cases.items():
        with torch.no_grad():
            want = plain(mod, x, mask)
            try:
                got = mod(x, mask); print(f"L={L} mask {name}: max |got - expected| = {(got - want).abs().max().item():.3e}")
            except Exception as e:
                print(f"L={L} mask {name}: raised {type(e).__name__}: {str(e)[:90]}")
