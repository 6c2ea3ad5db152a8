import argparse
import timeit

import torch


def project(x, w_q, w_k, w_v):
    """Q, K, V: three products."""
    return torch.matmul(x, w_q), torch.matmul(x, w_k), torch.matmul(x, w_v)


def fused_project(x, w_qkv):
    """One product, then cut in three."""
    q, k, v = torch.matmul(x, w_qkv).chunk(3, dim=-1)
    return q, k, v


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="time the two projections")
    parser.add_argument("--L", type=int, default=512)
    parser.add_argument("--d", type=int, default=256)
    args = parser.parse_args()
    x = torch.randn(args.L, args.d)
    w = torch.randn(args.d, 3 * args.d)
    print("fused", timeit.timeit(lambda: fused_project(x, w), number=100))
    print("three", timeit.timeit(lambda: project(x, *w.chunk(3, dim=-1)), number=100))
