"""`grader.course.release`, solutions/ -> exercises/ (student files, notebooks, manifest); `lumen-grade release`."""

import ast
import dataclasses
import importlib.util
import inspect
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import STALE_RELEASE, unwrapped
from grader.catalog import EXERCISES, find
from grader.cli.main import main
from grader.course.release import (
    MANIFEST,
    ReleaseError,
    ReleaseRefused,
    TABLE_END,
    TABLE_START,
    build_stubs,
    default_hint,
    exercise_table,
    release,
    strip_solutions,
    write_exercise_table,
)

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = ROOT / "solutions"
STUBS = ROOT / "exercises"
IDS = [exercise.stem for exercise in EXERCISES]


def released_files(folder):
    """Every file under folder, relative, as bytes (caches aside)."""
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*"))
            if path.is_file() and "__pycache__" not in path.parts}


def load(path, prefix):
    """Import a file by path, the way the grader's worker does (nothing beside it importable)."""
    spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def raise_messages(source):
    """The messages of every `raise NotImplementedError("...")` in source, in order."""
    return [
        node.exc.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
        and getattr(node.exc.func, "id", None) == "NotImplementedError"
    ]


# The generator on small texts


def test_text_without_markers_is_returned_unchanged():
    text = 'def f(x):\r\n    """Doc."""\r\n    return x  # no markers here\r\n\n\ttabbed = 1'
    assert strip_solutions(text, "unused") == text
    assert strip_solutions("", "unused") == ""


def test_block_becomes_one_raise_at_the_begin_indentation():
    text = (
        "def f(x):\n"
        '    """Doc."""\n'
        "    # BEGIN SOLUTION\n"
        "    y = x + 1\n"
        "    return y\n"
        "    # END SOLUTION\n"
        "\n"
        "after = 1\n"
    )
    assert strip_solutions(text, "do it") == (
        "def f(x):\n"
        '    """Doc."""\n'
        '    raise NotImplementedError("do it")\n'
        "\n"
        "after = 1\n"
    )


def test_odd_indentation_and_line_endings_are_kept():
    text = (
        "class A:\r\n"
        "  def f(self):\r\n"  # two-space indents
        "    if True:\r\n"
        "       # BEGIN SOLUTION\r\n"  # seven spaces, inside an if
        "       return 1\r\n"
        "       # END SOLUTION\r\n"
        "    return 2\r\n"
        "def g():\n"
        "\t#BEGIN SOLUTION   \n"  # a tab, no space after '#', trailing blanks
        "\treturn 3\n"
        "  # END SOLUTION\n"  # END indented differently from BEGIN: BEGIN's indentation wins
        "def h():\n"
        "# BEGIN SOLUTION\n"  # column 0 (a broken stub, but the text operation is still defined)
        "    pass\n"
        "# END SOLUTION"  # last line, no line ending
    )
    assert strip_solutions(text, "hint") == (
        "class A:\r\n"
        "  def f(self):\r\n"
        "    if True:\r\n"
        '       raise NotImplementedError("hint")\r\n'
        "    return 2\r\n"
        "def g():\n"
        '\traise NotImplementedError("hint")\n'
        "def h():\n"
        'raise NotImplementedError("hint")'
    )


def test_hint_lines_give_the_message():
    text = (
        "def f():\n"
        "    # BEGIN SOLUTION\n"
        "    # HINT: Exercise 9: use x.sum() — see 'A \"quoted\" section' in the chapter \\o/\n"
        "    return 1\n"
        "    # END SOLUTION\n"
        "def g():\n"
        "    # BEGIN SOLUTION\n"
        "    #HINT: first half,\n"
        "    return 2\n"
        "    # HINT:   second half  \n"
        "    # END SOLUTION\n"
        "def h():\n"
        "    # BEGIN SOLUTION\n"
        "    # HINT:\n"  # an empty hint: the default
        "    return 3\n"
        "    # END SOLUTION\n"
    )
    stub = strip_solutions(text, "the default")
    assert raise_messages(stub) == [
        "Exercise 9: use x.sum() — see 'A \"quoted\" section' in the chapter \\o/",
        "first half, second half",
        "the default",
    ]
    assert "HINT" not in stub and "return" not in stub


