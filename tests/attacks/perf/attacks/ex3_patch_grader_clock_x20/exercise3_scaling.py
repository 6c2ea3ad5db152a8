"""Attack: patch the clocks the grader captured before the submission was imported. They are module
globals of the grader's timing code (_thread_time, _process_time, _perf_counter); the module was
dropped from sys.modules, but the timing loop's own frame (sys._getframe, no import) still holds
its globals. Replaced by clocks that run at 0.05 of the real rate, the child reports 0.05 of the true
time. The code is the honest slow one (its control: see run_perf_attacks.py)."""

import math
import sys

import torch

_FACTOR = 0.05
_patched = set()


def _patch():
    f = sys._getframe(2)
    while f is not None:
        g = f.f_globals
        if "_thread_time" in g and "_clock" in g and id(g) not in _patched:
            _patched.add(id(g))
            for name in ("_thread_time", "_process_time", "_perf_counter"):
                real = g[name]
                g[name] = (lambda real, origin: (lambda: origin + (real() - origin) * _FACTOR))(real, real())
        f = f.f_back


def _slow_scale(scores, d_k):
    scale = math.sqrt(d_k)
    return torch.stack([scores[..., i, :] / scale for i in range(scores.size(-2))], dim=-2)


def scale_scores(scores, d_k):
    """scores / √d_k, one row at a time."""
    _patch()
    return _slow_scale(scores, d_k)


def scaled_scores(q, k):
    """Q K^T / √d_k, one query at a time."""
    _patch()
    rows = [(q[..., i : i + 1, :] * k).sum(-1) for i in range(q.size(-2))]
    return _slow_scale(torch.stack(rows, dim=-2), q.size(-1))
