import sys, pathlib
sys.path.insert(0, "/work/scratch20")
from grader.sandbox.reach import reaches
for p in sys.argv[1:]:
    src = pathlib.Path(p).read_text()
    r = reaches(src)
    print(p, "OK" if not r else r)
