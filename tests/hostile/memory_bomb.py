"""Allocates without bound: tensors kept in a list, then gigabyte Python byte strings."""

import torch


def scale_scores(scores, d_k):
    kept = []
    while True:
        kept.append(torch.empty(1 << 24))


def scaled_scores(q, k):
    kept = []
    while True:
        kept.append(bytearray(1 << 30))
