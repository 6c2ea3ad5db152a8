# simulate a Jupyter kernel: run cells in an IPython shell (store_history), then the check cell's function
import sys
from IPython.core.interactiveshell import InteractiveShell
from grader.course import notebooks
shell = InteractiveShell.instance()
cells = [
    "import math\nimport torch\n\n# my helpers\nEPS = 0.0\n",
    '''def scale_scores(scores, d_k):
    """Divide raw scores by sqrt(d_k)."""
    factor = math.sqrt(d_k)
    scaled = scores.float() / factor
    return scaled


def scaled_scores(q, k):
    d_k = q.size(-1)
    scores = q @ k.transpose(-2, -1)
    return scale_scores(scores, d_k)
''',
]
for c in cells:
    shell.run_cell(c, store_history=True)
print(notebooks.check_in_kernel(sys.argv[1] if len(sys.argv) > 1 else "exercise3", shell, verbose=False))
