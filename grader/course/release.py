"""Make the student files from the instructor solutions: `solutions/` -> `exercises/`.

The solutions are the single source of truth. In each solution file, the code a student writes sits
between two comment lines, indented like the code they enclose:

        # BEGIN SOLUTION
        # HINT: Exercise 3: divide the scores by √d_k — see 'Why divide by √d_k?' in the chapter
        return scores / math.sqrt(d_k)
        # END SOLUTION

The student's file is the same file with every such block, markers included, replaced by one line
at the BEGIN marker's indentation:

        raise NotImplementedError("Exercise 3: divide the scores by √d_k — see ...")

The message is the block's `# HINT:` text (several HINT lines are joined with spaces), or else the
exercise's default hint, which names the chapter section. Everything outside the blocks (imports,
signatures, docstrings, given code) is copied byte for byte, line endings included, so running the
release twice gives identical files. A marker is a line holding only the marker comment.

`build_stubs` returns every exercise's stub text without writing anything; `release_files` adds a
notebook per exercise (`notebooks/<stem>.ipynb`, see `grader.course.notebooks`) that opens with the
introduction of the exercise's declaration (`grader.catalog`), and a manifest
(`.lumen-release.json`: each file's SHA-256). `release` writes them. A release needs the solutions
folder and the catalogue. `write_exercise_table` rewrites the README's table of exercises, between
its two marker lines, from the catalogue, so that a new exercise's row is never written by hand.

The manifest is what keeps a release from destroying a student's work: `release` overwrites a file
only if it is missing, already the new content, or exactly what the last release wrote; anything
else (a folder that is not a release, a stub someone has started to fill in) is refused unless
forced.
"""

import ast
import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from grader.sandbox import files
from grader.course import notebooks
from grader.catalog import EXERCISES, Exercise, find
from grader.grading.settings import LADDER_FOLDER

MANIFEST = ".lumen-release.json"
NOTEBOOK_FOLDER = "notebooks"
_NOT_CONTENT = {"__pycache__", ".ipynb_checkpoints", LADDER_FOLDER}  # made by Python, Jupyter and the grader

_BEGIN = re.compile(r"([ \t]*)#[ \t]*BEGIN SOLUTION[ \t]*")
_END = re.compile(r"[ \t]*#[ \t]*END SOLUTION[ \t]*")
_HINT = re.compile(r"[ \t]*#[ \t]*HINT:(.*)")
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|)")  # one line: its text, then its line ending (if any)


class ReleaseError(ValueError):
    """A solution file that cannot be turned into a student file (bad markers, broken stub), or an
    exercise declared without a notebook introduction."""


class NoExerciseTable(ReleaseError):
    """A README without the exercise table's two marker lines (TABLE_START, then TABLE_END)."""


class ReleaseRefused(ReleaseError):
    """The output folder holds files a release would overwrite and lose (see `unsafe_files`)."""


def default_hint(exercise):
    """The hint of a block without a `# HINT:` line: the exercise and the section to reread.

    `exercise` is a catalogue Exercise or a name `catalog.find` knows ('exercise3', '3', ...).
    """
    if not isinstance(exercise, Exercise):
        exercise = find(str(exercise))
    return (f"Exercise {exercise.number} ({exercise.title}): write this part yourself — "
            f"see '{exercise.section}' in the chapter")


def _lines(text):
    """(content, line ending) for every line of text; '' as the ending of an unterminated last line."""
    lines, at = [], 0
    while at < len(text):
        match = _LINE.match(text, at)
        lines.append((match.group(1), match.group(2)))
        at = match.end()
    return lines


def _literal(hint):
    """A double-quoted Python string literal holding hint."""
    return '"' + hint.replace("\\", "\\\\").replace('"', '\\"') + '"'


