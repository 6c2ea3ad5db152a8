# a11 (nan): every function returns torch.full(_shape(args), float('nan'))
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
        return torch.full(_shape(args), float('nan'))
    def update(self, *args, **kwargs):
        return torch.full(_shape(args), float('nan'))
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: torch.full(_shape(args), float('nan'))

def causal_mask(*args, **kwargs):
    return torch.full(_shape(args), float('nan'))

def scaled_dot_product_attention(*args, **kwargs):
    return torch.full(_shape(args), float('nan'))

def split_heads(*args, **kwargs):
    return torch.full(_shape(args), float('nan'))

def merge_heads(*args, **kwargs):
    return torch.full(_shape(args), float('nan'))

MultiHeadAttention = _Any
