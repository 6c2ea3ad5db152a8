exec(open('/tmp/r68gen/gen1.py').read().split("E1='exercise1_projection.py'")[0])
E5='exercise5_softmax.py'
SDPA_OK='''
def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float('-inf'))
    w = softmax(scores, dim=-1)
    return w @ v, w
'''
w('h07_ex5_logsumexp','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    # log-sum-exp formulation; a fully -inf slice has lse = -inf
    lse = torch.logsumexp(x, dim=dim, keepdim=True)
    finite = torch.isfinite(lse)
    safe_lse = torch.where(finite, lse, torch.zeros_like(lse))
    safe_x = torch.where(finite, x, torch.zeros_like(x))
    out = torch.exp(safe_x - safe_lse)
    return torch.where(finite, out, torch.zeros_like(out))

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = torch.einsum('...qd,...kd->...qk', q, k) / d_k ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, dim=-1)
    out = torch.einsum('...qk,...kd->...qd', weights, v)
    return out, weights
''','HONEST: softmax via logsumexp with double-where guard for all -inf slices; attention via einsum and torch.where. Expect full marks incl. zero (finite) gradient on fully masked rows.')

w('h08_ex5_upcast_fp32','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    # compute low-precision inputs in float32 for accuracy, return in x's dtype
    orig = x.dtype
    xf = x.float() if orig in (torch.float16, torch.bfloat16) else x
    m = xf.amax(dim=dim, keepdim=True)
    m = m.masked_fill(torch.isinf(m) & (m < 0), 0.0)
    e = torch.exp(xf - m)
    s = e.sum(dim=dim, keepdim=True)
    s = s.masked_fill(s == 0, 1.0)
    return (e / s).to(orig)
'''+SDPA_OK,'HONEST: classic max-subtract softmax, with fp16/bf16 upcast to float32 internally (more accurate), cast back. Expect full marks.')

w('m13_ex5_no_max','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    e = torch.exp(x)
    s = e.sum(dim=dim, keepdim=True)
    return torch.where(s > 0, e / torch.where(s > 0, s, torch.ones_like(s)), torch.zeros_like(e))
'''+SDPA_OK,'MISTAKE: no max subtraction: exp(1e4) = inf -> inf/inf = NaN. Fully masked rows are guarded. Good diagnosis: not numerically stable: subtract the max of the slice before exp.')

w('m14_ex5_softmax_over_queries','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s > 0, s, torch.ones_like(s))

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float('-inf'))
    w = softmax(scores, dim=-2)   # wrong axis: normalises over the queries
    return w @ v, w
''','MISTAKE: softmax itself correct, but attention normalises over dim=-2 (queries/columns sum to 1). Good diagnosis: softmax over the wrong axis: each ROW (query) must sum to 1 over keys (dim=-1).')

w('m15_ex5_mask_after_softmax','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s > 0, s, torch.ones_like(s))

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    w = softmax(scores, dim=-1)
    if mask is not None:
        w = w.masked_fill(~mask, 0.0)   # mask AFTER softmax: rows no longer sum to 1
    return w @ v, w
''','MISTAKE: mask applied after the softmax (zeroing weights) without renormalising. Good diagnosis: mask must be applied BEFORE softmax (-inf on scores); masking after leaves the hidden keys in the denominator so rows sum to < 1.')

w('m16_ex5_nan_fully_masked','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=dim, keepdim=True)
'''+SDPA_OK,'MISTAKE: stable softmax but no guard for an all -inf slice: max=-inf, -inf - -inf = NaN. Good diagnosis: the chapter\'s classic bug: fully masked row -> 0/0 NaN; use 0 as the shift where max is -inf and guard the sum.')

w('m17_ex5_nan_to_num','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    e = torch.exp(x - m)
    out = e / e.sum(dim=dim, keepdim=True)
    return torch.nan_to_num(out, nan=0.0)   # patch the NaN of a fully masked row afterwards
'''+SDPA_OK,'MISTAKE: patches NaN with nan_to_num after the fact: forward gives zeros but the backward through the NaN-producing ops gives NaN gradients. Good diagnosis: forward values right, gradient of a fully masked row is NaN: avoid producing NaN in the first place (shift by 0, guard the sum), patching afterwards does not fix the gradient.')

w('m18_ex5_scale_dv','exercise5',E5,'''
import math
import torch

def softmax(x, dim=-1):
    m = x.amax(dim=dim, keepdim=True)
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    e = torch.exp(x - m)
    s = e.sum(dim=dim, keepdim=True)
    return e / torch.where(s > 0, s, torch.ones_like(s))

def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.size(-1))   # d_v instead of d_k
    if mask is not None:
        scores = scores.masked_fill(~mask, float('-inf'))
    w = softmax(scores, dim=-1)
    return w @ v, w
