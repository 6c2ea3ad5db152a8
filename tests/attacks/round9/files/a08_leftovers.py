"""a08: outlive the grading or leave something behind: a thread that ignores SIGTERM and keeps
spinning, the scratch tmpfs filled (64 MiB, 4096 inodes), 1000 fds held, the child's own log file
grown to its cap; afterwards run.py checks for any process, /tmp entry or /dev/shm entry left."""
import os, signal, threading, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
def _spin():
    while True:
        time.sleep(0.05)
threading.Thread(target=_spin, daemon=False).start()
try:
    for i in range(5000):
        with open(f"f{i}", "wb") as fh:
            if i < 8:
                fh.write(b"\0" * (8 << 20))
except OSError as e:
    print("scratch full at", i, e.strerror)
held = []
try:
    for _ in range(1100):
        held.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    print("fds", len(held), e.strerror)
print("x" * (1 << 20))


# ---- honest exercise 3 (so that the probe's markers, not the grade, tell the story) ----
import math as _m


def scale_scores(scores, d_k):
    return scores / _m.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
