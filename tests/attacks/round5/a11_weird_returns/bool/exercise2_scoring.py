# a11 (bool): every function returns torch.ones(_shape(args), dtype=torch.bool)
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
        return torch.ones(_shape(args), dtype=torch.bool)
    def update(self, *args, **kwargs):
        return torch.ones(_shape(args), dtype=torch.bool)
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: torch.ones(_shape(args), dtype=torch.bool)

def attention_scores(*args, **kwargs):
    return torch.ones(_shape(args), dtype=torch.bool)

