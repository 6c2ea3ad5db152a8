"""The student notebooks: one per exercise, built with nbformat from the stub and its introduction.

Each notebook has four cells, in this order:
  1. markdown: the exercise, how to work in the notebook, and the step's introduction, written for
     the kit (its declaration's `introduction`: what the step computes, its maths in LaTeX, the
     shapes, a worked example, the chapter section to read).
  2. code: the student file itself, the stub exactly as in `exercises/`.
  3. code: the check cell, `%run -m grader.course.notebooks exercise3` (`... exercise3 -v` lists every test).
  4. code: a scratch cell whose body sits under `if __name__ == "__main__":`.

Why the check cell is a `%run` line. A kernel cannot reliably tell which notebook file it runs
(Colab has no path at all, and a saved file may be older than the cells on screen), so the check
grades what the kernel ran: from IPython's input history it takes, for each name the exercise
defines, the last cell run that defined it, writes those cells to a temporary .py file and runs
`lumen-grade` on it in a fresh process (the kernel may already have set up CUDA, which a forked
sandbox could not use). And because the cell is a magic line, grading the notebook file skips it,
like every `%` line, so the check never runs inside the grader's sandbox.

Why the scratch guard: graded, a notebook is all its code cells in order, imported as a module, so
`__name__` is not "__main__" there and a failing experiment under the guard costs nothing.
"""

import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from grader import catalog
from grader.grading import submission

CHECK = "%run -m grader.course.notebooks {exercise}"  # the check cell's line
VERBOSE = ("-v", "--verbose")  # after it: list every test, with its points, as `lumen-grade -v` does
HINTS = "hints"  # after it: every level of the hints the course allows (`--hints all`)
# The check cell's grading process (a fresh one: see the top): `lumen-grade` with its arguments, its
# report naming the check cell's own ways to list every test and to see more of a hint. A program of its
# own, as `lumen-grade` is. Its code is graded from a temporary folder, so no ladder is kept: instead of
# `lumen-grade hint`'s next level, `hints` shows them all (round 76's P9: a notebook had no way up).
_GRADE = ("import sys; import grader.reports; from grader.reports import text; from grader.cli.main import main; "
          f"text.EVERY_TEST = {CHECK + ' ' + VERBOSE[0]!r}; grader.reports.NEXT_HINT = {CHECK + ' ' + HINTS!r}; "
          "main(sys.argv[1:], prog_name='lumen-grade')")


def intro_markdown(exercise, introduction):
    """The first cell: the exercise, how to work in the notebook, then its introduction (Markdown)."""
    names = ", ".join(f"`{name}`" for name in exercise.names)
    return "\n".join([
        f"# Exercise {exercise.number} — {exercise.title}",
        "",
        f"You write {names} in the code cell below: replace each `raise NotImplementedError(...)` "
        "with your code, then run the cell.",
        "",
        f"- **Check**: run the cell under it. It grades the code you ran with the same tests as "
        f"`lumen-grade {exercise.id}` (the Lumen kit must be installed where this notebook runs).",
        "- **Experiment** in the scratch cell at the end.",
        "- **Hand in** the notebook: every code cell is your answer, in order (`!` and `%` lines "
        "aside), so keep experiments under `if __name__ == \"__main__\":` as the scratch cell does, with "
        "what graded code may not import (numpy, matplotlib: a file that does is held for your instructor).",
        "",
        introduction.strip(),
    ])


def check_cell(exercise):
    return "\n".join([
        "# Check: run the code cell above, then this one. It grades the code you last ran in this",
        f"# notebook with the tests of `lumen-grade {exercise.id}`. It is not part of your answer.",
        CHECK.format(exercise=exercise.id),
    ])


def scratch_cell(exercise):
    return "\n".join([
        "# Scratch: try your code here. What runs under this `if` runs in the notebook, but not when",
        "# the notebook is graded, so an experiment that fails never costs you points.",
        'if __name__ == "__main__":',
        f"    help({exercise.names[0]})",
    ])


def build_notebook(exercise, code, introduction):
    """The exercise's notebook (an nbformat v4 node, validated, no outputs) around `code`, the
    step's `introduction` (Markdown) in its first cell."""
    new = nbformat.v4
    notebook = new.new_notebook(metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
        "lumen": {"exercise": exercise.id},
    })
    notebook.cells = [  # fixed ids, so a release is byte for byte the same every time
        new.new_markdown_cell(intro_markdown(exercise, introduction), id=f"{exercise.id}-intro"),
        new.new_code_cell(code.rstrip("\r\n"), id=f"{exercise.id}-code"),
        new.new_code_cell(check_cell(exercise), id=f"{exercise.id}-check"),
        new.new_code_cell(scratch_cell(exercise), id=f"{exercise.id}-scratch"),
    ]
    nbformat.validate(notebook)
    return notebook


def notebook_text(notebook):
    """A notebook as the text of its .ipynb file."""
    return nbformat.writes(notebook, version=4) + "\n"


