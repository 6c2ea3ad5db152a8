"""a15: inject markup into the instructor's pages: an exception message, a printed line and a
returned value's description carrying <script>, an <img onerror>, a closing </pre>/</textarea>/
--> and a javascript: link, for `batch --feedback DIR --class-report` (STUDENT.html,
class-report.html) and the JUnit/JSON reports."""
import math
import torch

PAYLOAD = ('A9X</pre></code></textarea></style></script>--><script>alert("a9")</script>'
           '<img src=x onerror=alert(1)><a href="javascript:alert(2)">19/19</a>\'"`${alert(3)}')
print(PAYLOAD)


class Injected(Exception):
    pass


def scale_scores(scores, d_k):
    raise Injected(PAYLOAD)


def scaled_scores(q, k):
    print(PAYLOAD)
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1)) + 1  # wrong: a mismatch report
