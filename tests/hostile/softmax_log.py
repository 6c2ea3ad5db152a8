"""Exercise 5 with exp of torch.log_softmax. Appended to the solution, whose attention calls this
softmax."""

import torch


def softmax(x, dim=-1):
    return torch.log_softmax(x, dim).exp()

