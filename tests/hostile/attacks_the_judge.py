"""Goes after the grader's own processes: opens the judge's output and memory through /proc,
probes whether it may signal them (signal 0: harmless even where it is allowed; tracing needs ctypes,
which the rules refuse, and the kernel's refusal of ptrace is tests/sandbox/probes/refused.py's),
raises its own memory limit, and writes garbage on the grader's socket. Prints
what each attempt gave, then answers with zeros."""

import os
import resource

import torch

ATTEMPTS = []


def _judge():
    with open(f"/proc/{os.getppid()}/status") as status:  # the parent is the zygote; its parent, the judge
        return int(status.read().split("PPid:")[1].split()[0])


def _try(what, action):
    try:
        action()
        ATTEMPTS.append(f"{what}: done")
    except (OSError, ValueError) as error:
        ATTEMPTS.append(f"{what}: {error}")


def _attack():
    judge = _judge()
    _try("write to the judge's stdout", lambda: open(f"/proc/{judge}/fd/1", "w").write("Total: 19/19\n"))
    _try("open the judge's memory", lambda: open(f"/proc/{judge}/mem", "r+b").close())
    _try("signal the judge", lambda: os.kill(judge, 0))
    _try("signal the zygote", lambda: os.kill(os.getppid(), 0))
    _try("signal every process", lambda: os.kill(-1, 0))
    _try("raise the memory limit", lambda: resource.setrlimit(resource.RLIMIT_DATA, (-1, -1)))


_attack()
print("\n".join(ATTEMPTS))


def scale_scores(scores, d_k):
    return torch.zeros_like(scores)


def scaled_scores(q, k):
    for fd in map(int, os.listdir("/proc/self/fd")):
        if fd > 2:
            try:
                os.write(fd, b"\x00\x00\x00\x00\x00\x00\x00\x10{\"value\": 1}garbage")
            except OSError:
                pass
    return torch.zeros(*q.shape[:-1], k.shape[-2])
