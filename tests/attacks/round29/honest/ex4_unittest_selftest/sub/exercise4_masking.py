import contextlib
import unittest

import numpy as np
import torch


def causal_mask(L, device=None):
    return torch.ones(L, L, dtype=torch.bool, device=device).tril()


def apply_mask(scores, mask):
    out = scores.clone()
    with contextlib.suppress(RuntimeError):  # nothing to do when the mask keeps everything
        pass
    return out.masked_fill(mask.logical_not(), float("-inf"))


def padding_mask(lengths, L):
    return (torch.arange(L, device=lengths.device) < lengths.unsqueeze(-1)).unsqueeze(-2)


class MaskTests(unittest.TestCase):
    def test_causal(self):
        np.testing.assert_array_equal(causal_mask(3).numpy(), np.tril(np.ones((3, 3), dtype=bool)))

    def test_padding(self):
        self.assertEqual(tuple(padding_mask(torch.tensor([1, 3]), 4).shape), (2, 1, 4))


if __name__ == "__main__":
    unittest.main()
