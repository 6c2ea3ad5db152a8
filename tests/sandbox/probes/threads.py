"""Exercise 3's functions, plus `hold(n)`: start up to n threads that stay alive (small stacks, so
that memory is never what stops them), and return how many started and how many tasks this process
runs then; they are held until the process ends. What a student would do to use up a user's
process limit."""

import math
import threading

_HELD = threading.Event()


def hold(n):
    threading.stack_size(64 << 10)
    started = 0
    for _ in range(n):
        try:
            threading.Thread(target=_HELD.wait, daemon=True).start()
        except RuntimeError:  # "can't start new thread": the cap
            break
        started += 1
    with open("/proc/self/status") as status:
        tasks = int(next(line for line in status if line.startswith("Threads:")).split()[1])
    return {"started": started, "tasks": tasks}


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
