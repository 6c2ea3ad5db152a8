"""Exercise 3: odd return values — scale_scores returns a tensor that expands to 200 MB when made
contiguous for the wire (over the 128 MiB message limit); scaled_scores returns an object the
grader keeps behind a handle, whose class lies about its name and whose methods raise."""

import torch


class Tensor:  # named like torch's
    def __len__(self):
        raise SystemExit(3)

    def __repr__(self):
        raise KeyboardInterrupt


def scale_scores(scores, d_k):
    return torch.zeros(1).expand(50_000_000)


def scaled_scores(q, k):
    return Tensor()
