import os, textwrap
R='/work/round68'
def w(name, ex, fname, code, expected):
    d=f'{R}/{name}'; os.makedirs(f'{d}/sub', exist_ok=True)
    open(f'{d}/sub/{fname}','w').write(textwrap.dedent(code).lstrip())
    open(f'{d}/expected.txt','w').write(expected.strip()+'\n')
    open(f'{d}/exercise.txt','w').write(ex+'\n')

E1='exercise1_projection.py'
w('h01_ex1_einsum_chunk','exercise1',E1,'''
import torch

def project(x, w_q, w_k, w_v):
    # einsum formulation, weights first
    q = torch.einsum('...ld,dk->...lk', x, w_q)
    k = torch.einsum('...ld,dk->...lk', x, w_k)
    v = torch.einsum('...ld,dv->...lv', x, w_v)
    return q, k, v

def fused_project(x, w_qkv):
    qkv = torch.matmul(x, w_qkv)
    d = w_qkv.shape[-1] // 3
    q = qkv[..., :d]
    k = qkv[..., d:2 * d]
    v = qkv[..., 2 * d:]
    return q, k, v
''','HONEST: einsum projections; fused via slicing. Expect full marks.')

w('m01_ex1_fused_interleaved','exercise1',E1,'''
import torch

def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v

def fused_project(x, w_qkv):
    qkv = x @ w_qkv
    # student thinks the columns are interleaved q,k,v,q,k,v,...
    q = qkv[..., 0::3]
    k = qkv[..., 1::3]
    v = qkv[..., 2::3]
    return q, k, v
''','MISTAKE: fused_project cuts the fused output as interleaved columns (0::3,1::3,2::3). Good diagnosis: W_QKV is [W_Q|W_K|W_V] side by side, three contiguous blocks of d columns; the strided cut mixes columns of all three. project() is right, so only fused_project tests fail.')

w('m02_ex1_v_with_wk','exercise1',E1,'''
import torch

def project(x, w_q, w_k, w_v):
    q = x @ w_q
    k = x @ w_k
    v = x @ w_k   # copy-paste slip
    return q, k, v

def fused_project(x, w_qkv):
    return (x @ w_qkv).split(w_qkv.shape[-1] // 3, dim=-1)
''','MISTAKE: copy-paste: V computed with W_K. When d_v != d_k shape is wrong; otherwise values equal K. Good diagnosis: values made with the wrong weight matrix (V = X W_K; should be X W_V). Note fused returns a tuple from split -- allowed?')

E2='exercise2_scoring.py'
w('h02_ex2_broadcast_sum','exercise2',E2,'''
import torch

def attention_scores(q, k):
    # explicit dot products via broadcasting: (..., Lq, 1, d) * (..., 1, Lk, d) summed over d
    return (q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1)
''','HONEST: broadcasting multiply + sum over d. Memory L*L*d but correct. Expect full marks (maybe fp16/bf16 accumulation tolerance a concern: sum of products in half precision).')

w('h03_ex2_einsum_mT','exercise2',E2,'''
import torch

def attention_scores(q, k):
    if q.dim() == 2:
        return torch.mm(q, k.t())
    return torch.einsum('...qd,...kd->...qk', q, k)
''','HONEST: torch.mm for 2-D, einsum for batched. Expect full marks.')

w('m03_ex2_transposed_scores','exercise2',E2,'''
import torch

def attention_scores(q, k):
    return k @ q.transpose(-2, -1)
''','MISTAKE: computes K Q^T = S^T, (L_k, L_q). Good diagnosis: operands swapped, rows are keys, not queries: S[i,j] must be q_i . k_j with shape (L_q, L_k).')

w('m04_ex2_dotT','exercise2',E2,'''
import torch

def attention_scores(q, k):
    return q @ k.T
''','MISTAKE: uses k.T, which reverses ALL dims (deprecated/error for ndim != 2); passes 2-D tests, fails batched. Good diagnosis: .T does not swap only the last two dims; use transpose(-2,-1)/mT so batch dims work.')

E3='exercise3_scaling.py'
w('h04_ex3_scale_q_first','exercise3',E3,'''
import math
import torch

def scale_scores(scores, d_k):
    return scores * (1.0 / math.sqrt(d_k))

def scaled_scores(q, k):
    d_k = q.shape[-1]
    # scale the queries first (as some implementations do), then the product
    return (q * d_k ** -0.5) @ k.transpose(-2, -1)
''','HONEST: multiply by reciprocal; scaled_scores scales q before the matmul. Mathematically identical; rounding differs slightly in fp16/bf16. Expect full marks.')

