"""Exercise 2 — Score every key.

I wrote the scorer as a tiny class hierarchy, because later in the course other score
functions come up (additive attention from Bahdanau et al.). The exercise's function uses the
dot-product one.
"""

import abc

import torch


class Scorer(abc.ABC):
    """Something that compares every query with every key."""

    __slots__ = ()

    @abc.abstractmethod
    def __call__(self, q: "torch.Tensor", k: "torch.Tensor") -> "torch.Tensor":
        ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class DotProductScorer(Scorer):
    """S[..., i, j] = q_i · k_j, i.e. S = Q K^T."""

    __slots__ = ()

    @staticmethod
    def transpose_keys(k: "torch.Tensor") -> "torch.Tensor":
        return k.transpose(-2, -1)

    def __call__(self, q, k):
        return q @ self.transpose_keys(k)


_DOT = DotProductScorer()


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    return _DOT(q, k)


if __name__ == "__main__":
    print(_DOT)
    q, k = torch.randn(3, 4), torch.randn(5, 4)
    s = attention_scores(q, k)
    manual = torch.stack([torch.stack([qi.dot(kj) for kj in k]) for qi in q])
    print(s.shape, torch.allclose(s, manual, atol=1e-6))
