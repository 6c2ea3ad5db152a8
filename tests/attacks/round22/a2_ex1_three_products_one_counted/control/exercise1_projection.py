"""CONTROL for a2: the same three separate projections with @ (no disguise): the probe counts three."""
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    w_q, w_k, w_v = w_qkv[:, :d], w_qkv[:, d:2 * d], w_qkv[:, 2 * d:]
    return x @ w_q, x @ w_k, x @ w_v
