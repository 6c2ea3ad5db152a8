import torch

_found = []


def _keep(m):
    _found.append(m)
    return torch.Tensor


def _typed(x):
    # type: (_keep(__import__('gc'))) -> torch.Tensor
    return x


try:
    torch.jit.script(_typed)
except Exception as e:
    print("script failed:", type(e).__name__)
print(_found)
