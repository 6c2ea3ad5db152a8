# gen.py DIR N: no exercise file at all, only N empty files exercise3_<200 z>_K.py (names "near" exercise 3's)
# at the bottom of a ~3500-character folder chain: the row is "no files", and its message names every one.
import sys, pathlib
out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
deep = out.joinpath(*[("d%02d" % i) + "y" * 247 for i in range(14)])
deep.mkdir(parents=True, exist_ok=True)
for k in range(n):
    (deep / f"exercise3_{'z' * 200}_{k:06d}.py").touch()
