# Attack: make the hidden tests "skipped" instead of failed, hoping skipped tests drop out of the
# maximum (as the CUDA ones do on a CPU machine): raise pytest's own Skipped / unittest's SkipTest
# (and an exception whose type is named "Skipped"), so the percentage would be computed on fewer tests.
import math
try:
    from _pytest.outcomes import Skipped
except Exception:  # pytest not importable in the child: a look-alike
    class Skipped(Exception):
        pass
import unittest
class _Named(Exception):
    pass
_Named.__name__ = _Named.__qualname__ = "Skipped"
def scale_scores(scores, d_k):
    raise Skipped("cuda is not available or not selected (--device)")
def scaled_scores(q, k):
    raise unittest.SkipTest("cuda is not available or not selected (--device)")
