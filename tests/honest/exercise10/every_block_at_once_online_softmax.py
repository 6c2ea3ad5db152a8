"""Exercise 10, honest: online_softmax reads every block at once (the row padded with -inf to whole
blocks, (..., blocks, block_size)), a running max by cummax over the blocks' maxima and each block's
sum rescaled to the last max, with no Python loop; tiled_attention the chapter's loop."""

import math

import torch


def attention_cost(L, d_model):
    """The FLOPs of one transformer layer at sequence length L, as the chapter counts them.

    L, d_model: ints >= 1. Returns a dict of ints:
      "core_attention": 4·L²·d_model  (S = Q Kᵀ and A V)
      "projections":    8·L·d_model²  (W_Q, W_K, W_V and W_O)
      "feed_forward":   16·L·d_model² (the feed-forward block, d_model -> 4·d_model -> d_model)
    """
    return {
        "core_attention": 4 * L * L * d_model,  # S = Q Kᵀ and A V: L·L·d multiply-adds each
        "projections": 8 * L * d_model * d_model,  # four (L, d) @ (d, d) products
        "feed_forward": 16 * L * d_model * d_model,  # (L, d) @ (d, 4d), then (L, 4d) @ (4d, d)
    }


def crossover_length(d_model):
    """The sequence length (an int) at which the core attention costs as much as the projections
    and the feed-forward block together: 4·L²·d = 24·L·d². GPT-2 small: crossover_length(768) == 4608."""
    return 6 * d_model


def online_softmax(x, block_size):
    n = x.size(-1)
    nb = -(-n // block_size)
    pad = nb * block_size - n
    xp = torch.nn.functional.pad(x, (0, pad), value=float("-inf"))
    blocks = xp.unflatten(-1, (nb, block_size))  # (..., nb, block) every block at once
    block_max = blocks.amax(dim=-1)  # (..., nb)
    m = block_max.cummax(dim=-1).values  # running max after each block
    shift = m.masked_fill(m == float("-inf"), 0.0)
    block_sum = torch.exp(blocks - shift.unsqueeze(-1)).sum(dim=-1)  # each block's sum at its running max
    final = shift[..., -1:]
    l = (block_sum * torch.exp(shift - final)).sum(dim=-1, keepdim=True)  # rescaled to the last max
    return torch.exp(x - final) / l.masked_fill(l == 0, 1.0)


def tiled_attention(q, k, v, block_size, causal=False):
    """softmax(Q Kᵀ / √d_k) V, exactly, reading K and V block_size keys at a time.

    q: (..., L_q, d_k)   k: (..., L_k, d_k)   v: (..., L_k, d_v), the same leading dims.
    block_size: int >= 1 (the last block may be shorter; block_size > L_k is one block).
    causal: query i sits at position L_k - L_q + i and may see keys 0 .. L_k - L_q + i; a query
            that may see no key gets a zero output.
    Returns the output (..., L_q, d_v) (no weights: they are never formed). Never build a tensor of
    shape (..., L_q, L_k): the largest one should be a block of scores, (..., L_q, block_size).
    It must train like whole-matrix attention: its gradients (autograd through your loop) are
    those of softmax(Q Kᵀ / √d_k) V, and finite for a query that sees no key.
    """
    L_q, L_k = q.size(-2), k.size(-2)
    m = torch.full_like(q[..., :1], float("-inf"))  # (..., L_q, 1) running max of each query's scores
    l = torch.zeros_like(m)  # (..., L_q, 1) running sum of e^(s - m)
    o = q.new_zeros(*q.shape[:-1], v.size(-1))  # (..., L_q, d_v) running sum of e^(s - m) v
    position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]  # (L_q, 1) where each query sits
    for start in range(0, L_k, block_size):
        k_block = k[..., start:start + block_size, :]  # (..., b, d_k) the last block may be shorter
        v_block = v[..., start:start + block_size, :]  # (..., b, d_v)
        s = q @ k_block.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, b) one block of scores
        if causal:
            key = torch.arange(start, start + k_block.size(-2), device=q.device)  # (b,) the keys' positions
            s = s.masked_fill(key > position, float("-inf"))  # (..., L_q, b) no peeking at the future
        m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))  # (..., L_q, 1)
        shift = m_new.masked_fill(m_new == float("-inf"), 0.0)  # (..., L_q, 1) no key seen yet: shift by 0
        rescale = torch.exp(m - shift)  # (..., L_q, 1) e^(m_old - m_new) <= 1
        p = torch.exp(s - shift)  # (..., L_q, b)
        l = l * rescale + p.sum(dim=-1, keepdim=True)  # (..., L_q, 1)
        o = o * rescale + p @ v_block  # (..., L_q, d_v)
        m = m_new
    return o / l.masked_fill(l == 0, 1.0)  # (..., L_q, d_v) a query that sees no key: 0 / 1
