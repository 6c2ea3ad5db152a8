# What the notebook's own check cell (%run -m grader.course.notebooks exercise1) grades: the kernel's input
# history through code_from_history. The scratch cell with `fused_project?` is skipped there (SyntaxError ->
# continue), so the check cell grades the code cell alone, while the handed-in notebook is refused whole.
import json
from grader import catalog
from grader.course.notebooks import code_from_history
nb = json.load(open("sub/exercise1_projection.ipynb"))
history = ["", *[c["source"] if isinstance(c["source"], str) else "".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]]
code = code_from_history(catalog.find("exercise1"), history)
import ast; ast.parse(code)
print("check cell grades", len(code), "chars of valid Python; has the '?' line:", "fused_project?" in code)
