# a03 control: an honest softmax that does its work REPEAT times (about REPEAT x the reference).
import math
import torch

REPEAT = 3


def _softmax(x, dim):
    x_max = x.amax(dim=dim, keepdim=True)
    x_max = x_max.masked_fill(x_max == float("-inf"), 0.0)
    e = torch.exp(x - x_max)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def softmax(x, dim=-1):
    for _ in range(REPEAT - 1):
        _softmax(x, dim)
    return _softmax(x, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    """One head of attention, the chapter's formula: softmax(Q K^T / √d_k) V.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v)
    mask: None (every query reads every key: no causal mask is added), or a bool tensor on q's
          device broadcastable to (..., L_q, L_k); True = may attend, False = this query must not
          read this key. d_k is q.size(-1).
    Returns (output (..., L_q, d_v), weights (..., L_q, L_k)).
    Each row of weights sums to 1 over the keys the query may see; a query whose mask row is all
    False gets zero weights and a zero output. Use your own `softmax` above (and not torch's fused
    attention).
    """
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # steps 2 + 3: (..., L_q, L_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))  # -inf where NOT allowed: (..., L_q, L_k)
    weights = softmax(scores, dim=-1)  # step 4: (..., L_q, L_k) rows sum to 1 (0 if fully masked)
    return weights @ v, weights  # step 5, blend the values: (..., L_q, d_v), (..., L_q, L_k)
