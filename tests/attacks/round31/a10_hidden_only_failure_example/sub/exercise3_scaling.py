"""Exercise 3: right on every input, except scores of magnitude over 1000 (only the hidden check has
them), where it divides by d_k instead of √d_k: does the report show the hidden check's inputs?"""

import math

import torch


def scale_scores(scores, d_k):
    if scores.numel() and float(scores.abs().max()) > 1000:
        return scores / d_k
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
