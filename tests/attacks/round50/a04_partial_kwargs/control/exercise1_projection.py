"""Control: the same three products, no forge."""
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    q, k, v = x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]
    return q, k, v
