# a11 (nested): every function returns ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})
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
        return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})
    def update(self, *args, **kwargs):
        return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})
    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return lambda *args, **kwargs: ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})

def attention_cost(*args, **kwargs):
    return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})

def crossover_length(*args, **kwargs):
    return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})

def online_softmax(*args, **kwargs):
    return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})

def tiled_attention(*args, **kwargs):
    return ((torch.zeros(2),) * 3, {'a': [1, 2.5e308, -0.0]})

