"""Exercise 3's functions, plus `hold(n)`: start up to n threads that stay alive (small stacks, so
that memory is never what stops them), and return how many started; they are held until the
process ends. What a student would do to use up a user's process limit."""

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
    return started


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
