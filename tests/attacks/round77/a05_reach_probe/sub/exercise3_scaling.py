"""Exercise 3 (attack a05): correct code, plus an import-time probe of what the confined child can
reach: classmates' folders, the kit's answer key, the judge's environment, other processes."""

import math
import os

import torch

_found = []
for path in ["/work/scratch20/solutions", "/work/scratch20/lumen_ref", "/work/round77", "/tmp", "/tmp/u65534",
             os.environ.get("TMPDIR", "?"), os.path.expanduser("~"), "/proc/1/environ", "/proc/self/mountinfo",
             "/work/scratch20/grader/catalog/exercise3_scaling/test_exercise3.py", "/etc/shadow", "/root"]:
    try:
        if os.path.isdir(path):
            _found.append(f"{path}: dir {sorted(os.listdir(path))[:6]}")
        else:
            with open(path, "rb") as f:
                _found.append(f"{path}: read {f.read(60)!r}")
    except BaseException as e:  # noqa
        _found.append(f"{path}: {type(e).__name__} {str(e)[:60]}")
try:
    _found.append("pids: " + str(sorted(int(p) for p in os.listdir("/proc") if p.isdigit())[:12]))
except BaseException as e:  # noqa
    _found.append(f"/proc: {type(e).__name__}")
print("PROBE uid", os.getuid(), "| " + " | ".join(_found))


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
