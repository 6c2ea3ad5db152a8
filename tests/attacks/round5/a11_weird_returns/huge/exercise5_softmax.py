# a11 (huge): every function returns torch.full(_shape(args), 3e38)
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
        return torch.full(_shape(args), 3e38)
    def update(self, *args, **kwargs):
        return torch.full(_shape(args), 3e38)
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: torch.full(_shape(args), 3e38)

def softmax(*args, **kwargs):
    return torch.full(_shape(args), 3e38)

def scaled_dot_product_attention(*args, **kwargs):
    return torch.full(_shape(args), 3e38)

