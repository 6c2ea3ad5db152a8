import torch


def project(x, w_q, w_k, w_v):
    return tuple(torch.einsum("...ld,de->...le", x, w) for w in (w_q, w_k, w_v))


def fused_project(x, w_qkv):
    return torch.matmul(x, w_qkv).chunk(3, dim=-1)
