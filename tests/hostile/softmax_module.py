"""Exercise 5 with an nn.Softmax module. Appended to the solution, whose attention calls this
softmax."""

import torch.nn as nn


def softmax(x, dim=-1):
    return nn.Softmax(dim=dim)(x)

