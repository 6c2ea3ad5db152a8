# Simulates a student's Jupyter kernel: the cells below are run in order by a real IPython shell
# (InteractiveShell), as a notebook runs them; the last one is the released notebook's check cell.
import sys
from IPython.core.interactiveshell import InteractiveShell

CELL_HELPERS = '''import math
import torch


def _sqrt_dk(d_k):
    """A helper of my own, in its own cell above the exercise cell."""
    return math.sqrt(d_k)
'''
CELL_EXERCISE = '''def scale_scores(scores, d_k):
    """Divide raw scores by sqrt(d_k)."""
    return scores / _sqrt_dk(d_k)


def scaled_scores(q, k):
    """Q K^T / sqrt(d_k)."""
    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
'''
CELL_CHECK = "%run -m grader.course.notebooks exercise3"

shell = InteractiveShell.instance()
for cell in (CELL_HELPERS, CELL_EXERCISE, "print(scaled_scores(torch.ones(1, 2, 4), torch.ones(1, 3, 4)).shape)", CELL_CHECK):
    print(f">>> running cell: {cell.splitlines()[0]}", flush=True)
    shell.run_cell(cell, store_history=True)
    sys.stdout.flush()
