# py2nb.py SRC.py OUT.ipynb : each "# %%" chunk becomes a code cell, a markdown cell first
import json, sys
src = open(sys.argv[1]).read()
chunks = [c.strip("\n") for c in src.split("# %%\n")]
cells = [{"cell_type": "markdown", "metadata": {}, "source": "# notebook"}]
for c in chunks:
    cells.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [], "source": c})
json.dump({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, open(sys.argv[2], "w"), indent=1)
