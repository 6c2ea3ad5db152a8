# lumen-unseen: exercise=1 kind=wrong
# mistake: fused_project splits the product into chunks of d_model (w_qkv.shape[0], as the chapter's split(D) where d = d_model) instead of w_qkv.shape[1] // 3
# expect: split|d_model|3d|third|width|columns|shape
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    y = x @ w_qkv
    parts = y.split(w_qkv.shape[0], dim=-1)
    return parts[0], parts[1], parts[2]