@pytest.mark.parametrize("text, line, words", [
    ("x = 1\n    # END SOLUTION\n", 2, "without a BEGIN"),
    ("def f():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n    # END SOLUTION\n", 3, "cannot nest"),
    ("def f():\n    # BEGIN SOLUTION\n    return 1\n", 2, "never closed"),
    ("def f():\r\n    # BEGIN SOLUTION\r\n    # END SOLUTION\r\n# END SOLUTION\r\n", 4, "without a BEGIN"),
], ids=["end-without-begin", "nested", "never-closed", "extra-end-crlf"])
def test_unbalanced_markers_raise_naming_the_line(text, line, words):
    with pytest.raises(ReleaseError, match=rf"some_file\.py, line {line}: .*{words}"):
        strip_solutions(text, "hint", source="some_file.py")
    assert issubclass(ReleaseError, ValueError)


def test_markers_must_be_whole_lines():
    text = 'note = "# BEGIN SOLUTION"\nx = 1  # END SOLUTION\n'
    assert strip_solutions(text, "hint") == text


# The generator on the real solutions


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_default_hint_names_exercise_and_section(exercise):
    hint = default_hint(exercise)
    assert f"Exercise {exercise.number}" in hint and f"'{exercise.section}'" in hint
    assert default_hint(str(exercise.number)) == default_hint(exercise.stem) == hint


def test_stubs_round_trip_is_byte_identical():
    """Needs no chapter, so it runs everywhere: the committed student files are the release's."""
    for exercise, stub in build_stubs(SOLUTIONS).items():
        assert stub.encode("utf-8") == (STUBS / exercise.file_name).read_bytes(), (
            f"exercises/{exercise.file_name}: {STALE_RELEASE}")


class Reporter:
    """What pytest's terminal reporter is to `pytest_terminal_summary`: the lines it was given."""

    def __init__(self):
        self.lines = []

    def section(self, title, **markup):
        self.lines.append(title)

    def line(self, text, **markup):
        self.lines.append(text)


def test_a_student_whose_edits_fail_this_suite_is_told_to_grade_with_lumen_grade(tmp_path, monkeypatch):
    """A student who runs `python -m pytest` after writing code in exercises/ is told to grade it with
    lumen-grade (not to run the instructors' `release`); an untouched release, or a passing run, says nothing."""
    import conftest

    folder = tmp_path / "exercises"
    shutil.copytree(STUBS, folder)
    monkeypatch.setattr(conftest, "EXERCISES", folder)
    for exitstatus in (0, 1):
        conftest.pytest_terminal_summary(reporter := Reporter(), exitstatus)
        assert reporter.lines == []
    (folder / "exercise3_scaling.py").write_text("def scale_scores(scores, d_k):\n    return scores / d_k ** 0.5\n")
    (folder / "notebooks" / "exercise6_multihead.ipynb").unlink()
    assert conftest.edited_release_files() == ["exercise3_scaling.py", "notebooks/exercise6_multihead.ipynb"]
    conftest.pytest_terminal_summary(reporter := Reporter(), 0)
    assert reporter.lines == []
    conftest.pytest_terminal_summary(reporter := Reporter(), 1)
    said = " ".join(reporter.lines)
    assert "changed: exercise3_scaling.py, notebooks/exercise6_multihead.ipynb" in said
    assert "Grade your work with `lumen-grade`" in said and "Instructors: `lumen-grade release --force`" in said


