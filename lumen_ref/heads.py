"""What heads learn: previous-token and induction heads, told apart by their attention patterns.

The chapter's "What heads learn": a previous-token head's pattern is a bright sub-diagonal (query i
reads key i-1); on a sequence repeated twice, an induction head's is a stripe seq_len-1 below the
diagonal in the second half (query i reads key i-seq_len+1, the token after the earlier copy of
its own token). Each score is the mean weight a head puts on those cells, one number per head.

`induction_model` is a two-layer attention-only transformer whose weights are set by hand, so
that it has exactly those two heads (layer 0 head 1 and layer 1 head 2), built as Olsson et al.
describe: the previous-token head writes "the token before me was X" into the residual stream,
and the induction head's keys read it (K-composition). Deterministic, and instant on a CPU.
"""

import math

import torch
import torch.nn as nn

from lumen_ref.attention import causal_mask, scaled_dot_product_attention
from lumen_ref.steps import merge_heads, split_heads


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    """(batch, 2*seq_len) int64: seq_len random tokens in [0, vocab_size), then the same again."""
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator)  # (B, T)
    return torch.cat([first, first], dim=1)  # (B, 2T)


def _check_pattern(pattern, name="pattern"):
    """pattern must be attention weights (B, H, L, L): a ValueError saying what it is otherwise."""
    if not isinstance(pattern, torch.Tensor) or pattern.dim() != 4 or pattern.size(-1) != pattern.size(-2):
        shape = tuple(pattern.shape) if isinstance(pattern, torch.Tensor) else type(pattern).__name__
        raise ValueError(f"{name} must be attention weights (B, H, L, L), got {shape}")
    return pattern.size(-1)  # L


def previous_token_score(pattern):
    """pattern (B, H, L, L), L >= 2 -> (H,): the mean weight query i puts on key i-1, over i >= 1 and the batch."""
    if _check_pattern(pattern) < 2:
        raise ValueError("a previous-token score needs L >= 2 (query 0 has no previous token)")
    below = pattern.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, L-1): [..., i-1] = pattern[..., i, i-1]
    return below.mean(dim=(0, 2))  # (H,)


def induction_score(pattern, seq_len):
    """pattern (B, H, 2T, 2T) on a sequence repeated twice (T = seq_len >= 1) -> (H,): the mean weight
    each query i of the second half puts on key i - T + 1, over those queries and the batch."""
    L = _check_pattern(pattern)
    if seq_len < 1 or L != 2 * seq_len:
        raise ValueError(f"pattern has L = {L} positions; a sequence of seq_len = {seq_len} repeated twice has "
                         f"2 * seq_len = {2 * seq_len}")
    stripe = pattern.diagonal(offset=1 - seq_len, dim1=-2, dim2=-1)  # (B, H, T+1): queries T-1 .. 2T-1
    return stripe[..., 1:].mean(dim=(0, 2))  # (H,): the second half only, queries T .. 2T-1


