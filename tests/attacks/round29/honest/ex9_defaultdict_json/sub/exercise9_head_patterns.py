import collections
import itertools
import json

import torch

# the thresholds of the chapter's table, kept as the JSON the notebook printed
DEFAULTS = json.loads('{"threshold": 0.4, "kinds": ["previous_token", "induction"]}')


def repeated_tokens(batch, seq_len, vocab_size, generator=None):
    first = torch.randint(vocab_size, (batch, seq_len), generator=generator)
    return torch.cat((first, first), dim=-1)


def previous_token_score(pattern):
    if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2) or pattern.size(-1) < 2:
        raise ValueError(f"bad pattern shape {tuple(pattern.shape)}")
    L = pattern.size(-1)
    rows = torch.arange(1, L)
    return pattern[:, :, rows, rows - 1].mean(dim=(0, 2))


def induction_score(pattern, seq_len):
    if pattern.ndim != 4 or pattern.size(-1) != pattern.size(-2) or pattern.size(-1) != 2 * seq_len or seq_len < 1:
        raise ValueError(f"bad pattern shape {tuple(pattern.shape)} for seq_len={seq_len}")
    rows = torch.arange(seq_len, 2 * seq_len)
    return pattern[:, :, rows, rows - seq_len + 1].mean(dim=(0, 2))


def find_heads(patterns, threshold=DEFAULTS["threshold"]):
    found = collections.defaultdict(list)
    for layer, pattern in enumerate(patterns):
        scores = {"previous_token": previous_token_score(pattern),
                  "induction": induction_score(pattern, pattern.size(-1) // 2)}
        for kind, head in itertools.product(DEFAULTS["kinds"], range(pattern.size(1))):
            if scores[kind][head] > threshold:
                found[kind].append((layer, head))
    return {kind: found[kind] for kind in DEFAULTS["kinds"]}