def test_release_round_trip_is_byte_identical(tmp_path):
    """Everything a release needs is in the project: exercises/ is regenerated byte for byte."""
    out = tmp_path / "out"
    done = release(SOLUTIONS, out)
    expected = [exercise.file_name for exercise in EXERCISES]
    expected += [f"notebooks/{exercise.stem}.ipynb" for exercise in EXERCISES] + [MANIFEST]
    assert [path.relative_to(out).as_posix() for path in done.paths] == expected
    assert sorted(released_files(out)) == sorted(expected)
    committed = released_files(STUBS)
    for name, data in released_files(out).items():
        assert committed.get(name) == data, f"exercises/{name}: {STALE_RELEASE}"
    assert set(committed) == set(expected), f"exercises/ holds files no release makes: {STALE_RELEASE}"
    again = release(SOLUTIONS, out)
    assert again.paths == done.paths and again.changed == []
    assert released_files(out) == {name: committed[name] for name in expected}


def test_release_refuses_a_solution_without_blocks(tmp_path):
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    path = tmp_path / "solutions" / EXERCISES[1].file_name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if "SOLUTION" not in line), encoding="utf-8")
    with pytest.raises(ReleaseError, match="publish the solution"):
        release(tmp_path / "solutions", tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["", " \n"])
def test_release_refuses_an_empty_introduction(tmp_path, text):
    exercises = [dataclasses.replace(e, introduction=text) if e.id == "exercise4" else e for e in EXERCISES]
    with pytest.raises(ReleaseError, match=r"exercise4_masking.py: its introduction is empty \(every exercise's "):
        release(SOLUTIONS, tmp_path / "out", exercises=exercises)
    assert not (tmp_path / "out").exists()


def tracked_files():
    """The project's files as a clone has them (git's list; without git, every file but caches)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / name for name in listed.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skipped = {".git", ".venv", "__pycache__", ".pytest_cache"}
        return [path for path in ROOT.rglob("*") if path.is_file() and not skipped & set(path.parts)]


def test_nothing_in_the_project_reaches_for_the_chapter_beside_it():
    """A course's clone has no chapter beside it: no file may read, name or need it."""
    outside = re.compile("|".join(map(re.escape, ["../" + "shared", "shared/" + "chapter", '/ "' + 'shared"',
                                                  "chapter-" + "attention.txt"])))
    reaching = [path.relative_to(ROOT).as_posix() for path in tracked_files()
                if path.is_file() and outside.search(path.read_bytes().decode("utf-8", "replace"))]
    assert reaching == []


# Never losing a student's work


def test_release_into_a_new_folder_then_again_changes_nothing(tmp_path):
    out = tmp_path / "deep" / "out"
    done = release(SOLUTIONS, out)
    assert done.changed == done.paths and len(done.paths) == 2 * len(EXERCISES) + 1
    assert release(SOLUTIONS, out).changed == []


def test_release_refuses_a_folder_that_is_not_a_release(tmp_path):
    (tmp_path / "notes.txt").write_text("my notes", encoding="utf-8")
    with pytest.raises(ReleaseRefused, match="is not a previous release"):
        release(SOLUTIONS, tmp_path)
    assert [path.name for path in tmp_path.iterdir()] == ["notes.txt"]
    release(SOLUTIONS, tmp_path, force=True)
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "my notes"  # forced, yet never deleted
    assert (tmp_path / EXERCISES[0].file_name).is_file()


@pytest.mark.parametrize("edited", ["exercise3_scaling.py", "notebooks/exercise3_scaling.ipynb"])
def test_release_refuses_to_overwrite_a_students_work(tmp_path, edited):
    release(SOLUTIONS, tmp_path)
    work = tmp_path / edited
    work.write_bytes(work.read_bytes().replace(b"raise NotImplementedError", b"return 0 # NotImplemented", 1))
    before = released_files(tmp_path)
    with pytest.raises(ReleaseRefused, match=rf"{re.escape(edited)} differs from both this release and the"):
        release(SOLUTIONS, tmp_path)
    assert released_files(tmp_path) == before
    assert release(SOLUTIONS, tmp_path, force=True).changed == [work]


