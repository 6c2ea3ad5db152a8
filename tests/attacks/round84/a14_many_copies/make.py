# Mallory's folder: the solution of exercise3 plus N copies "exercise3_scaling (k).ipynb" (tiny, valid notebooks) and
# N-file sub-folders; two classmates hand in the solution. How big do Mallory's record, CSV row and page get, how long?
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
sol = open('/work/scratch22/solutions/exercise3_scaling.py').read()
for who in ("alice", "bob", "mallory"):
    os.makedirs(f"{d}/class/{who}", exist_ok=True); open(f"{d}/class/{who}/exercise3_scaling.py", "w").write(sol)
nb = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})
for k in range(n):
    sub = f"{d}/class/mallory/{'d%03d' % (k % 100)}"
    os.makedirs(sub, exist_ok=True)
    open(f"{sub}/exercise3_scaling ({k}) {'x' * 150}.ipynb", "w").write(nb)