def strip_solutions(text, hint_default, source="<text>"):
    """Replace every marked solution block of `text` by a `raise NotImplementedError(hint)` line.

    A block runs from a `# BEGIN SOLUTION` line through the next `# END SOLUTION` line, inclusive;
    its replacement sits at the BEGIN line's indentation and ends with the END line's line ending.
    hint: the block's `# HINT:` text if it has one, else `hint_default`. Text with no markers comes
    back unchanged. `source` names the text in errors: a nested BEGIN, an END without a BEGIN or a
    BEGIN never closed raises ReleaseError naming the line.
    """
    out = []
    block = None  # while inside a block: (line number of BEGIN, its indentation, hint lines)
    for number, (content, ending) in enumerate(_lines(text), start=1):
        begin = _BEGIN.fullmatch(content)
        if begin:
            if block is not None:
                raise ReleaseError(f"{source}, line {number}: BEGIN SOLUTION inside the block "
                                   f"opened at line {block[0]} (blocks cannot nest)")
            block = (number, begin.group(1), [])
        elif _END.fullmatch(content):
            if block is None:
                raise ReleaseError(f"{source}, line {number}: END SOLUTION without a BEGIN SOLUTION")
            _, indent, hints = block
            hint = " ".join(hints) or hint_default
            out.append(f"{indent}raise NotImplementedError({_literal(hint)}){ending}")
            block = None
        elif block is None:
            out.append(content + ending)
        else:
            hint = _HINT.fullmatch(content)
            if hint and hint.group(1).strip():
                block[2].append(hint.group(1).strip())
    if block is not None:
        raise ReleaseError(f"{source}, line {block[0]}: BEGIN SOLUTION is never closed by END SOLUTION")
    return "".join(out)


def _read(path):
    with open(path, encoding="utf-8", newline="") as file:  # newline="": keep \r\n as it is
        return file.read()


def _stub_raises(tree):
    """Every `raise NotImplementedError(...)` statement under tree."""
    return [
        node for node in ast.walk(tree)
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
        and getattr(node.exc.func, "id", None) == "NotImplementedError"
    ]


def _check_stub(exercise, stub, source):
    """The stub must compile, raise only inside functions, and define every catalogue name."""
    try:
        tree = ast.parse(stub, filename=source)
    except SyntaxError as error:
        raise ReleaseError(f"{source}: the student file would not compile: {error}") from None
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)]
    inside = {id(node) for function in functions for node in _stub_raises(function)}
    for node in _stub_raises(tree):
        if id(node) not in inside:
            raise ReleaseError(f"{source}: a BEGIN SOLUTION marker is indented less than the body it "
                               f"stubs, so the student file would raise on import (stub line {node.lineno})")
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    missing = [name for name in exercise.names if name not in defined]
    if missing:
        raise ReleaseError(f"{source}: the student file would not define {', '.join(missing)}")


def build_stubs(solutions_dir, exercises=EXERCISES):
    """{exercise: student file text} for every catalogue exercise (or those given), from solutions_dir."""
    stubs = {}
    for exercise in exercises:
        path = Path(solutions_dir) / exercise.file_name
        if not path.is_file():
            raise ReleaseError(f"{path}: missing (every catalogue exercise needs a solution file)")
        text = _read(path)
        stub = strip_solutions(text, default_hint(exercise), source=str(path))
        if stub == text:
            raise ReleaseError(f"{path}: no BEGIN SOLUTION block, so releasing it would publish "
                               "the solution")
        _check_stub(exercise, stub, str(path))
        stubs[exercise] = stub
    return stubs


