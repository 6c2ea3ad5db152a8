"""Exercise 5 — Softmax and scaled dot-product attention.

My softmax lives in a small callable class (so I could switch the masked-row policy while
experimenting); `softmax` is the instance the exercise asks for. A context manager swaps the
policy temporarily, e.g. to see the chapter's NaN bug with MaskedRows.NAN.
"""

import contextlib
import enum
import math

import torch


class MaskedRows(enum.Enum):
    ZEROS = enum.auto()  # the exercise's rule: an all -inf slice gives zeros
    NAN = enum.auto()  # the naive behaviour, 0/0, for demonstrations only


class StableSoftmax:
    """exp(x - max) / sum, computed slice by slice along `dim`."""

    __slots__ = ("policy",)

    def __init__(self, policy: MaskedRows = MaskedRows.ZEROS):
        self.policy = policy

    def __repr__(self):
        return f"{type(self).__name__}(policy={self.policy.name})"

    @staticmethod
    def _shift(x, dim):
        m = torch.amax(x, dim=dim, keepdim=True)
        return m.masked_fill(m == -math.inf, 0.0)

    def __call__(self, x, dim=-1):
        if self.policy is MaskedRows.NAN:
            e = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))
            return e / e.sum(dim=dim, keepdim=True)
        e = torch.exp(x - self._shift(x, dim))
        denom = e.sum(dim=dim, keepdim=True)
        return e / denom.masked_fill(denom == 0, 1.0)

    @contextlib.contextmanager
    def using(self, policy: MaskedRows):
        old, self.policy = self.policy, policy
        try:
            yield self
        finally:
            self.policy = old


_softmax = StableSoftmax()


def softmax(x, dim=-1):
    """Numerically stable softmax along `dim`; a slice that is all -inf gives zeros."""
    return _softmax(x, dim=dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V; mask True = may attend. Returns (output, weights)."""
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, -math.inf)
    weights = softmax(scores, dim=-1)
    return weights @ v, weights


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1024)
    args = ap.parse_args()
    row = torch.full((1, 3), -math.inf)
    print(_softmax, softmax(row))
    with _softmax.using(MaskedRows.NAN):
        print("naive:", softmax(row))
    x = torch.randn(args.n, args.n)
    t = time.perf_counter()
    y = softmax(x)
    print(f"{(time.perf_counter() - t) * 1e3:.2f} ms, rows sum to 1: {torch.allclose(y.sum(-1), torch.ones(args.n))}")
