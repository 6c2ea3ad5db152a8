"""Imports fine; its first function never returns."""


def scale_scores(scores, d_k):
    while True:
        pass


def scaled_scores(q, k):
    while True:
        pass
