#!/bin/bash
# The two files this attempt graded (600 KB each, not committed): the solution of exercise 10 with one string
# of 200 000 nested format specs (sub), or of 200 000 flat ones (control, about: its exact text is not kept), written again here.
cd "$(dirname "$0")"; mkdir -p sub control; kit=${KIT:-../../../..}
for s in sub control; do cp "$kit/solutions/exercise10_tiled_attention.py" $s/; done
python3 -c "import sys; open(sys.argv[1], 'a').write('\nBANNER = \"' + '{:' * 200000 + '}' * 200000 + '\"\n')" sub/exercise10_tiled_attention.py
python3 -c "import sys; open(sys.argv[1], 'a').write('\nBANNER = \"' + '{:}' * 200000 + '\"\n')" control/exercise10_tiled_attention.py
