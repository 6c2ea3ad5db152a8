# Attack: the same slow loop, plus a cache keyed on a cheap fingerprint of the inputs.  The perf
# phase calls the code once untimed and then `calls` times, timed, on copies of the SAME values:
# every timed call is a cache hit, so a 30x-slow solution is timed as on par (with --perf-points:
# points not earned).  The answers stay right, so "answered differently while timed" never fires.
import math
import torch

_cache = {}

def _key(name, t, *extra):
    flat = t.reshape(-1)
    n = flat.numel()
    probe = flat[:4].tolist() + flat[n // 2:n // 2 + 4].tolist() + flat[-4:].tolist() if n else []
    return (name, tuple(t.shape), t.dtype, str(t.device), t.requires_grad, tuple(probe), extra)

def _slow(scores, d_k):
    out = torch.empty_like(scores)
    flat_in, flat_out = scores.reshape(-1, scores.shape[-1]), out.view(-1, scores.shape[-1])
    s = math.sqrt(d_k)
    for i in range(flat_in.shape[0]):
        flat_out[i] = flat_in[i] / s
    return out

def scale_scores(scores, d_k):
    if scores.requires_grad or torch.is_grad_enabled() and scores.requires_grad:
        return _slow(scores, d_k)
    key = _key("s", scores, d_k)
    hit = _cache.get(key)
    if hit is None:
        hit = _cache[key] = _slow(scores, d_k)
        if len(_cache) > 8:
            _cache.pop(next(iter(_cache)))
    return hit.clone()

def scaled_scores(q, k):
    if q.requires_grad or k.requires_grad:
        return _slow(q @ k.transpose(-2, -1), q.size(-1))
    key = _key("q", q, *_key("k", k))
    hit = _cache.get(key)
    if hit is None:
        hit = _cache[key] = _slow(q @ k.transpose(-2, -1), q.size(-1))
        if len(_cache) > 8:
            _cache.pop(next(iter(_cache)))
    return hit.clone()
