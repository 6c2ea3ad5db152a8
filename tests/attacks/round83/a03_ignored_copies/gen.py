# gen.py DIR N: DIR/exercise3_scaling.py (the honest solution, graded) and N empty notebooks
# exercise3_<long name>_K.ipynb at the bottom of a ~3500-character folder chain (not graded: each is
# named, with its whole path, in the student's record: the batch's notes and the report's `ignored`)
import sys, pathlib, shutil
out, n = pathlib.Path(sys.argv[1]), int(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
shutil.copy("/work/scratch20/solutions/exercise3_scaling.py", out / "exercise3_scaling.py")
deep = out.joinpath(*[("d%02d" % i) + "y" * 247 for i in range(14)])
deep.mkdir(parents=True, exist_ok=True)
for k in range(n):  # noqa
    (deep / f"exercise3_{'z' * 200}_{k:06d}.ipynb").touch()
