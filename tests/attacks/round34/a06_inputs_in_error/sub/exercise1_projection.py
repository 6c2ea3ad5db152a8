"""project raises with its inputs' values in the message: does the report show hidden inputs?"""
import torch


def project(x, w_q, w_k, w_v):
    raise ValueError("LEAK " + repr(x.flatten()[:40].tolist()) + " W " + repr(w_q.flatten()[:10].tolist()))


def fused_project(x, w_qkv):
    import warnings
    warnings.warn("WARNLEAK " + repr(x.flatten()[:8].tolist()))
    print("PRINTLEAK", x.flatten()[:8].tolist())
    d = w_qkv.size(-1) // 3
    return (x @ w_qkv).split(d, dim=-1)
