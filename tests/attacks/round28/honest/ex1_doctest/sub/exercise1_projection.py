"""Exercise 1, with doctests I ran while working (python exercise1_projection.py)."""
import doctest

import torch


def project(x, w_q, w_k, w_v):
    """
    >>> x = torch.eye(2); w = torch.ones(2, 3)
    >>> [t.shape for t in project(x, w, w, w)]
    [torch.Size([2, 3]), torch.Size([2, 3]), torch.Size([2, 3])]
    """
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    """
    >>> q, k, v = fused_project(torch.eye(2), torch.arange(12.).view(2, 6))
    >>> q.tolist(), v.tolist()
    ([[0.0, 1.0], [6.0, 7.0]], [[4.0, 5.0], [10.0, 11.0]])
    """
    return torch.chunk(x @ w_qkv, 3, dim=-1)


if __name__ == "__main__":
    doctest.testmod(verbose=False)
