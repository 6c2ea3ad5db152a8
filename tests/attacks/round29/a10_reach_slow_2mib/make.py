"""Writes sub/exercise2_scoring.py (about 2 MiB; not kept in git): a TABLE of 16910 lines."""
import pathlib

HEAD = 'import torch\n\na = 0.5\nTABLE = [\n'
LINE = '    a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,\n'
REST = ''
TAIL = ']\n\n\ndef attention_scores(q, k):\n    return q @ k.transpose(-2, -1)\n'
path = pathlib.Path(__file__).resolve().parent / "sub" / "exercise2_scoring.py"
path.parent.mkdir(exist_ok=True)
path.write_text(HEAD + LINE * 16910 + REST + TAIL)
