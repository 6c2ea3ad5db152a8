# lumen-unseen: exercise=1 kind=honest
# method: torch.nn.functional.linear with the transposed weights (one call = one product each); fused = one F.linear then torch.tensor_split into 3
import torch
import torch.nn.functional as F


def project(x, w_q, w_k, w_v):
    return F.linear(x, w_q.t()), F.linear(x, w_k.t()), F.linear(x, w_v.t())


def fused_project(x, w_qkv):
    y = F.linear(x, w_qkv.t())
    q, k, v = torch.tensor_split(y, 3, dim=-1)
    return q, k, v
