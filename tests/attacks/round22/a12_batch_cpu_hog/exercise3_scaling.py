"""a12: a classmate's neighbour in `lumen-grade batch -j 2`: at import, fills the thread cap with spinning threads
(each GIL-free: a torch op in a loop), then keeps its child alive as long as its exercise's time limit allows."""
import math
import threading
import time

import torch


def _spin():
    a = torch.randn(256, 256)
    while True:
        a @ a  # releases the GIL: every thread runs on a core


for _ in range(60):
    threading.Thread(target=_spin, daemon=True).start()


def scale_scores(scores, d_k):
    time.sleep(30)  # keep the child (and its threads) alive
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
