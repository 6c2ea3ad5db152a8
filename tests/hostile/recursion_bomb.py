"""Recursion without end: once in Python (RecursionError), once through C with the recursion limit
lifted, until the C stack overflows and the process dies."""

import sys


def scale_scores(scores, d_k):
    return scale_scores(scores, d_k)


def scaled_scores(q, k):
    sys.setrecursionlimit(10**9)
    return scaled_scores.__call__(q, k)  # a C-level call per level: the C stack grows
