"""Finding the student's code for an exercise: their .py file, or the code cells of their notebook.

In the folder the grader is pointed at, `candidates` ranks the files that may hold an exercise's
code and the first is graded: `exercise3_scaling.py`, else the notebook `exercise3_scaling.ipynb`,
else another `exercise3_*.ipynb` (`--notebook FILE` names one directly). A notebook's code
is its code cells, in order, with IPython's shell (`!`) and magic (`%`) lines dropped and cell magics
whose body is not Python (`%%bash`, `%%writefile`, ...) skipped: what the kernel ran as Python. It is
written to a temporary .py file that the sandbox imports like any student file, while the report
names the notebook.
"""

import ast
import functools
import itertools
import json
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from grader.grading.results import clean_text
from grader.grading.settings import DEFAULTS
from grader.sandbox import files

NOTEBOOK_SUFFIX = ".ipynb"
MAX_NOTEBOOK_BYTES = 16 << 20  # far more than any exercise's notebook, outputs included
MAX_NOTEBOOK_DEPTH = 64  # levels of JSON brackets: a notebook has about five
MAX_NOTEBOOK_CELLS = 1000  # an exercise's notebook has a dozen; nbformat validates each in Python (round 23's a12:
                           # 275 000 empty cells took 7.6 s a reading)
# Cell magics that run their body as Python in the kernel's namespace: the body is kept, the magic line dropped
# (not %%timeit: its body's names are never the kernel's, round 64's a03 graded code the notebook never defined)
PYTHON_CELL_MAGICS = frozenset({"time", "capture", "prun"})
# IPython's escapes that call a function at a line's start: `/f x` is f(x), `,f a b` f("a", "b"), `;f a b` f("a b")
_AUTOCALL = ("/", ",", ";")
# IPython's help: `fused_project?`, `torch.nn??`, `?torch.softmax`, `%timeit?`, `torch.*max*?` (never Python: `?`
# is no Python token); round 54's h01 lost a whole notebook to one in its scratch cell
_HELP = re.compile(r"[ \t]*(\?{1,2}[ \t]*%{0,2}[\w.*\[\]]+|%{0,2}[\w.*\[\]]+[ \t]*\?{1,2})[ \t]*(#.*)?")
_LINE_END = re.compile(r"\r\n?|\n")  # a line's end for Python: a lone CR too (round 27's a08)


