import math

import torch


def softmax(x, dim=-1):
    # the slice axis moved last, then one slice at a time: slow but exact
    moved = x.movedim(dim, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    rows = []
    for row in flat:
        finite = row[torch.isfinite(row)]
        shift = finite.max() if finite.numel() else row.new_zeros(())
        e = torch.exp(row - shift)
        total = e.sum()
        rows.append(e / total if total > 0 else e * 0)
    out = torch.stack(rows) if rows else flat
    return out.reshape(moved.shape).movedim(-1, dim)


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(q.size(-1)))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype, device=scores.device))
    weights = softmax(scores, -1)
    return weights @ v, weights