# -- the check cell, run inside the student's kernel ------------------------------------------


def _defined_names(tree):
    """The names a cell's top level binds: its functions, classes, assignments and imports."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(part.id for target in targets for part in ast.walk(target)
                         if isinstance(part, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
    return names


def code_from_history(exercise, inputs):
    """The code behind the exercise's names in a kernel, from its input history (raw cell texts,
    in the order they ran): for each name, the last input that defined it, and for each name such an
    input reads, the last input that defined that (its imports and helpers: round 55's h02 kept them in
    a cell of their own); those inputs in the order they ran, as Python. None when no input defined any
    of the exercise's names."""
    inputs_run = _inputs_behind(exercise, inputs)
    return None if inputs_run is None else _joined(inputs_run)


def _joined(inputs_run):
    """The inputs' Python as one file, a blank line between two (`check_in_kernel` counts its lines so)."""
    return "\n\n".join(code for _, code in inputs_run) + "\n"


def _inputs_behind(exercise, inputs):
    """[(its index in the history, its Python)] of the inputs `code_from_history` takes, in order; or None."""
    codes, read, last = {}, {}, {}  # index -> its Python; -> the names it reads; name -> the last index defining it
    for index, raw in enumerate(inputs):
        code = submission.python_source(raw or "")
        try:
            tree = ast.parse(code) if code is not None else None
        except (SyntaxError, ValueError, MemoryError, RecursionError):  # a cell nested past the parser (round 62's a07)
            continue
        if tree is not None:
            codes[index], read[index] = code, {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
            last.update(dict.fromkeys(_defined_names(tree), index))
    wanted = {last[name] for name in exercise.names if name in last}
    pending = list(wanted)
    while pending:
        for source in {last[name] for name in read[pending.pop()] if name in last} - wanted:
            wanted.add(source)
            pending.append(source)
    if not wanted:
        return None
    return [(index, codes[index]) for index in sorted(wanted)]


def check_in_kernel(exercise_name, shell, verbose=False, hints=False):
    """What the check cell prints: the report of `lumen-grade` on the code the kernel ran (`hints`: with
    every level of its hints), each line it names as the kernel numbered the input (`In [7], line 3`),
    not as the file it was graded in."""
    exercise = catalog.find(exercise_name)
    inputs_run = _inputs_behind(exercise, shell.history_manager.input_hist_raw)
    if inputs_run is None:
        names = ", ".join(exercise.names)
        return f"Nothing to check yet: run the code cell that defines {names} first, then this cell."
    starts, line = [], 1  # (the first line of an input in the graded file, its index in the history)
    for index, code in inputs_run:
        starts.append((line, index))
        line += code.count("\n") + 2  # the blank line between two inputs
    with tempfile.TemporaryDirectory(prefix="lumen-check-") as folder:
        path = Path(folder) / exercise.file_name
        path.write_text(_joined(inputs_run), encoding="utf-8")
        done = subprocess.run([sys.executable, "-c", _GRADE, exercise.id, "--submission", folder,
                               *([VERBOSE[0]] if verbose else []), *(["--hints", "all"] if hints else [])],
                              capture_output=True, text=True, encoding="utf-8")

    def in_kernel(line):
        first, index = max((start for start in starts if start[0] <= line), default=starts[0])
        return f"In [{index}], line {line - first + 1}"

    shown = (done.stdout + done.stderr).replace(str(path), "(the code you ran in this notebook)")
    shown = re.sub(rf"{re.escape(exercise.file_name)},\s+line\s+(\d{{1,9}})\b", lambda m: in_kernel(int(m[1])), shown)
    # a diagnosis's located line ("line 10, in f"), written without its file: the same file's (nine digits at
    # most: a text of the code's own could name a line past what int() reads, round 75's a01)
    return re.sub(r"(?<!\], )\bline\s+(\d{1,9})(?=,\s+in\b)", lambda m: in_kernel(int(m[1])), shown)


def _ipython():
    """The running IPython shell, or None outside IPython (or where it is not installed)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()


def main(argv):
    """`%run -m grader.course.notebooks exercise3 [-v] [hints]` in a notebook. Returns an exit status."""
    shell = _ipython()
    flags = argv[1:]
    verbose, hints = any(flag in VERBOSE for flag in flags), HINTS in flags
    if shell is None or not argv or len(flags) != verbose + hints:
        print(f"Run this from a notebook cell: {CHECK.format(exercise='exercise3')} (add {VERBOSE[0]} to list "
              f"every test, {HINTS} to see every level of a hint). To grade a notebook file, use: lumen-grade "
              "exercise3 --notebook FILE", file=sys.stderr)
        return 2
    try:
        print(check_in_kernel(argv[0], shell, verbose, hints), end="")
    except catalog.UnknownExercise:
        print(f"unknown exercise {argv[0]!r}", file=sys.stderr)
        return 2
    return None


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
