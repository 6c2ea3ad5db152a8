# lumen-unseen: exercise=1 kind=honest
# method: float16/bfloat16 inputs are multiplied in float32 and cast back (float32/float64 untouched); fused = one product then a list-comprehension of slices
import torch


def _mm(x, w):
    if x.dtype in (torch.float16, torch.bfloat16):
        return (x.float() @ w.float()).to(x.dtype)
    return x @ w


def project(x, w_q, w_k, w_v):
    return _mm(x, w_q), _mm(x, w_k), _mm(x, w_v)


def fused_project(x, w_qkv):
    y = _mm(x, w_qkv)
    d = w_qkv.shape[-1] // 3
    q, k, v = [y[..., i * d:(i + 1) * d] for i in range(3)]
    return q, k, v
