import math

import torch


def attention_cost(L, d_model):
    return {"core_attention": 4 * L * L * d_model,
            "projections": 8 * L * d_model ** 2,
            "feed_forward": 16 * L * d_model ** 2}


def crossover_length(d_model):
    # 4 L^2 d = 24 L d^2  <=>  L = 6 d
    return 6 * d_model


def _blocks(n, size):
    """(start, stop) of each block."""
    for start in range(0, n, size):
        yield start, min(start + size, n)


class _Running:
    """The running max, sum and output of the online softmax."""
    __slots__ = ("_m", "_l", "_o")

    def __init__(self, m, l, o=None):
        self._m, self._l, self._o = m, l, o

    def add(self, s, v_block=None):
        m_new = torch.maximum(self._m, s.amax(dim=-1, keepdim=True))
        shift = m_new.masked_fill(m_new == -math.inf, 0.0)
        rescale = torch.exp(self._m - shift)
        p = torch.exp(s - shift)
        self._l = self._l * rescale + p.sum(dim=-1, keepdim=True)
        if v_block is not None:
            self._o = self._o * rescale + p @ v_block
        self._m = m_new

    def shift(self):
        return self._m.masked_fill(self._m == -math.inf, 0.0)

    def total(self):
        return self._l.masked_fill(self._l == 0, 1.0)


def online_softmax(x, block_size):
    run = _Running(torch.full_like(x[..., :1], -math.inf), torch.zeros_like(x[..., :1]))
    for start, stop in _blocks(x.size(-1), block_size):
        run.add(x[..., start:stop])
    return torch.exp(x - run.shift()) / run.total()


def tiled_attention(q, k, v, block_size, causal=False):
    L_q, L_k = q.size(-2), k.size(-2)
    scale = 1.0 / math.sqrt(q.size(-1))
    run = _Running(torch.full_like(q[..., :1], -math.inf), torch.zeros_like(q[..., :1]),
                   q.new_zeros(*q.shape[:-1], v.size(-1)))
    where = torch.arange(L_k - L_q, L_k, device=q.device)[:, None]
    for start, stop in _blocks(L_k, block_size):
        s = (q @ k[..., start:stop, :].transpose(-2, -1)) * scale
        if causal:
            s = s.masked_fill(torch.arange(start, stop, device=q.device) > where, -math.inf)
        run.add(s, v[..., start:stop, :])
    return run._o / run.total()
