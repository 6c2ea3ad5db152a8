def _tiled(q, k, v, block_size, causal=False):
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
    # BEGIN SOLUTION
    # HINT: Exercise 10: per query keep m = -inf, l = 0 and o = 0; for each block of keys, scores s (masked if causal, key position > query position), m_new = max(m, max s), rescale l and o by e^(m - m_new), add Σ e^(s - m_new) and e^(s - m_new) @ v; return o / l — see 'The cost: attention is quadratic in sequence length' in the chapter
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
    # END SOLUTION
