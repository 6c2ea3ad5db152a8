"""Exercise 1, with fused_project running three products; the grader's measure is rewritten from inside.

A function annotation that is a *name* (not a string literal) holds text at run time; torch's public
`torch.utils.data.argument_validation` decorator hands it to typing.get_type_hints, which evaluates it as code
(the same gap as a01, through torch instead of functools).
"""
import torch
from torch.utils.data import argument_validation

PAYLOAD = '''
import sys, gc
_g = next(o for o in gc.get_objects() if type(o) is dict and "WATCH" in o and "_watch" in o and "OPS" in o)
_orig = _g["WATCH"]
def _fake(fn, args, kwargs, obj=None):
    value, m = _orig(fn, args, kwargs, obj)
    m["every_product"] = min(m["every_product"], 1)
    m["reductions"] = 0
    m["combining"] = min(m["combining"], 1)
    m["products"] = max(m["products"], 1)
    return value, m
_g["WATCH"] = _fake
'''
CODE = "exec(PAYLOAD) or int"


def handler(x: CODE):
    return x


try:
    argument_validation(handler)
except Exception:
    pass


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    # three products (forbidden by the rule): each slice of w_qkv multiplied separately
    q = x @ w_qkv[..., :d]
    k = x @ w_qkv[..., d:2 * d]
    v = x @ w_qkv[..., 2 * d:]
    return q, k, v