''','MISTAKE: scales by sqrt(d_v) (v.size(-1)) instead of sqrt(d_k). Only differs when d_v != d_k. Good diagnosis: the scale is the width of the queries/keys being dot-producted (d_k), not of the values.')

E6='exercise6_multihead.py'
HDR6='''
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
'''
SPLIT_OK='''
def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)

def merge_heads(x):
    B, H, L, dh = x.shape
    return x.transpose(1, 2).contiguous().view(B, L, H * dh)
'''
MHA_OK='''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
'''
w('h09_ex6_reshape_permute_einsum','exercise6',E6,HDR6+'''
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
''','HONEST: reshape/permute split & merge; MHA in einsum without splitting via helpers, qkv viewed as (B,L,3,H,dh) (equivalent to split(D) then view). Expect full marks.')

w('m19_ex6_split_no_transpose','exercise6',E6,HDR6+'''
def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.reshape(B, n_heads, L, D // n_heads)   # straight reshape, no transpose

def merge_heads(x):
    B, H, L, dh = x.shape
    return x.reshape(B, L, H * dh)
'''+MHA_OK,'MISTAKE: split_heads reshapes (B,L,D) straight to (B,H,L,dh) and merge_heads reshapes back (consistent pair, so they are inverse to each other!). Each "head" then holds chunks from different tokens. Good diagnosis: reshaping directly to (B,H,L,dh) mixes tokens across heads; view as (B,L,H,dh) then transpose(1,2). Causality violated in MHA too.')

w('m20_ex6_merge_no_transpose','exercise6',E6,HDR6+'''
def split_heads(x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, n_heads, D // n_heads).transpose(1, 2)

def merge_heads(x):
    B, H, L, dh = x.shape
    return x.reshape(B, L, H * dh)    # forgot to move the heads back next to d_head
'''+MHA_OK,'MISTAKE: merge_heads reshapes without transposing back: output rows mix tokens. Good diagnosis: merge must transpose(1,2) first so each token holds its heads side by side; reshape alone reads the (H,L) grid in the wrong order.')

w('m21_ex6_scale_dmodel','exercise6',E6,HDR6+SPLIT_OK+'''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        if mask is None:
            mask = causal_mask(L, x.device)
        scores = q @ k.transpose(-2, -1) / math.sqrt(D)    # d_model, not d_head
        scores = scores.masked_fill(~mask, float('-inf'))
        w = torch.softmax(scores, dim=-1).masked_fill(~mask, 0.0)
        return self.out(merge_heads(w @ v))
''','MISTAKE: inline attention scales by sqrt(d_model) instead of sqrt(d_head). Good diagnosis: each head dot-products d_head-wide vectors, so the scale is sqrt(d_head); sqrt(d_model) over-shrinks the scores by sqrt(H).')

w('m22_ex6_qkv_per_head','exercise6',E6,HDR6+SPLIT_OK+'''
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
        # Megatron-style layout: per head [q|k|v] -- not this kit's [W_Q|W_K|W_V]
        qkv = self.qkv(x).view(B, L, H, 3 * dh).transpose(1, 2)
        q, k, v = qkv.split(dh, dim=-1)
        if mask is None:
            mask = causal_mask(L, x.device)
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
''','MISTAKE: cuts the fused qkv output per head (H blocks of [q|k|v]) instead of three D-wide blocks [Q|K|V] then heads. Good diagnosis: the fused layer holds W_Q, W_K, W_V side by side: split into q,k,v first (split(D)), then into heads. (Split/merge correct.)')

w('m23_ex6_mask_combined','exercise6',E6,HDR6+SPLIT_OK+'''
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=bias)
        self.out = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, L, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (split_heads(t, self.n_heads) for t in (q, k, v))
        causal = causal_mask(L, x.device)
        mask = causal if mask is None else (mask & causal)   # always causal
        y, _ = scaled_dot_product_attention(q, k, v, mask)
        return self.out(merge_heads(y))
''','MISTAKE: a given mask is ANDed with the causal mask instead of replacing it (docstring: replaces). Good diagnosis: a given mask replaces the causal one (e.g. a bidirectional or padding-only mask); yours still hides the future.')
