import math
import sys

import torch


def scale_scores(scores, d_k):
    """scores / sqrt(d_k), a new tensor."""
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    d_k = q.shape[-1]
    raw = torch.matmul(q, k.transpose(-1, -2))
    return scale_scores(raw, d_k)


def _self_test():
    torch.manual_seed(0)
    q, k = torch.randn(2, 5, 64), torch.randn(2, 7, 64)
    s = scaled_scores(q, k)
    print(f"{s.shape=} std={s.std().item():.3f} (should be about 1)")
    ok = s.shape == (2, 5, 7) and 0.5 < s.std().item() < 1.5
    print("ok" if ok else "FAILED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(_self_test())
