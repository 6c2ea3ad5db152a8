"""Finding the student's code for an exercise: their .py file, or the code cells of their notebook.

In the folder the grader is pointed at, `exercise3_scaling.py` wins; without it, the one
`exercise3_*.ipynb` notebook there is used (`--notebook FILE` names one directly). A notebook's code
is its code cells, in order, with IPython's shell (`!`) and magic (`%`) lines dropped and cell magics
whose body is not Python (`%%bash`, `%%writefile`, ...) skipped: what the kernel ran as Python. It is
written to a temporary .py file that the sandbox imports like any student file, while the report
names the notebook.
"""

import ast
import io
import json
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK_SUFFIX = ".ipynb"
# Cell magics that run their body as Python in the kernel: the body is kept, the magic line dropped.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_ASSIGNED_MAGIC = re.compile(r"[ \t]*[\w.]+[ \t]*=[ \t]*[!%]")  # files = !ls, t = %timeit f()


class SubmissionError(ValueError):
    """The student's code cannot be found or read. `path`: the file looked for or read;
    `step`: the name of the failed step in the report ("find the file", "read the notebook")."""

    def __init__(self, message, path, step):
        super().__init__(message)
        self.path, self.step = Path(path), step


@dataclass(frozen=True)
class Found:
    shown: Path  # the file the student gave (.py or notebook): the report names it
    code: Path  # the Python file the sandbox imports


def find_file(exercise, folder):
    """The exercise's file in `folder`: its .py, else its one `exerciseN_*.ipynb`; None if neither.

    Several candidate notebooks (a Jupyter "-Copy1" beside the original) raise SubmissionError:
    grading one of them silently could grade the wrong one."""
    folder = Path(folder)
    script = folder / exercise.file_name
    if script.is_file():
        return script
    notebooks = sorted(p for p in folder.glob(f"exercise{exercise.number}_*{NOTEBOOK_SUFFIX}") if p.is_file())
    if len(notebooks) > 1:
        names = ", ".join(p.name for p in notebooks)
        raise SubmissionError(f"several notebooks for {exercise.id} in {folder}: {names}; pass "
                              "--notebook FILE to say which one to grade", folder, "find the file")
    return notebooks[0] if notebooks else None


def prepare(exercise, folder, work_dir, notebook=None):
    """The code to grade for `exercise` as a Found; a notebook's code is written into work_dir.

    notebook: a notebook file to grade instead of looking in `folder`. Raises SubmissionError."""
    path = Path(notebook) if notebook is not None else find_file(exercise, folder)
    if path is None:
        raise SubmissionError(
            f"no {exercise.file_name} in {folder} (nor an exercise{exercise.number}_*{NOTEBOOK_SUFFIX} "
            "notebook): pass --submission DIR", Path(folder) / exercise.file_name, "find the file")
    if notebook is None and path.suffix != NOTEBOOK_SUFFIX:
        return Found(path, path)
    code = Path(work_dir) / exercise.file_name
    code.write_text(notebook_code(path, exercise), encoding="utf-8")
    return Found(path, code)


def read_notebook(path):
    """The notebook at path as an nbformat v4 node; SubmissionError, naming the file, if it is not one."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        json.loads(text)
    except json.JSONDecodeError as error:
        message = (f"{path.name} is not a readable notebook: its JSON is broken at line {error.lineno}, "
                   f"column {error.colno} ({error.msg}); reopen and save it in Jupyter or Colab, or "
                   "download it again")
        raise SubmissionError(message, path, "read the notebook") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SubmissionError(f"cannot read {path}: {error}", path, "read the notebook") from None
    import nbformat  # a third of a second to import: only when there is a notebook to read

    try:  # the structure is validated: every cell has its type and its source as one string
        return nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as error:  # nbformat raises many types for JSON that is not a notebook
        raise SubmissionError(f"{path.name} is JSON but not a Jupyter notebook ({type(error).__name__}: "
                              f"{error})", path, "read the notebook") from None


def notebook_code(path, exercise=None):
    """The Python code of the notebook's code cells, in order, as one module's text.

    A cell that is not valid Python raises SubmissionError naming the cell. With `exercise`, a
    notebook whose metadata says it belongs to another exercise is refused too."""
    path = Path(path)
    notebook = read_notebook(path)
    lumen = notebook.metadata.get("lumen")  # written by `lumen-grade release`
    owner = lumen.get("exercise") if isinstance(lumen, dict) else None
    if exercise is not None and owner not in (None, exercise.id):
        raise SubmissionError(f"{path.name} is the notebook of {owner}, not {exercise.id}",
                              path, "read the notebook")
    parts, code_cells = [], 0
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.cell_type != "code":
            continue
        code_cells += 1
        code = python_source(cell.source)
        if code is None:
            continue
        try:
            ast.parse(code)
        except (SyntaxError, ValueError) as error:
            raise SubmissionError(_syntax_message(path, number, code_cells, cell.source, error),
                                  path, "read the notebook") from None
        parts.append(f"# {path.name}, cell {number}\n{code}")
    return "\n\n".join(parts) + "\n"


def _syntax_message(path, number, code_number, source, error):
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    where = f", line {error.lineno}" if getattr(error, "lineno", None) else ""
    return (f"{path.name}: cell {number} (code cell {code_number}, starting {first[:60]!r}) is not "
            f"valid Python{where}: {getattr(error, 'msg', error)}")


def python_source(source):
    """A cell's source as the Python the kernel runs, or None for a cell magic whose body is not
    Python. Shell and magic lines become blank lines (`pass` when indented), so line numbers stay
    those of the cell."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(maxsplit=1)
        if not magic or magic[0] not in PYTHON_CELL_MAGICS:
            return None
        lines[first] = ""
    kept = []
    for line in lines:
        stripped = line.lstrip()
        ipython_only = stripped.startswith(("!", "%")) and not stripped.startswith("!=")
        ipython_only = ipython_only or _ASSIGNED_MAGIC.match(line)
        if ipython_only and not _inside_statement(kept):
            indent = line[:len(line) - len(stripped)]
            line = f"{indent}pass" if indent else ""
        kept.append(line)
    return "\n".join(kept)


def _inside_statement(lines):
    """Whether the text so far ends inside brackets, a string or a backslash continuation, where a
    line starting with `%` or `!` is Python (a modulo, a string's text), not IPython syntax."""
    try:
        for _ in tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline):
            pass
    except tokenize.TokenError as error:
        return "EOF in multi-line" in str(error)
    except SyntaxError:
        return False
    return False
