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

`build_stubs` is the seam for other outputs (the notebooks): it returns every exercise's stub text
without writing anything, and `release` only writes them as .py files.
"""

import ast
import re
from pathlib import Path

from grader.catalog import EXERCISES, Exercise, find

_BEGIN = re.compile(r"([ \t]*)#[ \t]*BEGIN SOLUTION[ \t]*")
_END = re.compile(r"[ \t]*#[ \t]*END SOLUTION[ \t]*")
_HINT = re.compile(r"[ \t]*#[ \t]*HINT:(.*)")
_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|)")  # one line: its text, then its line ending (if any)


class ReleaseError(ValueError):
    """A solution file that cannot be turned into a student file (bad markers, broken stub)."""


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


def build_stubs(solutions_dir):
    """{exercise: student file text} for every catalogue exercise, from solutions_dir."""
    stubs = {}
    for exercise in EXERCISES:
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


def release(solutions_dir, out_dir):
    """Write the student file of every catalogue exercise to out_dir (created if needed).

    Returns the paths written, in catalogue order. Nothing is written if any solution is faulty.
    """
    stubs = build_stubs(solutions_dir)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for exercise, stub in stubs.items():
        path = out_dir / exercise.file_name
        with open(path, "w", encoding="utf-8", newline="") as file:  # newline="": write as is
            file.write(stub)
        written.append(path)
    # Notebooks: a writer taking the same `stubs` dict (exercise -> student code) goes here.
    return written
