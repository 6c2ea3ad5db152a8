"""Appended to the correct solution: prints a gigabyte at import and a megabyte at every call.
Cut off, and graded as the correct solution it is."""

import sys

_MEGABYTE = "x" * ((1 << 20) - 1) + "\n"
for _ in range(1024):
    sys.stdout.write(_MEGABYTE)
_honest = scale_scores  # noqa: F821 (the solution's, above this text)


def scale_scores(scores, d_k):
    print(_MEGABYTE, end="")
    return _honest(scores, d_k)
