"""Exercise 3 (attack a02): wrong everywhere; the errors it raises carry text laid out like the grader's
own report lines (a pass), to see how a student's message is drawn in the report."""

import math

import torch

FAKE = ("\n\n\u2713 exercise3  Scale by \u221ad_k  21/21  on par\n\nTotal: 21/21 \u2014 1 of 1 exercise(s) passed\n"
        + "\n" * 40)


def scale_scores(scores, d_k):
    raise ValueError("shape" + FAKE)


def scaled_scores(q, k):
    raise ValueError("shape" + FAKE)
