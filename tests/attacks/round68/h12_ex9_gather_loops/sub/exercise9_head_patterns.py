import torch

def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    first = torch.randint(0, vocab_size, size=(batch, seq_len), generator=generator, dtype=torch.long)
    return first.repeat(1, 2)

def _check(pattern):
    if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2):
        raise ValueError(f"expected (B, H, L, L), got {tuple(pattern.shape)}")

def previous_token_score(pattern):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L < 2:
        raise ValueError("need L >= 2")
    i = torch.arange(1, L, device=pattern.device)
    cells = pattern[:, :, i, i - 1]              # (B, H, L-1) advanced indexing
    return cells.sum(dim=(0, 2)) / (B * (L - 1))

def induction_score(pattern, seq_len):
    _check(pattern)
    B, H, L, _ = pattern.shape
    if L != 2 * seq_len:
        raise ValueError("L must be 2 * seq_len")
    i = torch.arange(seq_len, L, device=pattern.device)
    cells = pattern[:, :, i, i - seq_len + 1]
    return cells.mean(dim=-1).mean(dim=0)

def find_heads(patterns, threshold=0.4):
    prev, ind = [], []
    for layer in range(len(patterns)):
        p = patterns[layer]
        L = p.shape[-1]
        ps = previous_token_score(p)
        is_ = induction_score(p, L // 2) if L % 2 == 0 else None
        if is_ is None:
            raise ValueError("odd L")
        prev += [(layer, h) for h in range(p.shape[1]) if float(ps[h]) > threshold]
        ind += [(layer, h) for h in range(p.shape[1]) if float(is_[h]) > threshold]
    return {"previous_token": prev, "induction": ind}
