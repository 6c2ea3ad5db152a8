"""`grader.release`: solutions/ -> exercises/, and the files it makes."""

import ast
import importlib.util
import inspect
import re
import shutil
from pathlib import Path

import pytest

from grader.catalog import EXERCISES, find
from grader.release import ReleaseError, build_stubs, default_hint, release, strip_solutions

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
STUBS = ROOT / "exercises"
IDS = [exercise.stem for exercise in EXERCISES]


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


def test_release_round_trip_is_byte_identical(tmp_path):
    written = release(SOLUTIONS, tmp_path / "out")
    assert written == [tmp_path / "out" / exercise.file_name for exercise in EXERCISES]
    for path in written:
        assert path.read_bytes() == (STUBS / path.name).read_bytes(), (
            f"exercises/{path.name} is stale: regenerate it with "
            "python -c \"from grader.release import release; release('solutions', 'exercises')\""
        )
    assert release(SOLUTIONS, tmp_path / "out") == written
    assert [path.read_bytes() for path in written] == [(STUBS / path.name).read_bytes() for path in written]


def test_release_refuses_a_solution_without_blocks(tmp_path):
    shutil.copytree(SOLUTIONS, tmp_path / "solutions")
    path = tmp_path / "solutions" / EXERCISES[1].file_name
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(line for line in lines if "SOLUTION" not in line), encoding="utf-8")
    with pytest.raises(ReleaseError, match="publish the solution"):
        release(tmp_path / "solutions", tmp_path / "out")
    assert not (tmp_path / "out").exists()


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
