"""Exercise 5 (softmax, scaled_dot_product_attention), slow on purpose: every softmax is computed
REPEAT times (REPEAT - 1 of them wasted), as a student who recomputes things would.

Knobs (set per attack; all 0 / 1.0 gives the honest slow control):
  HIDDEN  passes done before the child starts its clock: the module's class is swapped for one
          whose __getattribute__ runs when the child looks the function up (Session.target), reads
          the request's arguments from the caller's frame and does those passes there.
  SHARE   share of the rows computed by a second thread at the same time (0: one thread).
  PATCH   1: the child's clock module (reached through the frames) reports the calling thread's
          CPU time as "the process's", so the worker's CPU is missing from the child's own figures.
  WAIT    1: the main thread blocks on the worker (a voluntary context switch when it is not done),
          0: it spins until the worker is done; 2 (with PATCH): as 1, and the patched clock module
          also reports one "wait" per call, so the judge always takes the wall clock.
The work done is the same whatever the knobs."""
import math
import sys
import threading
import types

import torch

REPEAT = 3
HIDDEN = 0
SHARE = 0.5
PATCH = 0
WAIT = 1


def _softmax(x, dim=-1):
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)
    e = torch.exp(x - x_max)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def _passes(x, times):
    out = None
    for _ in range(times):
        out = _softmax(x, -1)
    return out


# -- a second thread -------------------------------------------------------------------------------

class _Worker:
    def __init__(self):
        self.cond = threading.Condition()
        self.job = None
        threading.Thread(target=self._loop, daemon=True).start()

    def _loop(self):
        while True:
            with self.cond:
                while self.job is None:
                    self.cond.wait()
                job, self.job = self.job, None
            fn, args, box = job
            try:
                box["value"] = fn(*args)
            except BaseException as error:  # handed back to the caller
                box["error"] = error
            box["done"].set()

    def submit(self, fn, *args):
        box = {"done": threading.Event()}
        with self.cond:
            self.job = (fn, args, box)
            self.cond.notify()
        return box


_worker = _Worker() if SHARE > 0 else None


def _rows(x, times):
    """REPEAT-style passes of the softmax over the last dim, rows shared with the worker."""
    if _worker is None or x.numel() < (1 << 18) or x.device.type != "cpu" or x.requires_grad \
            or torch._C._len_torch_dispatch_stack() > 0 or times < 1:
        return _passes(x, times)
    flat = x.reshape(-1, x.size(-1))
    cut = int(round(flat.size(0) * SHARE))
    box = _worker.submit(_passes, flat[:cut], times)
    mine = _passes(flat[cut:], times)
    if WAIT:
        box["done"].wait()
    else:
        while not box["done"].is_set():
            pass
    if "error" in box:
        raise box["error"]
    return torch.cat([box["value"], mine]).view(x.shape)


# -- before the clock ------------------------------------------------------------------------------

_stash = {}
_last = [None, None]


def _scores(q, k, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    return scores


def _pre(name, request):
    args = request.get("args") or []
    if request.get("grad") is not None or not args or not all(isinstance(a, torch.Tensor) for a in args):
        return
    if args[0].requires_grad or args[0].numel() < (1 << 15):
        return
    if name == "softmax" and len(args) == 1:
        _stash["softmax"] = (args[0], _rows(args[0], HIDDEN))
    elif name == "scaled_dot_product_attention" and len(args) in (3, 4):
        scores = _scores(args[0], args[1], args[3] if len(args) == 4 else None)
        _stash["sdpa"] = (args[0], _rows(scores, HIDDEN), scores)


class _Module(types.ModuleType):
    def __getattribute__(self, name):
        if name in ("softmax", "scaled_dot_product_attention"):
            frame = sys._getframe(1)
            if frame.f_code.co_name == "target" and "request" in frame.f_locals:
                request = frame.f_locals["request"]
                if request is not _last[1]:
                    _last[1] = request
                    _stash.clear()
                    try:
                        _pre(name, request)
                    except Exception:
                        _stash.clear()
        return types.ModuleType.__getattribute__(self, name)


if HIDDEN:
    sys.modules[__name__].__class__ = _Module

if PATCH:
    _frame = sys._getframe()
    while _frame is not None:
        _clock = _frame.f_globals.get("clock")
        if _clock is not None and hasattr(_clock, "_process_time") and hasattr(_clock, "_thread_time"):
            _clock._process_time = _clock._thread_time
            if WAIT == 2:  # and one "wait" per reading: the judge then uses the wall clock
                _count = [0]

                def _waits(_count=_count):
                    _count[0] += 1
                    return _count[0]
                _clock.waits = _waits
            break
        _frame = _frame.f_back
    del _frame


# -- the exercise ----------------------------------------------------------------------------------

def softmax(x, dim=-1):
    got = _stash.pop("softmax", None)
    if got is not None and got[0] is x and dim in (-1, x.dim() - 1):
        out = got[1]
        if REPEAT > HIDDEN:
            out = _rows(x, REPEAT - HIDDEN)
        return out
    if dim not in (-1, x.dim() - 1):
        x_t = x.movedim(dim, -1)
        return _rows(x_t, REPEAT).movedim(-1, dim)
    return _rows(x, REPEAT)


def scaled_dot_product_attention(q, k, v, mask=None):
    got = _stash.pop("sdpa", None)
    if got is not None and got[0] is q:
        weights, scores = got[1], got[2]
        if REPEAT > HIDDEN:
            weights = _rows(scores, REPEAT - HIDDEN)
        return weights @ v, weights
    weights = _rows(_scores(q, k, mask), REPEAT)
    return weights @ v, weights
