# odd bytes: BOM, invalid UTF-8 ÿþ in a comment, NUL-free, form feed , ESC [2J, RTL â€®
import math
# @LONG_LINE@ (run.py writes a 512 KiB comment here)
def scale_scores(scores, d_k):
    return scores / d_k  # wrong on purpose: a misconception for the class report
def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
s = 'í €'  # a UTF-8-encoded lone surrogate
