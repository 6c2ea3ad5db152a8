# lumen-unseen: exercise=1 kind=honest
# method: einsum for the three projections; fused = one einsum then Tensor.chunk into three
import torch


def project(x, w_q, w_k, w_v):
    q = torch.einsum("...ld,de->...le", x, w_q)
    k = torch.einsum("...ld,de->...le", x, w_k)
    v = torch.einsum("...ld,de->...le", x, w_v)
    return q, k, v


def fused_project(x, w_qkv):
    both = torch.einsum("...ld,de->...le", x, w_qkv)  # the single product
    q, k, v = both.chunk(3, dim=-1)
    return q, k, v
