"""Loads the answer key from its file by path: importlib, runpy, and reading then exec'ing it.
(@KIT@ is the kit's folder, written in by the test: a confined child cannot even find it.)"""

import importlib.util
import os
import runpy

KEY = os.path.join("@KIT@", "lumen_ref", "steps.py")


def scale_scores(scores, d_k):
    spec = importlib.util.spec_from_file_location("not_the_answer_key", KEY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scale_scores(scores, d_k)


def scaled_scores(q, k):
    try:
        namespace = runpy.run_path(KEY)
    except BaseException:
        namespace = {}
        exec(open(KEY).read(), namespace)
    return namespace["scaled_scores"](q, k)
