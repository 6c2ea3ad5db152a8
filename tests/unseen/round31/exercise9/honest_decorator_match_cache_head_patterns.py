"""Exercise 9 — What heads learn.

A decorator validates the pattern argument (a `match` on its shape) for both scoring
functions; the flat indices of the stripe cells are memoised per (L, offset) with lru_cache.
HEADS_DEBUG=1 in the environment logs every head's scores.
"""

import functools
import logging
import os

import torch

log = logging.getLogger(__name__)
if os.environ.get("HEADS_DEBUG", "").lower() in {"1", "true", "yes"}:
    logging.basicConfig(level=logging.DEBUG)


def requires_square_pattern(fn):
    """Raise ValueError unless the first argument is a (B, H, L, L) tensor."""

    @functools.wraps(fn)
    def wrapper(pattern, *args, **kwargs):
        match tuple(pattern.shape):
            case (_, _, L, L2) if L == L2:
                pass
            case shape:
                raise ValueError(f"{fn.__name__}: pattern must be (B, H, L, L), got {shape}")
        return fn(pattern, *args, **kwargs)

    return wrapper


@functools.lru_cache(maxsize=128)
def _stripe_index(L: int, first_query: int, offset: int) -> torch.Tensor:
    """Flat indices q * L + (q + offset) into an (L, L) matrix for queries first_query .. L-1."""
    queries = torch.arange(first_query, L)
    return queries * L + (queries + offset)


def _stripe_mean(pattern, first_query, offset):
    B, H, L, _ = pattern.shape
    idx = _stripe_index(L, first_query, offset).to(pattern.device)
    cells = pattern.reshape(B, H, L * L).index_select(-1, idx)  # (B, H, n_queries)
    return cells.mean(dim=(0, 2))


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """An int64 (batch, 2*seq_len) CPU tensor: random tokens then the same tokens again."""
    half = torch.randint(vocab_size, size=(batch, seq_len), generator=generator)
    return torch.cat((half, half), dim=-1)


@requires_square_pattern
def previous_token_score(pattern):
    """(H,): mean of pattern[b, h, i, i-1] over every b and i >= 1."""
    if pattern.shape[-1] < 2:
        raise ValueError("previous_token_score needs L >= 2")
    return _stripe_mean(pattern, first_query=1, offset=-1)


@requires_square_pattern
def induction_score(pattern, seq_len):
    """(H,): mean of pattern[b, h, i, i - seq_len + 1] over every b and the second-half queries."""
    if pattern.shape[-1] != 2 * seq_len:
        raise ValueError(f"L={pattern.shape[-1]} but seq_len={seq_len}: L must be 2 * seq_len")
    return _stripe_mean(pattern, first_query=seq_len, offset=1 - seq_len)


def find_heads(patterns, threshold=0.4):
    """Previous-token and induction heads, as (layer, head) lists, score > threshold."""
    result = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        prev = previous_token_score(pattern)
        ind = induction_score(pattern, pattern.shape[-1] // 2)
        for head, (p, i) in enumerate(zip(prev.tolist(), ind.tolist())):
            log.debug("layer %d head %d: previous %.3f induction %.3f", layer, head, p, i)
            if p > threshold:
                result["previous_token"].append((layer, head))
            if i > threshold:
                result["induction"].append((layer, head))
    return result


if __name__ == "__main__":
    import argparse
    import time

    ap = argparse.ArgumentParser()
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--layers", type=int, default=6)
    a = ap.parse_args()
    L = 2 * a.seq_len
    g = torch.Generator().manual_seed(0)
    causal = torch.tril(torch.ones(L, L, dtype=torch.bool))
    pats = [
        torch.softmax(torch.randn(2, a.heads, L, L, generator=g).masked_fill(~causal, float("-inf")), -1)
        for _ in range(a.layers)
    ]
    t = time.perf_counter()
    heads = find_heads(pats, threshold=0.05)
    print(heads, f"{(time.perf_counter() - t) * 1e3:.1f} ms", _stripe_index.cache_info())
