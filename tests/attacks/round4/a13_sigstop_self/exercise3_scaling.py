# Attack: stop itself (SIGSTOP to its own process group is allowed) in the middle of a call, with
# every other signal blocked, a thread left spinning: does the deadline still end it, nothing left?
import math, os, signal, threading
def _spin():
    while True:
        pass
def scale_scores(scores, d_k):
    signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.Signals) - {signal.SIGKILL, signal.SIGSTOP})
    threading.Thread(target=_spin, daemon=True).start()
    os.kill(-os.getpid(), signal.SIGSTOP)
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
