import math
from dataclasses import dataclass

import torch
import torch.nn as nn


class ConfigError(ValueError):
    pass


@dataclass
class GQAConfig:
    d_model: int
    n_heads: int
    n_kv_heads: int

    def __post_init__(self):
        if self.d_model % self.n_heads:
            raise ConfigError(f"{self.d_model=} is not divisible by {self.n_heads=}")
        if self.n_heads % self.n_kv_heads:
            raise ConfigError(f"{self.n_heads=} is not a multiple of {self.n_kv_heads=}")

    @property
    def d_head(self):
        return self.d_model // self.n_heads

    @property
    def group(self):
        return self.n_heads // self.n_kv_heads


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
    if n_rep == 1:
        return x
    B, H, L, d = x.shape
    return x[:, :, None].expand(B, H, n_rep, L, d).reshape(B, H * n_rep, L, d)


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, n_heads, n_kv_heads):
        super().__init__()
        self.cfg = GQAConfig(d_model, n_heads, n_kv_heads)
        c = self.cfg
        self.q_proj = nn.Linear(d_model, c.n_heads * c.d_head, bias=False)
        self.k_proj = nn.Linear(d_model, c.n_kv_heads * c.d_head, bias=False)
        self.v_proj = nn.Linear(d_model, c.n_kv_heads * c.d_head, bias=False)
        self.o_proj = nn.Linear(c.n_heads * c.d_head, d_model, bias=False)

    def forward(self, x, mask=None):
        c = self.cfg
        B, L, _ = x.shape
        q = self.q_proj(x).view(B, L, c.n_heads, c.d_head).transpose(1, 2)
        k = self.k_proj(x).view(B, L, c.n_kv_heads, c.d_head).transpose(1, 2)
        v = self.v_proj(x).view(B, L, c.n_kv_heads, c.d_head).transpose(1, 2)
        k, v = repeat_kv(k, c.group), repeat_kv(v, c.group)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.o_proj(y.transpose(1, 2).reshape(B, L, c.n_heads * c.d_head))
