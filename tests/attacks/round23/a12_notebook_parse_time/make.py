# attack/: exercise1..3 as notebooks of 275 000 empty raw cells each (15.9 MiB: just under the 16 MiB cap);
# control/: the same notebooks with 10 cells
import json, os, sys
for folder, n in (("attack", 275000), ("control", 10)):
    os.makedirs(folder, exist_ok=True)
    cells = [{"cell_type": "raw", "metadata": {}, "source": "", "id": f"c{i}"} for i in range(n)]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, separators=(",", ":"))
    for name in ("exercise1_projection", "exercise2_scoring", "exercise3_scaling"):
        open(f"{folder}/{name}.ipynb", "w").write(text)
