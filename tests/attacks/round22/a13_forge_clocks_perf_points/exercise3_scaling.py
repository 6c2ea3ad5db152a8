"""a13: a correct but ~10x slow exercise 3, whose child's clock readings around each call are forged (through the
import's frames, as in a6) to a tenth of what they were, to win --perf-points."""
import math

import torch


def _grader_globals(name):
    try:
        raise ValueError
    except ValueError as e:
        f = e.__traceback__.tb_frame
    while f is not None:
        if f.f_globals.get("__name__") == name:
            return f.f_globals
        f = f.f_back


def _forge_clock():
    g = _grader_globals("grader.sandbox.child")
    if g is None:
        return False
    clock = g["clock"]
    real = clock.since

    def since(start):
        taken = real(start)
        return [x / 10 for x in taken[:3]] + taken[3:]

    clock.since = since
    return True


FORGED = _forge_clock()
assert FORGED, "forger not installed"


def scale_scores(scores, d_k):
    for _ in range(9):  # wasted work
        scores / math.sqrt(d_k)
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    for _ in range(9):
        q @ k.transpose(-2, -1)
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
