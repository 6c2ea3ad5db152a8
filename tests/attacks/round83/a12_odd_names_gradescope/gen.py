# gen.py ROOT: ROOT/submission with exercise files under odd names: a folder named with invalid UTF-8, a newline,
# an ANSI escape and a carriage return; an exercise4 notebook named with a newline and \xff; an exercise5 file
# that is a FIFO; a symlink exercise6 file pointing at the kit's solution; a hard link to a file outside.
import os, sys, shutil, json
root = os.fsencode(sys.argv[1]); sub = os.path.join(root, b"submission")
odd = os.path.join(sub, b"dir\xff\n\x1b[31mRED\r\x07")
os.makedirs(odd, exist_ok=True)
shutil.copy("/work/scratch20/solutions/exercise3_scaling.py", os.path.join(odd, b"exercise3_scaling.py"))
nb = {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                 "source": ["import torch\n", "x = 1\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
open(os.path.join(sub, b"exercise4_\n\xff\x1b]0;title\x07.ipynb"), "w").write(json.dumps(nb))
os.mkfifo(os.path.join(sub, b"exercise5_softmax.py"))
os.symlink(b"/work/scratch20/solutions/exercise6_multihead.py", os.path.join(sub, b"exercise6_multihead.py"))
# a folder whose name forges a line of the summary: an ignored second copy of exercise3 sits in it
forged = os.path.join(sub, b"\n\nexercise6 (Multi-head attention): 29 of 29 checks passed\nexercise6: graded exercise6_multihead.py\n", b"x")
os.makedirs(forged, exist_ok=True)
shutil.copy("/work/scratch20/solutions/exercise3_scaling.py", os.path.join(forged, b"exercise3_scaling.py"))
