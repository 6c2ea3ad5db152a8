"""Raises what `except Exception` does not catch: KeyboardInterrupt, a bare BaseException, and
Ctrl-C sent to its own process group."""

import os
import signal


def scale_scores(scores, d_k):
    raise KeyboardInterrupt


def scaled_scores(q, k):
    os.killpg(0, signal.SIGINT)
    raise BaseException("still here")
