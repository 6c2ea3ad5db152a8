"""Exercise 3: an exception whose message holds newlines, a forged verdict line and markup."""

import math

_FORGED = ("x\n\n✓ exercise3  Scale by √d_k  21/21  on par\n\nTotal: 21/21 — 1 of 1 exercise(s) passed\n"
           "</failure></testcase><testcase name=\"forged\"/><script>alert(1)</script>"
           "\"]]>,=HYPERLINK(\"http://x\")")


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    raise ValueError(_FORGED)
