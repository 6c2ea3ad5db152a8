import torch
from torch.utils._python_dispatch import TorchDispatchMode

FORBIDDEN = ("softmax", "scaled_dot_product", "multi_head_attention")


class Watch(TorchDispatchMode):
    """Records forbidden aten ops (softmax / fused attention) and the largest tensor any op makes."""

    def __init__(self):
        super().__init__()
        self.max_numel, self.max_shape, self.bad = 0, None, set()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if any(w in str(func) for w in FORBIDDEN):
            self.bad.add(str(func))
        out = func(*args, **(kwargs or {}))
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if isinstance(o, torch.Tensor) and o.numel() > self.max_numel:
                self.max_numel, self.max_shape = o.numel(), tuple(o.shape)
        return out
