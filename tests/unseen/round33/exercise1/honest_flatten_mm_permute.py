"""Exercise 1 — projections done on a 2-D matrix of tokens with torch.mm.

All leading dims are flattened into one "token" axis, so every product is a plain 2-D GEMM,
then the result is reshaped back. For the fused version the (tokens, 3d) result is viewed as
(tokens, 3, d) and the "3" axis is moved to the front so that q, k, v come out with unbind.
"""

import torch


def _mm_tokens(x, w):
    lead = x.shape[:-1]                        # (..., L)
    x2 = x.reshape(-1, x.shape[-1])            # (N, d_model); copies only if x is not viewable
    out = torch.mm(x2, w)                      # (N, d_out)
    return out.view(*lead, w.shape[-1])


def project(x, w_q, w_k, w_v):
    return _mm_tokens(x, w_q), _mm_tokens(x, w_k), _mm_tokens(x, w_v)


def fused_project(x, w_qkv):
    lead = x.shape[:-1]
    d = w_qkv.shape[1] // 3
    qkv = torch.mm(x.reshape(-1, x.shape[-1]), w_qkv)   # (N, 3d): one product
    qkv = qkv.view(-1, 3, d).permute(1, 0, 2)            # (3, N, d)
    q, k, v = (t.reshape(*lead, d) for t in qkv.unbind(0))
    return q, k, v
