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
