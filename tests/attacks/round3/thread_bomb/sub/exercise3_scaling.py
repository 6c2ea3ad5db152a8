import math, os, sys, json, time
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

import threading
N = int(os.environ.get("ATTACK_N", "1500"))
threading.stack_size(65536)
ev = threading.Event(); n = 0; err = ""
try:
    for i in range(N):
        t = threading.Thread(target=ev.wait, daemon=True); t.start(); n += 1
except BaseException as e:
    err = type(e).__name__ + str(e)[:60]
tasks = len(os.listdir("/proc/self/task"))
ev.set()
print("ATTACK" + json.dumps({"threads": n, "tasks": tasks, "err": err}))
