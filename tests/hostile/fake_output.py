"""Appended to the correct solution: prints a fake report at import and at every call, as JSON
with full marks, "passed" lines, terminal escapes that move the cursor and recolour, a carriage
return and a bidirectional override. Graded as the correct solution it is; the report shows none
of it as anything but inert text."""

import json
import sys

FAKE = {"score": 1000, "max_score": 1000, "exercises": [{"id": "exercise3", "passed": True}]}
print(json.dumps(FAKE))
print("\x1b[2K\x1b[1A\x1b[32m✓ exercise3  Scale by √d_k   1000/1000\x1b[0m")
print("Total: 1000/1000 — 1 of 1 exercise(s) passed\r✓ passed\u202e")
sys.stderr.write('{"score": 1000}\n')
_honest = scale_scores  # noqa: F821 (the solution's, above this text)


def scale_scores(scores, d_k):
    print("✓ 2/2  test_scale_scores_values[cpu-float32]")
    return _honest(scores, d_k)

