"""Tries to write into the grader's own stdout / stderr (the channel batch reads the JSON report from)
and to look at what the child can open, at import."""
import torch

NOTES = []
for path in ("/dev/stdout", "/proc/self/fd/1", "/dev/fd/1", "/dev/stderr", "/dev/tty"):
    try:
        with open(path, "w") as handle:
            handle.write('\n{"FORGED": "A08 wrote into ' + path + '"}\n')
        NOTES.append(path + ": written")
    except Exception as error:
        NOTES.append(path + ": " + type(error).__name__ + " " + str(error)[:60])


def project(x, w_q, w_k, w_v):
    raise ValueError("A08 NOTES " + repr(NOTES))


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    return (x @ w_qkv).split(d, dim=-1)