def test_release_replaces_an_untouched_earlier_release(tmp_path):
    """The instructor's loop: edit a solution's hint, release again over the last release."""
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    out = tmp_path / "out"
    release(tmp_path / "solutions", out)
    solution = tmp_path / "solutions" / "exercise3_scaling.py"
    solution.write_text(solution.read_text(encoding="utf-8").replace("(math.sqrt)", "(use math.sqrt)"),
                        encoding="utf-8")
    done = release(tmp_path / "solutions", out)
    assert [path.relative_to(out).as_posix() for path in done.changed] == [
        "exercise3_scaling.py", "notebooks/exercise3_scaling.ipynb", MANIFEST]
    assert "(use math.sqrt)" in (out / "exercise3_scaling.py").read_text(encoding="utf-8")


def test_a_release_without_manifest_counts_when_its_files_are_the_new_ones(tmp_path):
    """exercises/ before its first manifest: files equal to the new release lose nothing."""
    for exercise in EXERCISES:
        shutil.copyfile(STUBS / exercise.file_name, tmp_path / exercise.file_name)
    assert len(release(SOLUTIONS, tmp_path).changed) == len(EXERCISES) + 1


# `lumen-grade release`


def invoke(*args):
    return CliRunner().invoke(main, ["release", *map(str, args)])


def test_cli_release_writes_then_reports_nothing_changed(tmp_path):
    out = tmp_path / "out"
    first = invoke("--out", out, "--solutions", SOLUTIONS)
    assert first.exit_code == 0, first.output
    files = 2 * len(EXERCISES) + 1  # a stub and a notebook per exercise, and the manifest
    assert f"released {files} files into {out}" in first.output and "exercise3_scaling.py" in first.output
    second = invoke("--out", out, "--solutions", SOLUTIONS)
    assert second.exit_code == 0 and "(changed: nothing)" in second.output


def test_cli_release_refusal_is_a_usage_error_naming_the_file_and_force(tmp_path):
    out = tmp_path / "out"
    assert invoke("--out", out, "--solutions", SOLUTIONS).exit_code == 0
    (out / "exercise5_softmax.py").write_text("my softmax", encoding="utf-8")
    refused = invoke("--out", out, "--solutions", SOLUTIONS)
    assert refused.exit_code == 2 and "exercise5_softmax.py" in refused.output and "--force" in refused.output
    assert (out / "exercise5_softmax.py").read_text(encoding="utf-8") == "my softmax"
    forced = invoke("--out", out, "--solutions", SOLUTIONS, "--force")
    assert forced.exit_code == 0 and "(changed: exercise5_softmax.py)" in forced.output


def test_cli_release_of_a_bad_solution_is_a_usage_error(tmp_path):
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    (tmp_path / "solutions" / "exercise6_multihead.py").unlink()
    missing = invoke("--out", tmp_path / "out", "--solutions", tmp_path / "solutions")
    assert missing.exit_code == 2 and "exercise6_multihead.py: missing" in unwrapped(missing.output)
    shutil.copyfile(SOLUTIONS / "exercise6_multihead.py", tmp_path / "solutions" / "exercise6_multihead.py")
    broken = tmp_path / "solutions" / "exercise2_scoring.py"
    broken.write_text(broken.read_text(encoding="utf-8").replace("# END SOLUTION", "", 1), encoding="utf-8")
    faulty = invoke("--out", tmp_path / "out", "--solutions", tmp_path / "solutions")
    assert faulty.exit_code == 2 and "exercise2_scoring.py, line" in unwrapped(faulty.output)
    assert "never closed" in unwrapped(faulty.output) and not (tmp_path / "out").exists()


