"""Attack: the naive clock patch. At import, replace time.thread_time, process_time, perf_counter,
monotonic, time (and their _ns forms) and time.clock_gettime by versions that run 20× slow, so
that any timing taken through them after the import reads a twentieth of the truth. The code is the
honest slow one."""

import math
import time

import torch

_FACTOR = 0.05


def _slowed(real):
    origin = real()
    return lambda *a: origin + (real(*a) - origin) * _FACTOR


for _name in ("thread_time", "process_time", "perf_counter", "monotonic", "time"):
    setattr(time, _name, _slowed(getattr(time, _name)))
    _ns = getattr(time, _name + "_ns", None)
    if _ns is not None:
        setattr(time, _name + "_ns", (lambda real: (lambda: int(real() * _FACTOR)))(_ns))
_real_clock_gettime = time.clock_gettime
time.clock_gettime = lambda clk: _real_clock_gettime(clk) * _FACTOR


def _slow_scale(scores, d_k):
    scale = math.sqrt(d_k)
    return torch.stack([scores[..., i, :] / scale for i in range(scores.size(-2))], dim=-2)


def scale_scores(scores, d_k):
    """scores / √d_k, one row at a time."""
    return _slow_scale(scores, d_k)


def scaled_scores(q, k):
    """Q K^T / √d_k, one query at a time."""
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]
    return _slow_scale(torch.stack(rows, dim=-2), q.size(-1))
