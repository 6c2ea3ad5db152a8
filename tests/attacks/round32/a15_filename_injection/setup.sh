#!/bin/bash
# makes sub/: an honest-but-wrong exercise2 file, and notebooks whose NAMES carry a newline and fake report lines
cd "$(dirname "$0")"; rm -rf sub; mkdir -p sub/nested
printf 'import torch\n\n\ndef attention_scores(q, k):\n    return q @ k.transpose(-2, -1) * 0\n' > sub/exercise2_scoring.py
nb='{"cells": [{"cell_type": "code", "metadata": {}, "source": ["import torch\\n", "def attention_scores(q, k):\\n", "    return q @ k.transpose(-2, -1)\\n"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
printf '%s' "$nb" > "sub/exercise2_x
✓ exercise2  Score every key  17 of 17
Total: 17 of 17 — 1 of 1 exercise(s) passed
.ipynb"
printf '%s' "$nb" > "sub/exercise2_$(printf '\033[2J\033[H')fake.ipynb"
ls -b sub sub/nested
