import math
import torch
import torch.nn as nn

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ v, weights

def repeat_kv(x, n_rep):
    # HF-style: expand a new axis and fold it into the heads
    if n_rep == 1:
        return x
    B, Hkv, L, d = x.shape
    return x[:, :, None, :, :].expand(B, Hkv, n_rep, L, d).reshape(B, Hkv * n_rep, L, d)

class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads = n_heads, n_kv_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, n_kv_heads * self.d_head, bias=False)
        self.o_proj = nn.Linear(n_heads * self.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        # no repeat at all: group the query heads under their KV head, as fast kernels do
        B, L, _ = x.shape
        H, Hkv, dh = self.n_heads, self.n_kv_heads, self.d_head
        g = H // Hkv
        q = self.q_proj(x).view(B, L, Hkv, g, dh).permute(0, 2, 3, 1, 4)   # (B, Hkv, g, L, dh)
        k = self.k_proj(x).view(B, L, Hkv, dh).transpose(1, 2)[:, :, None]  # (B, Hkv, 1, L, dh)
        v = self.v_proj(x).view(B, L, Hkv, dh).transpose(1, 2)[:, :, None]
        if mask is None:
            mask = causal_mask(L, x.device)
        elif mask.dim() == 4:
            # (B|1, H|1, L|1, L|1) -> (B|1, Hkv|1, g|1, L|1, L|1)
            mb, mh, ml, mk = mask.shape
            if mh == 1:
                mask = mask[:, :, None]
            else:
                mask = mask.reshape(mb, Hkv, g, ml, mk)
        y, _ = scaled_dot_product_attention(q, k, v, mask)                 # (B, Hkv, g, L, dh)
        y = y.permute(0, 3, 1, 2, 4).reshape(B, L, H * dh)
        return self.o_proj(y)
