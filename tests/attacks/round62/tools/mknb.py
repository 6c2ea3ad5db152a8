"""mknb.py OUT.ipynb EXERCISE_STEM CODE_FILE [extra cells...]: the released notebook of the exercise with
its code cell replaced by CODE_FILE's text; each extra argument is a file whose text is appended as a code cell
(before the scratch cell is kept as released)."""
import sys, nbformat
out, stem, code_file, *extra = sys.argv[1:]
nb = nbformat.read(f"/work/scratch20/exercises/notebooks/{stem}.ipynb", as_version=4)
nb.cells[1].source = open(code_file, encoding="utf-8").read().rstrip("\n")
for i, path in enumerate(extra):
    nb.cells.append(nbformat.v4.new_code_cell(open(path, encoding="utf-8").read().rstrip("\n"), id=f"extra-{i}"))
nbformat.write(nb, out)
