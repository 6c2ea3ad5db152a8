"""Exercise 1 — Project: queries, keys and values.

Solution with a small shape-checking decorator and a module logger. Set LUMEN_DEBUG=1 in the
environment to log the shapes going in and out of each function.
"""

import functools
import logging
import os

import torch

log = logging.getLogger(__name__)
DEBUG = os.getenv("LUMEN_DEBUG", "0") not in ("", "0", "false", "False")


def traced(fn):
    """Log the input and output shapes of fn when DEBUG is on; otherwise just call it."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        if DEBUG:
            log.debug(
                "%s%s -> %s",
                fn.__name__,
                [tuple(a.shape) for a in args if isinstance(a, torch.Tensor)],
                [tuple(o.shape) for o in out],
            )
        return out

    return wrapper


@traced
def project(x, w_q, w_k, w_v):
    """Make the queries, keys and values of every token with three matrix products.

    x: (..., L, d_model); w_q, w_k: (d_model, d_k); w_v: (d_model, d_v).
    Returns (q, k, v): (..., L, d_k), (..., L, d_k), (..., L, d_v).
    """
    q = torch.matmul(x, w_q)
    k = torch.matmul(x, w_k)
    v = torch.matmul(x, w_v)
    return q, k, v


@traced
def fused_project(x, w_qkv):
    """The same three projections from one matrix product with [W_Q | W_K | W_V]."""
    d = w_qkv.shape[-1] // 3
    qkv = torch.matmul(x, w_qkv)  # (..., L, 3d)
    q, k, v = torch.split(qkv, d, dim=-1)
    return q, k, v


if __name__ == "__main__":
    import argparse
    import time

    parser = argparse.ArgumentParser(description="self-test for exercise 1")
    parser.add_argument("--L", type=int, default=128)
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--reps", type=int, default=100)
    args = parser.parse_args()

    logging.basicConfig(level=logging.DEBUG if DEBUG else logging.INFO)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(4, args.L, args.d_model, generator=g)
    w = torch.randn(args.d_model, 3 * args.d_model, generator=g)
    wq, wk, wv = w.split(args.d_model, dim=1)

    t0 = time.perf_counter()
    for _ in range(args.reps):
        sep = project(x, wq, wk, wv)
    t1 = time.perf_counter()
    for _ in range(args.reps):
        fused = fused_project(x, w)
    t2 = time.perf_counter()
    print(f"separate: {(t1 - t0) / args.reps * 1e6:.1f} us   fused: {(t2 - t1) / args.reps * 1e6:.1f} us")
    print("max diff:", max((a - b).abs().max().item() for a, b in zip(sep, fused)))
