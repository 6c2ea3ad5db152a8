import torch

def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    t = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat([t, t], dim=1)

def _check(p):
    if p.dim() != 4 or p.shape[-1] != p.shape[-2]:
        raise ValueError("pattern must be (B, H, L, L)")

def previous_token_score(pattern):
    _check(pattern)
    if pattern.shape[-1] < 2:
        raise ValueError("L < 2")
    return pattern.diagonal(offset=-1, dim1=-2, dim2=-1).mean(dim=(0, 2))

def induction_score(pattern, seq_len):
    _check(pattern)
    if pattern.shape[-1] != 2 * seq_len:
        raise ValueError("L != 2 * seq_len")
    d = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)
    return d[..., 1:].mean(dim=(0, 2))

def find_heads(patterns, threshold=0.4):
    out = {"previous_token": [], "induction": []}
    for layer, p in enumerate(patterns):
        L = p.shape[-1]
        if L % 2:
            raise ValueError("odd L")
        prev = previous_token_score(p)
        ind = induction_score(p, L // 2)
        for h in range(p.shape[1]):
            if prev[h] >= threshold:
                out["previous_token"].append((layer, h))
            if ind[h] >= threshold:
                out["induction"].append((layer, h))
    return out
