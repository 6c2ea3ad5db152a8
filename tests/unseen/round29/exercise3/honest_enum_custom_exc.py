import enum
import math

import torch


class ScoringError(ValueError):
    """Raised when scores and d_k do not fit together."""


class Scale(enum.Enum):
    SQRT = "sqrt"
    NONE = "none"

    def factor(self, d_k):
        return math.sqrt(d_k) if self is Scale.SQRT else 1.0


DEFAULT = Scale.SQRT


def scale_scores(scores, d_k):
    if d_k <= 0:
        raise ScoringError(f"d_k must be positive, got {d_k}")
    return scores / DEFAULT.factor(d_k)


def scaled_scores(q, k):
    d_k = q.size(-1)
    return scale_scores(q @ k.transpose(-2, -1), d_k)
