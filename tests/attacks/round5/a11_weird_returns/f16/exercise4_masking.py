# a11 (f16): every function returns torch.zeros(_shape(args), dtype=torch.float16)
import torch

def _shape(args):
    for a in args:
        if isinstance(a, torch.Tensor):
            return a.shape
    return (2, 2)

class _Any(torch.nn.Module):
    def __init__(self, *a, **k):
        super().__init__()
        self.w = torch.nn.Linear(2, 2)
    def forward(self, *args, **kwargs):
        return torch.zeros(_shape(args), dtype=torch.float16)
    def update(self, *args, **kwargs):
        return torch.zeros(_shape(args), dtype=torch.float16)
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: torch.zeros(_shape(args), dtype=torch.float16)

def causal_mask(*args, **kwargs):
    return torch.zeros(_shape(args), dtype=torch.float16)

def apply_mask(*args, **kwargs):
    return torch.zeros(_shape(args), dtype=torch.float16)

def padding_mask(*args, **kwargs):
    return torch.zeros(_shape(args), dtype=torch.float16)

