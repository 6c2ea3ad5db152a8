import math

import torch


def scale_scores(scores, d_k):
    print("debug \uffff\ufffe")
    raise ValueError("bad \uffff value \ufffe")


def scaled_scores(q, k):
    raise ValueError("bad \uffff")