@pytest.mark.parametrize("marker, words", [
    ("        # BEGIN SOLUTION", "would not compile"),  # deeper than the docstring before it
    ("# BEGIN SOLUTION", "raise on import"),  # column 0: valid Python, but raises at import time
], ids=["too-deep", "column-0"])
def test_release_refuses_a_misindented_marker(tmp_path, marker, words):
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    path = tmp_path / "solutions" / EXERCISES[2].file_name
    path.write_text(path.read_text(encoding="utf-8").replace("    # BEGIN SOLUTION", marker, 1), encoding="utf-8")
    with pytest.raises(ReleaseError, match=words):
        build_stubs(tmp_path / "solutions")


def test_release_refuses_a_missing_solution(tmp_path):
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    (tmp_path / "solutions" / EXERCISES[-1].file_name).unlink()
    with pytest.raises(ReleaseError, match="missing"):
        build_stubs(tmp_path / "solutions")


# The committed files


def public_members(module):
    """Functions and classes the file itself defines (imports such as torch left out)."""
    return {
        name: obj for name, obj in vars(module).items()
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__
    }


def own_functions(cls):
    return {name: obj for name, obj in vars(cls).items() if inspect.isfunction(obj)}


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_stubs_and_solutions_share_names_signatures_and_docstrings(exercise):
    stub = load(STUBS / exercise.file_name, "stub")
    solution = load(SOLUTIONS / exercise.file_name, "solution")
    assert stub.__doc__ == solution.__doc__ and exercise.section in solution.__doc__
    stub_members, solution_members = public_members(stub), public_members(solution)
    assert set(stub_members) == set(solution_members)
    assert set(exercise.names) <= set(stub_members)
    for name, sol in solution_members.items():
        got = stub_members[name]
        assert inspect.getdoc(got) == inspect.getdoc(sol) and inspect.getdoc(sol), name
        if inspect.isclass(sol):
            assert [base.__name__ for base in got.__bases__] == [base.__name__ for base in sol.__bases__]
            assert set(own_functions(got)) == set(own_functions(sol)), name
            for method, sol_fn in own_functions(sol).items():
                got_fn = own_functions(got)[method]
                assert inspect.signature(got_fn) == inspect.signature(sol_fn), f"{name}.{method}"
                assert got_fn.__doc__ == sol_fn.__doc__, f"{name}.{method}"
        else:
            assert inspect.signature(got) == inspect.signature(sol), name


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_stub_messages_are_the_solution_hints_and_name_the_section(exercise):
    solution = (SOLUTIONS / exercise.file_name).read_text(encoding="utf-8")
    stub = (STUBS / exercise.file_name).read_text(encoding="utf-8")
    assert not re.search(r"(BEGIN|END) SOLUTION|# HINT:", stub)
    blocks = re.findall(r"# BEGIN SOLUTION\n(.*?)# END SOLUTION", solution, flags=re.S)
    hints = [" ".join(re.findall(r"# HINT:(.*)", block)).strip() or default_hint(exercise) for block in blocks]
    messages = raise_messages(stub)
    assert messages == hints and messages
    for message in messages:
        assert message.startswith(f"Exercise {exercise.number}")
        assert f"'{exercise.section}'" in message


def stub_callables(module, source):
    """(label, function, self or None) for every function of the stub whose body was stubbed."""
    found = []
    for node in ast.parse(source).body:
        items = [(node, None)] if isinstance(node, ast.FunctionDef) else []
        if isinstance(node, ast.ClassDef):
            items = [(item, node.name) for item in node.body if isinstance(item, ast.FunctionDef)]
        for fn, owner in items:
            if not raise_messages(ast.unparse(fn)):
                continue
            if owner is None:
                found.append((fn.name, getattr(module, fn.name), None))
            else:
                cls = getattr(module, owner)
                found.append((f"{owner}.{fn.name}", vars(cls)[fn.name], cls.__new__(cls)))
    return found


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_every_stubbed_function_raises_not_implemented_naming_the_section(exercise):
    path = STUBS / exercise.file_name
    module = load(path, "stub")
    callables = stub_callables(module, path.read_text(encoding="utf-8"))
    assert callables
    for label, fn, self in callables:
        params = list(inspect.signature(fn).parameters.values())[(self is not None):]
        args = [None] * sum(p.default is inspect.Parameter.empty for p in params)
        with pytest.raises(NotImplementedError) as error:
            fn(*args) if self is None else fn(self, *args)
        assert f"Exercise {exercise.number}" in str(error.value), label
        assert f"'{exercise.section}'" in str(error.value), label


