# a11 (int): every function returns torch.ones(_shape(args), dtype=torch.int64)
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
        return torch.ones(_shape(args), dtype=torch.int64)
    def update(self, *args, **kwargs):
        return torch.ones(_shape(args), dtype=torch.int64)
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: torch.ones(_shape(args), dtype=torch.int64)

def causal_mask(*args, **kwargs):
    return torch.ones(_shape(args), dtype=torch.int64)

def scaled_dot_product_attention(*args, **kwargs):
    return torch.ones(_shape(args), dtype=torch.int64)

def split_heads(*args, **kwargs):
    return torch.ones(_shape(args), dtype=torch.int64)

def merge_heads(*args, **kwargs):
    return torch.ones(_shape(args), dtype=torch.int64)

MultiHeadAttention = _Any