def find_heads(patterns, threshold=0.4):
    """patterns: one (B, H, L, L) per layer, on a sequence repeated twice (seq_len = L // 2, L even) ->
    {"previous_token": [(layer, head), ...], "induction": [...]}: the heads scoring above threshold, in
    (layer, head) order."""
    found = {"previous_token": [], "induction": []}
    for layer, pattern in enumerate(patterns):
        L = _check_pattern(pattern, f"patterns[{layer}]")
        scores = {"previous_token": previous_token_score(pattern), "induction": induction_score(pattern, L // 2)}
        for kind, score in scores.items():  # score: (H,)
            found[kind] += [(layer, head) for head in range(pattern.size(1)) if score[head] > threshold]
    return found


# A two-layer attention-only transformer, and the weights that give it its two heads


class AttentionOnlyLayer(nn.Module):
    """Causal multi-head self-attention that also returns its weights: the pattern a picture shows."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj = nn.Linear(d_model, d_model, bias=False)
        self.k_proj = nn.Linear(d_model, d_model, bias=False)
        self.v_proj = nn.Linear(d_model, d_model, bias=False)
        self.o_proj = nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        q, k, v = (split_heads(proj(x), self.n_heads) for proj in (self.q_proj, self.k_proj, self.v_proj))  # (B, H, L, dh)
        y, weights = scaled_dot_product_attention(q, k, v, causal_mask(x.size(1), x.device))  # (B, H, L, dh)
        return self.o_proj(merge_heads(y)), weights  # (B, L, D), (B, H, L, L)


class AttentionOnlyTransformer(nn.Module):
    """Token and position embeddings, attention layers adding to the residual stream, an unembedding:
    no MLP and no layer norm, so every head's job can be read off its weights."""

    def __init__(self, vocab_size, max_len, d_model, n_heads, n_layers=2):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(max_len, d_model)
        self.layers = nn.ModuleList(AttentionOnlyLayer(d_model, n_heads) for _ in range(n_layers))
        self.unembed = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx):
        """idx (B, L) token ids -> (logits (B, L, vocab_size), patterns: one (B, H, L, L) per layer)."""
        x = self.tok_emb(idx) + self.pos_emb(torch.arange(idx.size(1), device=idx.device))  # (B, L, D)
        patterns = []
        for layer in self.layers:
            y, weights = layer(x)
            x = x + y  # the residual stream: each layer adds what its heads read
            patterns.append(weights)
        return self.unembed(x), patterns


PREVIOUS_TOKEN_HEAD, INDUCTION_HEAD = (0, 1), (1, 2)  # (layer, head) in induction_model


def induction_model(vocab_size, max_len, sharpness=8.0):
    """An AttentionOnlyTransformer (2 layers of 3 heads) whose weights are set by hand.

    The residual stream has four one-hot subspaces: the token, the position, the previous token
    (written by layer 0) and the prediction (written by layer 1). Heads, as (layer, head):
      (0, 1) previous-token: position i's query matches position i-1's key; it copies that token
             into the previous-token subspace;
      (1, 2) induction: token t's query matches keys whose previous token is t (K-composition with
             (0, 1)); it copies the token it finds into the prediction, which the unembedding reads;
      (0, 2), (1, 0) attend to the first token (a "sink"), (0, 0), (1, 1) spread evenly (zero scores).
    `sharpness` is the score a match gets over a mismatch: the weight on the match is about
    e^sharpness / (e^sharpness + i) for query i.
    """
    V, P, n_heads = vocab_size, max_len, 3
    d_head = V + P  # room for a one-hot token or position in every head
    model = AttentionOnlyTransformer(V, P, n_heads * d_head, n_heads).requires_grad_(False)
    for parameter in model.parameters():
        parameter.zero_()
    tok, pos, prev, out = (torch.arange(V), V + torch.arange(P), V + P + torch.arange(V), 2 * V + P + torch.arange(V))
    model.tok_emb.weight[torch.arange(V), tok] = 1.0  # token t -> e_t
    model.pos_emb.weight[torch.arange(P), pos] = 1.0  # position p -> e_(V + p)
    s = sharpness * math.sqrt(d_head)  # attention divides the scores by √d_head

    def sink(layer, h):  # every query (at any position) matches position 0's key
        layer.q_proj.weight[h * d_head, pos] = s
        layer.k_proj.weight[h * d_head, pos[0]] = 1.0

    first, second = model.layers
    r = 1 * d_head  # head 1's rows in a projection's (out, in) weight
    first.q_proj.weight[r + torch.arange(P), pos] = s  # query i: e_i
    first.k_proj.weight[r + 1 + torch.arange(P - 1), pos[:-1]] = 1.0  # key j: e_(j+1), so it matches query j+1
    first.v_proj.weight[r + torch.arange(V), tok] = 1.0  # reads the key's token...
    first.o_proj.weight[prev, r + torch.arange(V)] = 1.0  # ...and writes it as "the token before me"
    sink(first, 2)
    sink(second, 0)
    r = 2 * d_head
    second.q_proj.weight[r + torch.arange(V), tok] = s  # query: my token t
    second.k_proj.weight[r + torch.arange(V), prev] = 1.0  # key: the token before me
    second.q_proj.weight[r + V, pos] = s  # and position 0, which has no token before it (layer 0
    second.k_proj.weight[r + V, pos[0]] = -1.0  # copied its own there), is never a match
    second.v_proj.weight[r + torch.arange(V), tok] = 1.0  # reads the token after the earlier t...
    second.o_proj.weight[out, r + torch.arange(V)] = 1.0  # ...and predicts it
    model.unembed.weight[torch.arange(V), out] = 1.0
    return model.eval()
