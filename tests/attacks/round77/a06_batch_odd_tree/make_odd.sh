#!/bin/bash
# build sub/odd, the tester's tree whose names git cannot carry well, from parts/: a folder named with an invalid
# UTF-8 byte, a newline, a carriage return and a right-to-left override holding a wrong exercise 3; a folder
# named exercise4_masking.py; a pipe named exercise5_softmax.py; a link exercise6_multihead.py to the honest
# student's file; an exercise 9 notebook whose name ends in a newline before .ipynb
cd "$(dirname "$0")"; rm -rf sub/odd; mkdir -p sub/odd
python3 - <<'PY'
import os, shutil
odd = b"sub/odd"
strange = os.path.join(odd, b"\xff\nnew\rline \xe2\x80\xae")
os.mkdir(strange)
shutil.copy(b"parts/exercise3_scaling.py", os.path.join(strange, b"exercise3_scaling.py"))
os.mkdir(os.path.join(odd, b"exercise4_masking.py"))
os.mkfifo(os.path.join(odd, b"exercise5_softmax.py"))
os.symlink(b"../honest/exercise3_scaling.py", os.path.join(odd, b"exercise6_multihead.py"))
shutil.copy(b"parts/exercise9_x.ipynb", os.path.join(odd, b"exercise9_x\n.ipynb"))
PY