FIND_STEP = "find the file"  # the step of a SubmissionError for a file that is not there at all


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
    cells: tuple = ()  # a notebook's code: (first line in `code`, cell number, code cell number), in order
    ignored: tuple = ()  # other candidates for the exercise, not graded (see `candidates`)

    def where(self, line):
        """Where line `line` of `code` came from: "exercise3.py, line 4" or, for a notebook,
        "exercise3.ipynb, cell 5 (code cell 3), line 2"."""
        starts = [cell for cell in self.cells if cell[0] <= line]
        if not starts:
            return f"{self.shown.name}, line {line}"
        start, number, code_number = starts[-1]
        return f"{self.shown.name}, cell {number} (code cell {code_number}), line {line - start + 1}"

    def written(self):
        """{name: line} of the functions the graded code defines at its top level and has written (not
        a stub that raises NotImplementedError; none if it cannot be parsed), so that a message can say
        what the student's own code already has."""
        try:
            tree = ast.parse(self.code.read_text(encoding="utf-8", errors="replace"))
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):  # too deep: round 23's a14
            return {}
        return {node.name: node.lineno for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not _a_stub(node)}

    def lines_named(self, text):
        """`text` with each line of the graded code it names bare ("at line 12, in f", as a diagnosis or a
        check's message locates a mistake), or by the graded file's path, named as `where` names it: a
        notebook's cell and line (round 71's a03 was told "line 12" of a file it never had). A .py file's
        text is unchanged."""
        if not self.cells:
            return text

        def named(match):  # a number past the code is not one of its lines
            return self.where(int(match.group(1))) if int(match.group(1)) <= self._lines else match.group(0)

        # and a warning's "/tmp/lumen-code-.../exercise9_x.py:27:" in what the code printed (round 75's a02)
        text = re.sub(re.escape(str(self.code)) + r":(\d{1,9}):", lambda match: named(match) + ":", text)
        return _BARE_LINE.sub(named, text)

    @functools.cached_property
    def _lines(self):
        """How many lines the graded code has (0 if it cannot be read)."""
        try:
            return len(self.code.read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            return 0

    def frame(self, frame):
        """A frame of the graded code as the child describes it ("exercise3_scaling.py, line 40,
        in f: ...") with its file and line as `where` names them (a notebook's cell and line)."""
        return _FRAME_PLACE.sub(lambda match: self.where(int(match.group(1))), frame, count=1)


_FRAME_PLACE = re.compile(r"^[^,]*, line (\d+)(?=, in )")  # the file and line of a child's frame
# a line named without its file; of nine digits at most (round 75's a01 returned a text naming a line of 5000
# digits, past what int() reads: no line of code has ten)
_BARE_LINE = re.compile(r"(?<![\w)\]], )\bline (\d{1,9})(?=, in )")


class WrongExercise(SubmissionError):
    """A notebook made for another exercise (its `lumen` metadata says so)."""


IGNORED_DIRS = {"__MACOSX", "__pycache__", "node_modules"}  # besides every folder starting with "."


class TreeTooLarge(SubmissionError):
    """A submission's folder past the bounds of the search (Settings.tree_depth, tree_entries,
    tree_bytes): a row marked error that says which, never a search without end."""


@dataclass(frozen=True)
class Listing:
    """What the search for exercise files saw in a submission's folder: `files`, every regular file;
    `others`, every entry that is neither a regular file nor a folder (a link, a pipe, a socket, a
    device), which is never graded: each is reported by its kind if it bears an exercise's name;
    `unreadable`, the folders that could not be read, so were not searched (said to the student)."""

    folder: Path
    files: tuple
    others: tuple
    unreadable: tuple = ()


def listing(folder, nested=False, limits=DEFAULTS):
    """The Listing of `folder` (nested: of its whole tree, hidden folders, caches and __MACOSX left
    out), walked without recursion and never through a link; TreeTooLarge past `limits.tree_depth`
    folder levels or `limits.tree_entries` entries. A folder that cannot be read is skipped, and listed."""
    folder = Path(folder)
    regular, others, unreadable, seen, todo = [], [], [], 0, [(folder, 0)]
    while todo:
        here, depth = todo.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    seen += 1
                    if seen > limits.tree_entries:
                        raise TreeTooLarge(f"your submission holds more than {limits.tree_entries} files and folders: "
                                           "hand in your exercise files, without a virtual environment or data",
                                           folder, FIND_STEP)
                    path = Path(entry.path)
                    if _is(entry.is_dir):
                        if nested and not entry.name.startswith(".") and entry.name not in IGNORED_DIRS:
                            if depth >= limits.tree_depth:
                                raise TreeTooLarge(f"your submission has folders more than {limits.tree_depth} levels "
                                                   "deep: hand in your exercise files in a shallower folder",
                                                   folder, FIND_STEP)
                            todo.append((path, depth + 1))
                    elif _is(entry.is_file):
                        regular.append(path)
                    else:
                        others.append(path)
        except OSError:  # gone, unreadable, or a path too long to open
            unreadable.append(here)
    return Listing(folder, tuple(regular), tuple(others), tuple(unreadable))


def _is(test):
    """A DirEntry's is_dir/is_file without following a link; False where the entry cannot be read."""
    try:
        return test(follow_symlinks=False)
    except OSError:
        return False


def candidates(exercise, folder, nested=False, found=None):
    """Every file under `folder` that may hold the exercise's code, best first. The rule, the same
    for `lumen-grade all`, `batch` and Gradescope:

    1. the exercise's .py file (`exercise3_scaling.py`) before any notebook;
    2. (nested: at any depth) the shallowest first;
    3. the notebook named exactly like the exercise (`exercise3_scaling.ipynb`) before any other
       `exercise3_*.ipynb` (a Jupyter copy `exercise3_scaling-Copy1.ipynb`, a download
       `exercise3_scaling (1).ipynb`);
    4. then by name;

    but a .py file that is still the released stub (every one of the exercise's names it defines
    raises NotImplementedError) comes after any notebook: a student who worked in the notebook and
    handed in the released folder gets the notebook graded (round 55's h03 got 0 for the stub).
    The first is graded and the report names it, and the others as ignored. Only regular files
    count (a link could point at anything; see `not_files`). `found`: the folder's `listing`, when
    the caller has it (one walk for every exercise)."""
    found = listing(folder, nested) if found is None else found
    folder = found.folder
    named = [path for path in found.files if _names(exercise, path.name)]
    scripts = sorted((path for path in named if path.suffix == ".py"), key=lambda path: len(path.parts))
    stubs = set(filter(functools.partial(_still_the_stub, exercise), scripts[:STUB_CHECKS])) \
        if len(scripts) < len(named) else set()  # only beside a notebook

    def rank(path):
        return (path.suffix != ".py" or path in stubs, path in stubs, len(path.relative_to(folder).parts),
                path.stem != exercise.stem, path.name, str(path))

    return sorted(named, key=rank)


# the shallowest .py files of an exercise, beside a notebook, read to tell whether each is still the stub, and the
# largest that can be (the released stubs are a few KiB): round 82's a03 handed in copies of 2 MiB, each parsed in
# 30 s and 1.3 GB, in the one process of `batch` that starts every student's grading
STUB_CHECKS, STUB_BYTES = 4, 64 << 10


def _still_the_stub(exercise, path):
    """Whether the .py file at `path` is still the released stub: each of the exercise's names it defines is a
    stub (`_a_stub`), and none is bound again otherwise (`tiled_attention = mine`, an import: round 64's h02
    kept the stubs and bound its own functions to their names); False where it cannot be read or parsed, or
    is larger than any stub (STUB_BYTES)."""
    try:
        return is_the_stub(exercise, files.read_regular(path, STUB_BYTES, follow=False).decode("utf-8"))
    except (OSError, ValueError):
        return False


def is_the_stub(exercise, source):
    """Whether the Python `source` is the exercise's stub as released (see `_still_the_stub`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    defined = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and node.name in exercise.names]
    bound = {name for node in ast.walk(tree) if node not in defined for name in _bound_names(node)}
    return bool(defined) and all(map(_a_stub, defined)) and not bound & set(exercise.names)


def _bound_names(node):
    """The names one node binds as a variable or by an import (not as a function or class)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return []


def _a_stub(node):
    """Whether a function is still the released stub's body: the first statement it runs that is not an
    expression (its docstring, `super().__init__()`) or `pass` is `raise NotImplementedError(...)`; a class
    is unwritten while one of its methods is (the stub of exercise 8 gives one method written). Written code
    that keeps a `raise NotImplementedError` for a case it refuses is written (round 62's h07 lost to an
    untouched notebook beside it)."""
    if isinstance(node, ast.ClassDef):
        methods = [item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
        return any(map(_a_stub, methods))
    first = next((statement for statement in node.body if not isinstance(statement, (ast.Expr, ast.Pass))), None)
    raised = getattr(first, "exc", None) if isinstance(first, ast.Raise) else None
    raised = raised.func if isinstance(raised, ast.Call) else raised  # `NotImplementedError("...")` or the class
    return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"


def not_files(exercise, found):
    """The entries of a `listing` that bear the exercise's names but are not regular files (a link,
    a pipe, a device): never graded, and worth telling the student about."""
    return [path for path in found.others if _names(exercise, path.name)]


def misnamed(exercise, found):
    """The regular files of a `listing` whose names are near the exercise's own but not it (exercise3.py,
    Exercise3_Scaling.py, exercise3_scaling.py.txt), where the exercise has no file, or only its stubs as
    released: worth naming, so that the student renames theirs (round 80: "no exercise3_scaling.py",
    exercise3.py beside it; round 86: exercise2.py beside the released notebook, which was graded)."""
    named = [path for path in found.files if _names(exercise, path.name)]
    near = re.compile(rf"exercise_?0*{exercise.number}(?!\d)|{re.escape(exercise.stem)}", re.IGNORECASE)
    others = sorted(path for path in found.files if near.match(path.name) and path not in named)
    if others and len(named) <= STUB_CHECKS and all(_released(exercise, path) for path in named):
        return others  # files are read only where a near name is there (batch asks for every student)
    return []


def _released(exercise, path):
    """Whether the exercise's file at `path` is its stub or its notebook as released (read only where it is
    small enough to be one: see `_still_the_stub`)."""
    if not is_notebook(path):
        return _still_the_stub(exercise, path)
    try:
        return os.lstat(path).st_size <= 4 * STUB_BYTES and is_the_stub(exercise, notebook_code(path, exercise))
    except (OSError, SubmissionError):
        return False


def written_notebook_below(exercise, folder):
    """A notebook of the exercise, in a folder below `folder`, that is no longer the released stub, or None:
    worth naming where the .py file graded is the untouched stub (round 80 worked in exercises/notebooks/ and
    ran `lumen-grade 5`, which graded exercises/exercise5_softmax.py)."""
    try:
        found = candidates(exercise, folder, nested=True)
    except SubmissionError:  # a folder too large to look through
        return None
    return next((path for path in found if is_notebook(path) and not _released(exercise, path)), None)


def kind_of(path):
    """What the entry at `path` is, in words ("a link", "a pipe", ...)."""
    try:
        return files.kind(os.lstat(path).st_mode)
    except OSError:
        return "gone"


def _names(exercise, name):
    """Whether a file named `name` may hold the exercise's code (see `candidates`)."""
    notebook = rf"exercise{exercise.number}_.*{re.escape(NOTEBOOK_SUFFIX)}"
    return name == exercise.file_name or re.fullmatch(notebook, name, re.DOTALL) is not None  # a newline too (77 a06)


def find_file(exercise, folder):
    """The exercise's file directly in `folder` by the rule of `candidates`, or None."""
    found = candidates(exercise, folder)
    return found[0] if found else None


def is_notebook(path):
    """Whether `path` names a notebook, read as one whatever the case of its suffix (`--notebook X.IPYNB`:
    the ladder hashed it whole, outputs included, and climbed at each run: round 62's a03)."""
    return Path(path).suffix.lower() == NOTEBOOK_SUFFIX


def prepare(exercise, folder, work_dir, notebook=None):
    """The code to grade for `exercise` as a Found; a notebook's code is written into work_dir.

    notebook: a notebook file to grade instead of looking in `folder`. Raises SubmissionError
    (WrongExercise for a notebook made for another exercise)."""
    tree = listing(folder) if notebook is None else None
    found = [Path(notebook)] if notebook is not None else candidates(exercise, folder, found=tree)
    if not found and tree is not None and (others := not_files(exercise, tree)):
        raise SubmissionError(f"{others[0].name} in {folder} is {kind_of(others[0])}, not a file: the grader "
                              "reads only regular files (copy the file itself there)", others[0], FIND_STEP)
    if not found:
        near = misnamed(exercise, tree) if tree is not None else []
        raise SubmissionError(
            f"no {exercise.file_name} in {folder} (nor an exercise{exercise.number}_*{NOTEBOOK_SUFFIX} "
            "notebook)" + (f"; {clean_text(near[0].name, newlines=False)} is there: name it {exercise.file_name}"
                           if near else ": pass --submission DIR"), Path(folder) / exercise.file_name, FIND_STEP)
    path, ignored = found[0], tuple(str(other) for other in found[1:])
    if notebook is None and not is_notebook(path):
        return Found(path, path, ignored=ignored)
    code = Path(work_dir) / exercise.file_name
    cells = notebook_cells(path, exercise)
    code.write_text(_module_text(path, cells), encoding="utf-8")
    starts, line = [], 1
    for number, code_number, text in cells:
        starts.append((line + 1, number, code_number))  # after the "# file, cell N" comment
        # the comment, the code, and the blank line between cells (a code's last CR and the next
        # newline end one line, as Python reads them)
        line += 1 + len(_LINE_END.findall(text + "\n\n"))
    return Found(path, code, cells=tuple(starts), ignored=ignored)


def notebook_owner(path):
    """The exercise a notebook says it belongs to (`lumen-grade release` writes it), or None."""
    return _owner(read_notebook(path))


def _owner(notebook):
    """The exercise in a notebook's metadata (`lumen-grade release` writes it), or None."""
    metadata = notebook.get("metadata")
    lumen = metadata.get("lumen") if isinstance(metadata, dict) else None
    return lumen.get("exercise") if isinstance(lumen, dict) else None


OWNER_SHOWN = 80  # characters of a notebook's claimed exercise that a message quotes


def owner_text(owner):
    """A notebook's claimed exercise (`_owner`: any JSON value the student wrote) as a message quotes
    it: on one line, escaped (ascii) and cut to OWNER_SHOWN characters, so that it can never draw lines
    of a report of its own (round 27's a18: a fake "passed" verdict); an exercise's id as it is."""
    if isinstance(owner, str) and re.fullmatch(r"exercise\d{1,2}", owner):
        return owner
    text = ascii(owner)
    return text if len(text) <= OWNER_SHOWN else text[:OWNER_SHOWN - 3] + "..."


def wrong_exercise(name, owner, exercise_id, notebook=None):
    """Why the notebook `name`, whose metadata claims `owner`, is not graded as `exercise_id`, and what
    to do: grade the exercise it claims (`--notebook` naming it, where given), or, where the claim is no
    exercise's id, mend the claim."""
    claimed = owner_text(owner)
    if claimed != owner:
        return (f"{name} says in its metadata that it is the notebook of {claimed}, which is no exercise: set its "
                f"`lumen` metadata's `exercise` to {exercise_id} (or remove it), or hand in the exercise's own notebook")
    option = f" --notebook {notebook}" if notebook else ""
    return f"{name} is the notebook of {owner}, not {exercise_id}: grade it with lumen-grade {owner}{option}"


def read_notebook(path):
    """The notebook at path as an nbformat v4 node; SubmissionError, naming the file, if it is not one."""
    path = Path(path)
    try:
        text = files.read_regular(path, MAX_NOTEBOOK_BYTES).decode("utf-8")
        depth = _json_depth(text)
        if depth > MAX_NOTEBOOK_DEPTH:
            raise SubmissionError(f"{path.name} is too deeply nested to be a notebook ({depth} levels of "
                                  f"brackets; a notebook has a few): save it again from Jupyter or Colab",
                                  path, "read the notebook")
        cells = _cell_count(json.loads(text))
    except files.UnsafeFile as error:
        raise SubmissionError(f"cannot read {path.name}: {error} (a notebook is a regular file of at most "
                              f"{MAX_NOTEBOOK_BYTES >> 20} MiB)", path, "read the notebook") from None
    except json.JSONDecodeError as error:
        message = (f"{path.name} is not a readable notebook: its JSON is broken at line {error.lineno}, "
                   f"column {error.colno} ({error.msg}); reopen and save it in Jupyter or Colab, or "
                   "download it again")
        raise SubmissionError(message, path, "read the notebook") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SubmissionError(f"cannot read {path}: {error}", path, "read the notebook") from None
    except ValueError as error:  # JSON Python will not read: an integer of thousands of digits (round 23's a4)
        raise SubmissionError(f"{path.name} is not a readable notebook: {str(error)[:200]}; reopen and save it in "
                              "Jupyter or Colab, or download it again", path, "read the notebook") from None
    if cells > MAX_NOTEBOOK_CELLS:
        raise SubmissionError(f"{path.name} has {cells} cells, more than the {MAX_NOTEBOOK_CELLS} a notebook may have "
                              "here: keep the exercise's cells, and scratch work in another notebook", path,
                              "read the notebook")
    import nbformat  # a third of a second to import: only when there is a notebook to read

    try:  # the structure is validated: every cell has its type and its source as one string
        with warnings.catch_warnings():  # a cell without an id, say: the student's notebook, nothing to tell
            warnings.simplefilter("ignore")  # the staff on the grader's stderr (round 25)
            return nbformat.reads(text, as_version=4, capture_validation_error={})
    except Exception as error:  # nbformat raises many types for JSON that is not a notebook
        raise SubmissionError(f"{path.name} is JSON but not a Jupyter notebook ({type(error).__name__}: "
                              f"{error})", path, "read the notebook") from None


def notebook_code(path, exercise=None):
    """The Python code of the notebook's code cells, in order, as one module's text (see
    `notebook_cells`)."""
    return _module_text(Path(path), notebook_cells(path, exercise))


def _module_text(path, cells):
    """The notebook's code cells as one module, each after a comment naming it; the file's name is
    written as ascii() escapes it (its quotes left out), so that no character of it (a lone carriage
    return ends a line for Python: round 24's a5) can turn the rest of the name into code."""
    return "\n\n".join(f"# {ascii(path.name)[1:-1]}, cell {number}\n{code}" for number, _, code in cells) + "\n"


def notebook_cells(path, exercise=None):
    """[(cell number, code cell number, Python code)] of the notebook's code cells that run as
    Python, in order (numbers from 1: a cell counts every cell, a code cell only the code cells).

    A cell that is not valid Python raises SubmissionError naming the cell. With `exercise`, a
    notebook whose metadata says it belongs to another exercise raises WrongExercise."""
    path = Path(path)
    notebook = read_notebook(path)
    owner = _owner(notebook)
    if exercise is not None and owner not in (None, exercise.id):
        raise WrongExercise(wrong_exercise(path.name, owner, exercise.id), path, "read the notebook")
    parts, code_cells = [], 0
    for number, cell in enumerate(notebook.get("cells") or (), start=1):
        if not (isinstance(cell, dict) and isinstance(cell.get("cell_type"), str)
                and isinstance(cell.get("source"), str)):
            raise SubmissionError(f"{path.name}: cell {number} is not a notebook cell (a cell has a cell_type and "
                                  "its source as text): save the notebook again from Jupyter or Colab",
                                  path, "read the notebook")
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
        except (RecursionError, MemoryError):
            raise SubmissionError(f"{path.name}: cell {number} (code cell {code_cells}) is too deeply nested "
                                  "for Python to read", path, "read the notebook") from None
        parts.append((number, code_cells, code))
    return parts


def _syntax_message(path, number, code_number, source, error):
    first = next((line.strip() for line in source.splitlines() if line.strip()), "")
    where = f", line {error.lineno}" if getattr(error, "lineno", None) else ""
    return (f"{path.name}: cell {number} (code cell {code_number}, starting {first[:60]!r}) is not "
            f"valid Python{where}: {getattr(error, 'msg', error)}")


def python_source(source):
    """A cell's source as the Python the kernel runs, or None for a cell magic whose body is not
    Python. Shell, magic and help lines become blank lines (`pass` when indented), so line numbers
    stay those of the cell."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        if lines[first].lstrip()[2:].rstrip().partition(" ")[0] not in PYTHON_CELL_MAGICS:  # named as IPython
            return None  # names it: `%%time\t-v` is no magic it knows
        lines[first] = ""
    kept, state = [], _Scan()
    for line in lines:
        stripped = line.lstrip()
        ipython_only = stripped.startswith(("!", "%")) and not stripped.startswith("!=")
        ipython_only = ipython_only or stripped.startswith(_AUTOCALL) or _assigns_ipython(line) or _HELP.fullmatch(line)
        if ipython_only and not state.inside:
            indent = line[:len(line) - len(stripped)]
            line = f"{indent}pass" if indent else ""
        kept.append(line)
        state.read(line)
    return "\n".join(kept)


def _assigns_ipython(line):
    """Whether `line` assigns what a magic or a shell command gives, as IPython reads it: its first `=`
    outside brackets and strings, an assignment's, followed by `%` or `!` (`t = %timeit -o f()`, and any
    target: `d["t"] = %timeit`, `a, *b = !ls`, `x: int = !ls`: round 62's h02 lost a notebook to the first)."""
    depth, quote, i = 0, None, 0
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif line.startswith(quote, i):
                i, quote = i + len(quote) - 1, None
        elif char in "\"'":
            quote = char * 3 if line.startswith(char * 3, i) else char
            i += len(quote) - 1
        elif char == "#":
            return False
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "=" and depth == 0:
            if line.startswith("==", i):
                i += 1
            elif i == 0 or line[i - 1] not in "=<>!:+-*/%&|^@~":
                after = line[i + 1:].lstrip(" \t")
                return after.startswith("%") or after.startswith("!") and not after.startswith("!=")
        i += 1
    return False


class _Scan:
    """Where the text read so far ends: inside brackets, a string or a backslash continuation (where a
    line starting with `%` or `!` is Python, a modulo or a string's text, not IPython syntax), or
    at a statement's end. One pass over each line: a cell is read in linear time."""

    def __init__(self):
        self.depth, self.quote, self.continued = 0, None, False

    @property
    def inside(self):
        return self.depth > 0 or self.quote is not None or self.continued

    def read(self, line):
        i, n, self.continued = 0, len(line), False
        while i < n:
            char = line[i]
            if self.quote:
                if char == "\\":
                    i += 2
                elif line.startswith(self.quote, i):
                    i, self.quote = i + len(self.quote), None
                else:
                    i += 1
                continue
            if char == "#":
                break
            if char in "'\"":
                self.quote = line[i:i + 3] if line[i:i + 3] in ("'''", '"""') else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif char == "\\" and i == n - 1:
                self.continued = True
            i += 1
        if self.quote in ("'", '"') and not line.endswith("\\"):  # a one-line string left open: an error
            self.quote = None                                       # Python will report; go on


def _json_depth(text):
    """The deepest nesting of brackets in JSON text (outside its strings): its escapes and strings cut
    out and all but its brackets dropped by str and re, in C, then the brackets counted (a character
    at a time in Python took 0.7 s for 16 MiB)."""
    outside = "".join(text.replace("\\\\", "").replace('\\"', "").split('"')[::2])
    steps = _NOT_BRACKETS.sub("", outside).encode("ascii").translate(_STEPS)  # 2 opens, 0 closes
    return max(itertools.accumulate(steps, lambda depth, step: depth + step - 1, initial=0))


_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_STEPS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")


def _cell_count(data):
    """The cells of a notebook's JSON, v4 (`cells`) or v3 (`worksheets`), as far as it has them."""
    if not isinstance(data, dict):
        return 0
    sheets = data.get("worksheets") if isinstance(data.get("worksheets"), list) else [data]
    return sum(len(sheet["cells"]) for sheet in sheets
               if isinstance(sheet, dict) and isinstance(sheet.get("cells"), list))