w('m05_ex3_div_dk','exercise3',E3,'''
import math
import torch

def scale_scores(scores, d_k):
    return scores / d_k

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
''','MISTAKE: divides by d_k not sqrt(d_k). Good diagnosis: over-scaling, variance goes to 1/d_k: you divided by d_k; the std of a dot product is sqrt(d_k).')

w('m06_ex3_dk_from_Lk','exercise3',E3,'''
import math
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    s = q @ k.transpose(-2, -1)
    d_k = s.size(-1)   # wrong: the number of keys, not their width
    return s / math.sqrt(d_k)
''','MISTAKE: scaled_scores takes d_k as the last dim of the SCORES (= L_k, number of keys). Good diagnosis: scaled by sqrt of sequence length L_k instead of width d_k (q.size(-1)); scale_scores is right.')

w('m07_ex3_multiply','exercise3',E3,'''
import math
import torch

def scale_scores(scores, d_k):
    return scores * math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
''','MISTAKE: multiplies by sqrt(d_k) instead of dividing. Good diagnosis: scaled the wrong way, spread grows to d_k; divide.')

E4='exercise4_masking.py'
w('h05_ex4_arange_where_loop','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    i = torch.arange(L, device=device)
    return i[:, None] >= i[None, :]

def apply_mask(scores, mask):
    neg_inf = torch.tensor(float('-inf'), dtype=scores.dtype, device=scores.device)
    return torch.where(mask, scores, neg_inf)

def padding_mask(lengths, L):
    B = lengths.shape[0]
    out = torch.zeros(B, 1, L, dtype=torch.bool, device=lengths.device)
    for b in range(B):
        out[b, 0, :int(lengths[b])] = True
    return out
''','HONEST: causal via arange comparison; apply_mask via torch.where; padding via a python loop. Expect full marks.')

w('h06_ex4_triu_not','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    # "future" positions are the strict upper triangle; the mask is its complement
    future = torch.triu(torch.ones(L, L, device=device), diagonal=1).bool()
    return ~future

def apply_mask(scores, mask):
    out = scores.clone()
    out[~mask.expand_as(scores)] = float('-inf')
    return out

def padding_mask(lengths, L):
    pos = torch.arange(L, device=lengths.device).expand(lengths.shape[0], L)
    return (pos < lengths.unsqueeze(1)).unsqueeze(1)
''','HONEST: complement of triu(diagonal=1); apply_mask via clone + boolean index assignment (in-place on a copy); padding via expand. Note mask.expand_as fails if mask has MORE dims than... (mask broadcastable to scores, so fine). Expect full marks. Gradient through index assignment on a clone is fine.')

w('m08_ex4_triu','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float('-inf'))

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
''','MISTAKE: triu instead of tril: each query sees itself and the FUTURE, not the past. Good diagnosis: mask is the upper triangle (transposed): row i must see columns 0..i; use tril.')

w('m09_ex4_fill_true','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(mask, float('-inf'))   # forgot ~: the mask says where attention is ALLOWED

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
''','MISTAKE: masked_fill(mask) instead of ~mask: hides the allowed keys, keeps the forbidden ones. Good diagnosis: mask convention inverted (True = may attend; fill where it is False).')

w('m10_ex4_large_negative','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(~mask, -1e9)   # "large negative" instead of -inf

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, None, :]
''','MISTAKE: -1e9 instead of -inf (common in tutorials). Good diagnosis: a finite large negative is not -inf: a fully masked row would get uniform weights rather than zeros, and scores of size ~1e9 are not masked; spec wants exactly -inf. (Note in fp16 -1e9 becomes -inf; in bf16 it stays finite.)')

w('m11_ex4_padding_le','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float('-inf'))

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] <= lengths[:, None])[:, None, :]
''','MISTAKE: padding off-by-one (j <= lengths[b]): the first padding key is visible. Good diagnosis: off by one: positions count from 0, real keys are 0..lengths[b]-1 (j < lengths[b]).')

w('m12_ex4_padding_query_axis','exercise4',E4,'''
import torch

def causal_mask(L, device=None):
    return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float('-inf'))

def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device)[None, :] < lengths[:, None])[:, :, None]   # (B, L, 1)
''','MISTAKE: padding mask shaped (B, L, 1): masks padding QUERIES (rows) not keys (columns). Good diagnosis: the 1 must be the query axis: (B,1,L) so that every query of sequence b sees the same real keys.')
