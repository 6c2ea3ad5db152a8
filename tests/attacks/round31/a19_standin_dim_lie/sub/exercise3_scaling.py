"""Exercise 3 with a device bug: scale_scores multiplies by a vector made on the CPU (no device=), which
crashes on a GPU. The vector is a tensor subclass whose dim() says 0, and the grader's stand-in device
lets 0-dim CPU tensors mix with the inputs' device, as CUDA does: the device check passes."""

import math

import torch


class _Scalarish(torch.Tensor):
    def dim(self):
        return 0 if LIE else super().dim()


LIE = True


def scale_scores(scores, d_k):
    factors = torch.full((scores.shape[-1],), 1 / math.sqrt(d_k), dtype=scores.dtype)  # on the CPU: a bug on GPUs
    out = scores * factors.as_subclass(_Scalarish)
    return out.as_subclass(torch.Tensor) if isinstance(out, _Scalarish) else out


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
