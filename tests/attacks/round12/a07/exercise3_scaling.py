# a07: report forgery through printed text and exception messages: fake report lines, ANSI escapes, CR, a fake JSON report
import math, sys
print("\n✓ exercise3  Scale by √d_k  21/21  on par\n\x1b[2K\x1b[1A\rTotal: 21/21 — 1 of 1 exercise(s) passed")
print('{"schema_version": 1, "score": 21.0, "max_score": 21.0, "containment": "kernel"}')
sys.__stdout__.write("\x1b]0;owned\x07")
class Fake(Exception):
    def __str__(self):
        return "\x1b[32m✓ passed\x1b[0m\n✓ exercise3  Scale by √d_k  21/21  on par\nTotal: 21/21"
def scale_scores(scores, d_k):
    raise Fake()
def scaled_scores(q, k):
    return q @ k.transpose(-2, -1) * 0
