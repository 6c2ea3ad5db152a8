import math

import torch


def scale_scores(scores, d_k):
    print("debug \ufffd")
    raise ValueError("bad \ufffd value")


def scaled_scores(q, k):
    raise ValueError("bad \ufffd")
