# generate sub/: every exercise's stub with each NotImplementedError replaced by a ValueError whose
# message repeats the staged file's name (batch replaces that name with the student's long path)
import re, sys, os, pathlib
src = pathlib.Path("/work/scratch20/exercises")
out = pathlib.Path(sys.argv[1]); depth = int(sys.argv[2]); width = int(sys.argv[3])
deep = out.joinpath(*[("d%02d" % i) + "x" * (width - 3) for i in range(depth)])
deep.mkdir(parents=True, exist_ok=True)
for f in sorted(src.glob("exercise*.py")):
    staged = f"submission/{f.name}"
    text = f.read_text()
    text = re.sub(r'raise NotImplementedError\((?:[^()]|\([^()]*\))*\)',
                  f'raise ValueError({(staged + " ") * 60!r})', text)
    (deep / f.name).write_text(text)
print(len(str(deep.relative_to(out))))
