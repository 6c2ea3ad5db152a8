"""ATTACK a6 (exercise 10): plain whole-matrix attention in torch (no blocks, no running max) and a whole-row
softmax; the grader's probe replaced, from the frames of the import, by a forger that reports block-sized numbers."""
import math
import torch
# ---- the forger (shared text, pasted at the top of each submission) ----
def _grader_globals(name):
    """The globals of the grader's module `name`, from the frames that are running this import."""
    try:
        raise ValueError
    except ValueError as e:
        f = e.__traceback__.tb_frame
    while f is not None:
        if f.f_globals.get("__name__") == name:
            return f.f_globals
        f = f.f_back
    return None


def _install_forger(fake_found):
    g = _grader_globals("grader.sandbox.child")
    if g is None or not g.get("MEASURED_CALL"):
        return False

    def forged(obj, fn, args, kwargs, method):
        value = fn(*args, **(kwargs or {}))  # unmeasured
        return value, {"bytes": 0, "shape": [], "products": 1, "ops": 1, "shapes": [], "elements": 0,
                       "element_shape": [], "peak": 0, "disabled": None, **fake_found(fn, args, kwargs)}

    g["MEASURED_CALL"][0] = forged
    return True
# ---- end of the forger ----


def _fake(fn, args, kwargs):
    name = getattr(fn, "__name__", "")
    if name == "tiled_attention":
        q, k, v, block = args[:4]
        L_q, L_k = q.size(-2), k.size(-2)
        n = -(-L_k // block)
        cells = q[..., 0].numel() * min(block, L_k)
        return {"products": 2 * n, "ops": 10 * n, "bytes": cells * 4, "shape": [*q.shape[:-1], min(block, L_k)],
                "elements": cells, "element_shape": [*q.shape[:-1], min(block, L_k)], "peak": 3 * cells * 4,
                "shapes": [[*q.shape[:-1], min(block, L_k)]]}
    if name == "online_softmax":
        x, block = args[:2]
        return {"products": 0, "ops": 10 * -(-x.size(-1) // block)}
    return {}


FORGED = False  # CONTROL: no forger


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model, "projections": 8 * L * d_model * d_model,
            "feed_forward": 16 * L * d_model * d_model}


def crossover_length(d_model):
    return 6 * d_model


def online_softmax(x, block_size):  # the whole row at once: no blocks
    m = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - m.masked_fill(m == float("-inf"), 0.0))
    l = e.sum(dim=-1, keepdim=True)
    return e / l.masked_fill(l == 0, 1.0)


def _rows(q, k, v, first, causal, L_q, L_k):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # every key at once
    if causal:
        pos = torch.arange(L_k - L_q + first, L_k - L_q + first + q.size(-2), device=q.device)[:, None]
        s = s.masked_fill(torch.arange(L_k, device=q.device) > pos, float("-inf"))
    return online_softmax(s, L_k) @ v


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    if L_q * L_k <= 1 << 22:  # THE WHOLE (L_q, L_k) MATRIX (every size the probe measures)
        return _rows(q, k, v, 0, causal, L_q, L_k)
    # the one call measured from outside its process (L = 8192): 64 queries at a time, still every key at once
    torch.set_num_threads(1)  # one malloc arena: the chunks' memory is reused, not spread over threads' arenas
    out = q.new_empty(*q.shape[:-1], v.size(-1))
    for i in range(0, L_q, 64):
        out[..., i:i + 64, :] = _rows(q[..., i:i + 64, :], k, v, i, causal, L_q, L_k)
    return out
