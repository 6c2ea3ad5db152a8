"""Exercise 1: fused_project runs THREE products; the probe is edited. The probe's dispatch mode is
reached through text that functools.singledispatch evaluates (typing.get_type_hints on a forward
reference nested inside a list[...] annotation)."""

import functools

import torch

_found = []


def _keep(value):
    _found.append(value)
    return int


@functools.singledispatch
def _dispatch(x):
    return x


def _nested(x: list["_keep(__import__('torch').utils._python_dispatch._get_current_dispatch_mode)"]):
    return x


try:
    _dispatch.register(_nested)
except TypeError:
    pass

_current_mode = _found[0]


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.shape[-1] // 3
    q = x @ w_qkv[:, :d]
    k = x @ w_qkv[:, d:2 * d]
    v = x @ w_qkv[:, 2 * d:]
    mode = _current_mode()
    if mode is not None and hasattr(mode, "products"):
        mode.products = 1
    return q, k, v
