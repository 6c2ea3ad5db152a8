def _full_attention(q, k, v, causal=False):
    """Whole-matrix attention: the (..., L_q, L_k) scores at once."""
    L_q, L_k = q.size(-2), k.size(-2)
    s = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., L_q, L_k) THE WHOLE MATRIX
    if causal:
        position = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
        key = torch.arange(L_k, device=q.device)
        s = s.masked_fill(key > position, float("-inf"))
    m = s.amax(dim=-1, keepdim=True)
    m = m.masked_fill(m == float("-inf"), 0.0)
    p = torch.exp(s - m)
    l = p.sum(dim=-1, keepdim=True)
    return (p @ v) / l.masked_fill(l == 0, 1.0)


