# the odd files of this attempt (links, a FIFO, a 3 GB sparse file, a non-UTF-8 name, an unreadable file:
# not kept in git), made before run.sh uses them; KIT: the kit whose solutions a link points at
cd "$(dirname "$0")"
KIT=${KIT:-/work/scratch20}
rm -rf sub; mkdir sub
mkdir sub/exercise1_projection.py                                     # a folder
mkfifo sub/exercise2_scoring.py                                       # a named pipe
ln -s "$KIT/solutions/exercise3_scaling.py" sub/exercise3_scaling.py  # a link to the answer key
ln -s loop1 sub/exercise4_masking.py                                  # a link to nothing
truncate -s 3G sub/exercise5_softmax.py                               # 3 GB, sparse
printf 'import torch\n' > "sub/exercise6_multihead"$'\xff'".py"     # a name that is not UTF-8
cp "$KIT/solutions/exercise7_gqa.py" sub/ && chmod 000 sub/exercise7_gqa.py  # unreadable (as a user)
printf '{"cells": [{"cell_type": "code", "source": "x = 1\\n", "metadata": {}, "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}' > sub/exercise8_kv_cache.ipynb
python3 -c "print('[' * 200000)" > sub/exercise9_head_patterns.py     # nested beyond the parser
printf '\xef\xbb\xbf# -*- coding: latin-1 -*-\nx = "\xe9"\n' > sub/exercise10_tiled_attention.py  # a BOM and a latin-1 line