def _digest(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def introduction(exercise):
    """The Markdown introduction of the exercise's notebook, from its declaration."""
    if not (exercise.introduction or "").strip():
        raise ReleaseError(f"grader/catalog/{exercise.file_name}: its introduction is empty (every exercise's "
                           "notebook opens with its introduction)")
    return exercise.introduction


def release_files(solutions_dir, exercises=EXERCISES):
    """{path relative to the output folder: bytes} of a release (of every catalogue exercise, or
    those given), the manifest last.

    Raises ReleaseError for a faulty solution or an empty introduction; writes nothing."""
    stubs = build_stubs(solutions_dir, exercises)
    files = {exercise.file_name: stub.encode("utf-8") for exercise, stub in stubs.items()}
    for exercise, stub in stubs.items():
        notebook = notebooks.build_notebook(exercise, stub, introduction(exercise))
        files[f"{NOTEBOOK_FOLDER}/{exercise.stem}.ipynb"] = notebooks.notebook_text(notebook).encode("utf-8")
    digests = {path: _digest(data) for path, data in files.items()}
    manifest = {"written by": "lumen-grade release", "files": digests}
    files[MANIFEST] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode("utf-8")
    return files


def _last_release(out_dir):
    """{path: digest} the manifest in out_dir records; {} when there is none (or it is unreadable)."""
    try:
        recorded = json.loads((out_dir / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return recorded if isinstance(recorded, dict) else {}


def unsafe_files(out_dir, files):
    """Why writing `files` into out_dir could lose someone's work: a list of reasons, [] when safe.

    Safe: a missing or empty folder, or one where every file the release would overwrite is
    already the new content or exactly what the last release (its manifest) wrote."""
    out_dir = Path(out_dir)
    if not out_dir.exists():
        return []
    if not out_dir.is_dir():
        return [f"{out_dir} is a file, not a folder"]
    recorded = _last_release(out_dir)
    present = [path for path in files if path != MANIFEST and (out_dir / path).exists()]
    content = [entry for entry in out_dir.iterdir() if entry.name not in _NOT_CONTENT]
    if not recorded and not present and content:
        return [f"{out_dir} is not a previous release (it has no {MANIFEST} and none of the exercise "
                "files), and writing into it would mix the release with what is there"]
    reasons = []
    for path in present:
        target = out_dir / path
        if not target.is_file():
            reasons.append(f"{path} is not a file")
            continue
        current = _digest(target.read_bytes())
        if current != _digest(files[path]) and current != recorded.get(path):
            reasons.append(f"{path} differs from both this release and the last one: it may hold a "
                           "student's work")
    return reasons


@dataclass
class Released:
    paths: list  # every file of the release, in order: stubs, notebooks, manifest
    changed: list  # those whose content this release created or changed


def release(solutions_dir, out_dir, force=False, exercises=EXERCISES):
    """Write the student files, notebooks and manifest into out_dir (created if needed).

    Nothing is written if any solution or introduction is faulty (ReleaseError) or, unless
    `force`, if it would overwrite files that are not an earlier release (ReleaseRefused, naming
    them)."""
    made = release_files(solutions_dir, exercises)
    out_dir = Path(out_dir)
    reasons = [] if force else unsafe_files(out_dir, made)
    if reasons:
        raise ReleaseRefused(f"not writing the release into {out_dir}: " + "; ".join(reasons))
    paths, changed = [], []
    for relative, data in made.items():
        path = out_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if not (path.is_file() and path.read_bytes() == data):
            files.write_replacing(path, data)
            changed.append(path)
        paths.append(path)
    return Released(paths, changed)


TABLE_START = "<!-- the exercise table: written by `lumen-grade release` from grader/catalog/ -->"
TABLE_END = "<!-- end of the exercise table -->"


def exercise_table(exercises=EXERCISES):
    """The README's Markdown table of the exercises: each one's file, what the student writes and
    the chapter section to read, in the catalogue's order."""
    rows = ["| exercise | file | you write | read in the chapter |", "|---|---|---|---|"]
    rows += [f"| {exercise.id} | `{exercise.file_name}` | {', '.join(f'`{name}`' for name in exercise.names)} "
             f"| {exercise.section} |" for exercise in exercises]
    return "\n".join(rows) + "\n"


def table_span(text, source="README.md"):
    """(start, end) of what lies between the table's marker lines in text; NoExerciseTable without them."""
    found = re.search(f"^{re.escape(TABLE_START)}[ \\t]*\\r?\\n(.*?)^{re.escape(TABLE_END)}[ \\t\\r]*$", text, re.M | re.S)
    if found is None:
        raise NoExerciseTable(f"{source} has no exercise table: put the line {TABLE_START!r}, then the "
                              f"line {TABLE_END!r} where it belongs")
    return found.span(1)


def check_exercise_table(readme):
    """NoExerciseTable unless `readme` is a file with the table's marker lines."""
    try:
        text = _read(readme)
    except OSError as error:
        raise NoExerciseTable(f"{readme}: no README to write the exercise table into ({error.strerror})") from None
    table_span(text, source=str(readme))


def write_exercise_table(readme, exercises=EXERCISES):
    """Rewrite the table between the markers of `readme` from the catalogue (in the file's own line
    endings), leaving every other byte as it is; whether the file changed. NoExerciseTable (nothing
    written) without the markers."""
    text = _read(readme)
    start, end = table_span(text, source=str(readme))
    table = exercise_table(exercises)
    if "\r\n" in text[:start]:
        table = table.replace("\n", "\r\n")
    new = text[:start] + table + text[end:]
    if new == text:
        return False
    files.write_replacing(readme, new.encode("utf-8"))
    return True
