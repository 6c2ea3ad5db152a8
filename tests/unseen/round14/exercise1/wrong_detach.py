# lumen-unseen: exercise=1 kind=wrong
# mistake: project detaches x before the products ("inputs unchanged" misread), so no gradient reaches x
# expect: detach|gradient|autograd|train
import torch


def project(x, w_q, w_k, w_v):
    x = x.detach()
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    q, k, v = (x @ w_qkv).split(w_qkv.shape[-1] // 3, dim=-1)
    return q, k, v
