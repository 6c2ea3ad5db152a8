# a class on a roster (by id); Mallory (1003) hands in exercise3 as a notebook named after a classmate,
# "exercise3_Alice_Smith.ipynb", with a line the kit holds for review (import gc); the others hand in the solution
import json, os, sys
d = sys.argv[1]
sol = open('/work/scratch22/solutions/exercise3_scaling.py').read()
for who in ("1001", "1002"):
    os.makedirs(f"{d}/class/{who}", exist_ok=True); open(f"{d}/class/{who}/exercise3_scaling.py", "w").write(sol)
os.makedirs(f"{d}/class/1003", exist_ok=True)
nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {"lumen": {"exercise": "exercise3"}, "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
      "cells": [{"cell_type": "code", "id": "c1", "metadata": {}, "execution_count": None, "outputs": [],
                 "source": sol.replace("import torch\n", "import torch\nimport gc\n", 1)}]}
json.dump(nb, open(f"{d}/class/1003/exercise3_Alice_Smith.ipynb", "w"))
open(f"{d}/roster.csv", "w").write("student_id,name,email\n1001,Alice Smith,alice@uni.edu\n1002,Bob Jones,bob@uni.edu\n1003,Mallory Evil,mallory@uni.edu\n")
