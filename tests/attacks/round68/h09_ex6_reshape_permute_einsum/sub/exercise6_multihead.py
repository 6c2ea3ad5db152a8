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

def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.reshape(B, L, n_heads, -1).permute(0, 2, 1, 3)

def merge_heads(x):
    B, H, L, dh = x.shape
    return x.permute(0, 2, 1, 3).reshape(B, L, H * dh)

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        H, dh = self.n_heads, self.d_head
        qkv = self.qkv(x).view(B, L, 3, H, dh)           # (B, L, 3, H, dh)
        q, k, v = qkv.unbind(dim=2)                       # each (B, L, H, dh)
        scores = torch.einsum('blhd,bmhd->bhlm', q, k) / math.sqrt(dh)
        if mask is None:
            mask = torch.ones(L, L, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~mask, float('-inf'))
        w = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        y = torch.einsum('bhlm,bmhd->blhd', w, v).reshape(B, L, D)
        return self.out(y)
