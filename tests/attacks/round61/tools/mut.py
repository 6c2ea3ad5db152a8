# usage: python mut.py NAME EXSTEM  < edits.py  (edits.py defines EDITS = [(old,new),...])
import sys, pathlib, subprocess
name, stem = sys.argv[1], sys.argv[2]
ns = {}; exec(sys.stdin.read(), ns)
sol = pathlib.Path(f"/work/scratch20/solutions/{stem}.py").read_text()
src = sol
for old, new in ns["EDITS"]:
    assert old in src, ("not found", old)
    src = src.replace(old, new, 1)
d = pathlib.Path("/work/round61") / name
(d / "sub").mkdir(parents=True, exist_ok=True)
(d / "sub" / f"{stem}.py").write_text(src)
if ns.get("CONTROL", True):
    (d / "control").mkdir(exist_ok=True); (d / "control" / f"{stem}.py").write_text(sol)
ex = stem.split("_")[0]
subprocess.run(["bash", "/work/round61/mk61.sh", str(d), ex] + ns.get("FLAGS", []), check=True)
