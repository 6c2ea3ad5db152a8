"""Exercise 5 with torch.special.softmax. Appended to the solution, whose attention calls this
softmax."""

import torch.special


def softmax(x, dim=-1):
    return torch.special.softmax(x, dim)

