# a05: time: 64 threads spinning in C (torch) from import on, and a call that sleeps past the limit;
# the grading must end near --timeout, and nothing may survive it
import math, threading, time, torch
def spin():
    a = torch.randn(256, 256)
    while True:
        a = a @ a; a = a / a.norm()
for _ in range(80):
    try:
        threading.Thread(target=spin, daemon=True).start()
    except RuntimeError:
        break
def scale_scores(scores, d_k):
    time.sleep(3600)
    return scores / math.sqrt(d_k)
def scaled_scores(q, k):
    while True:
        pass
