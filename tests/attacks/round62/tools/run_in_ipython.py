"""run_in_ipython.py NOTEBOOK: run its code cells in order in an IPython shell (as a kernel would), the check
cell included, and print what each printed (first lines) and whether it raised."""
import sys, io, contextlib, nbformat
from IPython.core.interactiveshell import InteractiveShell
nb = nbformat.read(sys.argv[1], as_version=4)
shell = InteractiveShell.instance()
for n, cell in enumerate(nb.cells, 1):
    if cell.cell_type != "code":
        continue
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        result = shell.run_cell(cell.source, store_history=True)
    text = out.getvalue().strip().splitlines()
    print(f"--- cell {n}: success={result.success} error={result.error_in_exec or result.error_before_exec!r}")
    for line in [l for l in text if l.strip()][-6:]:
        print("   ", line[:150])