def test_stubbed_classes_raise_when_used_as_documented():
    torch = pytest.importorskip("torch")
    mha = load(STUBS / find("6").file_name, "stub")
    gqa = load(STUBS / find("7").file_name, "stub")
    cache = load(STUBS / find("8").file_name, "stub")
    with pytest.raises(NotImplementedError, match="Exercise 6"):
        mha.MultiHeadAttention(8, 2)
    with pytest.raises(NotImplementedError, match="Exercise 7"):
        gqa.GroupedQueryAttention(8, 4, 2)
    with pytest.raises(NotImplementedError, match="Exercise 8"):
        cache.KVCache(1, 2, 4, 16)
    layer = cache.CachedGroupedQueryAttention(8, 4, 2)  # its __init__ is given
    assert sorted(layer.state_dict()) == ["k_proj.weight", "o_proj.weight", "q_proj.weight", "v_proj.weight"]
    with pytest.raises(NotImplementedError, match="Exercise 8"):
        layer(torch.zeros(1, 3, 8))


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_solutions_are_self_contained(exercise):
    """A solution (hence its stub) imports only torch, torch.nn and math."""
    tree = ast.parse((SOLUTIONS / exercise.file_name).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module)
    assert imported <= {"torch", "torch.nn", "math"}, imported


def test_cli_release_rewrites_the_readmes_exercise_table_and_nothing_else(tmp_path):
    """The README beside --out gets the catalogue's table between its markers; every other byte stays."""
    before, after = "# A course\n\nThe exercises:\n\n", "\nThe end.\n"
    readme = tmp_path / "README.md"
    readme.write_text(f"{before}{TABLE_START}\n| exercise | a stale row |\n{TABLE_END}\n{after}", encoding="utf-8")
    first = invoke("--out", tmp_path / "exercises", "--solutions", SOLUTIONS)
    assert first.exit_code == 0 and "its exercise table rewritten from the catalogue" in unwrapped(first.output), first.output
    text = readme.read_text(encoding="utf-8")
    assert text == f"{before}{TABLE_START}\n{exercise_table()}{TABLE_END}\n{after}"
    for exercise in EXERCISES:
        assert f"| {exercise.id} | `{exercise.file_name}` | " in text and f" | {exercise.section} |\n" in text
    again = invoke("--out", tmp_path / "exercises", "--solutions", SOLUTIONS)
    assert again.exit_code == 0 and "its exercise table already is the catalogue" in unwrapped(again.output)


def test_cli_release_without_a_table_says_so_and_a_named_readme_needs_one(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# A course without a table\n", encoding="utf-8")
    plain = invoke("--out", tmp_path / "exercises", "--solutions", SOLUTIONS)
    assert plain.exit_code == 0 and "no exercise table written" in plain.output and "--readme" in plain.output
    named = invoke("--out", tmp_path / "exercises", "--solutions", SOLUTIONS, "--readme", readme)
    assert named.exit_code == 2 and "has no exercise table" in unwrapped(named.output)
    assert readme.read_text(encoding="utf-8") == "# A course without a table\n"


def test_the_table_keeps_a_crlf_readmes_line_endings(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_bytes(f"top\r\n{TABLE_START}\r\n{TABLE_END}\r\nend\r\n".encode())
    assert write_exercise_table(readme) and not write_exercise_table(readme)
    data = readme.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") == len(EXERCISES) + 6 and data.endswith(b"end\r\n")
