"""Exercise 3: the hidden checks' inputs kept in memory; once they were seen, every later call (the
diagnosis's smallest example, run after the hidden checks) raises an error whose message carries them.
scaled_scores is wrong on purpose (unscaled) so that a diagnosis runs."""

import math

KEPT = []


def scale_scores(scores, d_k):
    if scores.numel() and bool(scores.min() == scores.max()):
        KEPT.append(f"[{tuple(scores.shape)} d_k={d_k} all={scores.flatten()[0].item():g}]")
    elif len(KEPT) >= 2:
        raise ValueError("kept: " + "".join(KEPT))
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    if len(KEPT) >= 2:
        raise ValueError("kept: " + "".join(KEPT))
    return q @ k.transpose(-2, -1)  # wrong on purpose: not scaled
