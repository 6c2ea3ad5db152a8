# evidence: forward(x, mask) changes the caller's mask (its shape, in place), against "Every function and module
# here leaves its inputs unchanged"; a model that hands one padding mask to each of its layers then breaks at
# layer 2. Values are checked in float64 against plain GQA (repeat_kv).
import importlib.util, math, torch
spec = importlib.util.spec_from_file_location("sub", __file__.rsplit("/", 1)[0] + "/sub/exercise7_gqa.py")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def plain(mod, x, mask):
    B, L, _ = x.shape; H, Hkv, dh = mod.n_heads, mod.n_kv_heads, mod.d_head
    q = mod.q_proj(x).view(B, L, H, dh).transpose(1, 2)
    k = mod.k_proj(x).view(B, L, Hkv, dh).transpose(1, 2).repeat_interleave(H // Hkv, 1)
    v = mod.v_proj(x).view(B, L, Hkv, dh).transpose(1, 2).repeat_interleave(H // Hkv, 1)
    s = (q @ k.transpose(-2, -1) / math.sqrt(dh)).masked_fill(~mask, -math.inf)
    return mod.o_proj((torch.softmax(s, -1).masked_fill(~mask, 0.0) @ v).transpose(1, 2).reshape(B, L, -1))
torch.manual_seed(0)
layers = [m.GroupedQueryAttention(18, 6, 2).double() for _ in range(2)]
B, L = 4, 7
x = torch.randn(B, L, 18, dtype=torch.float64)
mask = ((torch.arange(L)[None, :] < torch.tensor([6, 4, 2, 5])[:, None])[:, None, None, :] & torch.ones(L, L, dtype=torch.bool).tril())
print("mask before:", tuple(mask.shape))
with torch.no_grad():
    want = plain(layers[0], x, mask.clone())
    got = layers[0](x, mask)
    print("layer 0: max |got - expected| =", f"{(got - want).abs().max().item():.2e}", "| mask after:", tuple(mask.shape))
    try:
        want2 = plain(layers[1], got, mask.squeeze(-3))
        got2 = layers[1](got, mask)
        print("layer 1, same mask object: output shape", tuple(got2.shape), "expected", tuple(want2.shape))
    except Exception as e:
        print("layer 1, same mask object: raised", type(e).__name__, str(e)[:100])
