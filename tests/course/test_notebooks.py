"""Notebooks: the chapter's sections, the generated notebooks, and grading a student's notebook."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import types

import nbformat
import pytest
from click.testing import CliRunner

from conftest import EXERCISES, SOLUTIONS, STALE_RELEASE, SUBMISSIONS, unwrapped
from grader import catalog
from grader.course import notebooks
from grader.grading import runner
from grader.cli.main import main
from grader.grading.submission import Found, SubmissionError, candidates, notebook_code, python_source
from grader.grading.settings import Settings

NOTEBOOKS = EXERCISES / "notebooks"
EX3 = catalog.find("exercise3")


# The introductions, written for the kit


def introduction(exercise):
    return exercise.introduction


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.id)
def test_each_introduction_has_maths_shapes_and_the_section_to_read(exercise):
    text = introduction(exercise)
    assert "## What this step computes" in text and "## Shapes" in text
    assert re.search(r"^\$\$.+\$\$$|^\$\$", text, re.MULTILINE), "display maths in $$ … $$"
    assert text.count("$$") % 2 == 0, "an unclosed $$"
    (reading,) = re.findall(r"^\*\*Read in the chapter:\*\* (.+)$", text, re.MULTILINE)
    sections = re.findall(r'"([^"]+)"', reading)
    assert sections[0] == exercise.section and set(sections) <= set(catalog.CHAPTER_SECTIONS), sections


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.id)
def test_no_sentence_of_an_introduction_is_left_hanging(exercise):
    """What the chapter's export lost: "The formula is" followed by nothing. A paragraph that ends
    with a colon, "is", "are" or "So" goes on in maths, a table or a list."""
    paragraphs = [p.strip() for p in introduction(exercise).split("\n\n") if p.strip()]
    for paragraph, following in zip(paragraphs, paragraphs[1:] + [""]):
        if re.search(r"(:|\b(is|are|So))$", paragraph):
            assert following.startswith(("$$", "|", "- ", "1. ")), (paragraph, following)


def test_introductions_state_the_facts_as_the_stubs_do():
    texts = {exercise.id: introduction(exercise) for exercise in catalog.EXERCISES}
    everything = "\n".join(texts.values())
    assert not re.search(r"\d\s*(GB|MB|KB)\b", everything)  # sizes in GiB, MiB, KiB, as kv_cache_bytes
    assert "2 \\times n_{layers} \\times h_{kv} \\times d_{head}" in texts["exercise8"]  # KV heads, not all heads
    assert all("70B" in line for line in everything.splitlines() if "Llama-3" in line)
    assert "tokens $1" not in everything and "token 0 is the first" in texts["exercise4"]
    assert "padding" in texts["exercise4"] and "(B, 1, L)" in texts["exercise4"]
    assert "split_heads" in texts["exercise6"] and "merge_heads" in texts["exercise6"]


# Building a notebook


def test_built_notebook_is_valid_has_the_four_cells_and_no_outputs():
    stub = (EXERCISES / EX3.file_name).read_text(encoding="utf-8")
    notebook = notebooks.build_notebook(EX3, stub, "## What this step computes\n\n$$x$$\n")
    nbformat.validate(notebook)
    assert [cell.cell_type for cell in notebook.cells] == ["markdown", "code", "code", "code"]
    intro, code, check, scratch = (cell.source for cell in notebook.cells)
    assert intro.startswith("# Exercise 3 — Scale by √d_k")
    assert intro.endswith("## What this step computes\n\n$$x$$")
    assert code == stub.rstrip("\n")
    assert check.splitlines()[-1] == "%run -m grader.course.notebooks exercise3"
    assert 'if __name__ == "__main__":' in scratch
    for cell in notebook.cells[1:]:
        assert cell.outputs == [] and cell.execution_count is None
    assert notebook.metadata.lumen == {"exercise": "exercise3"}
    assert notebook.metadata.kernelspec.name == "python3"
    again = notebooks.build_notebook(EX3, stub, "## What this step computes\n\n$$x$$\n")
    assert notebooks.notebook_text(again) == notebooks.notebook_text(notebook)  # fixed cell ids


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.id)
def test_committed_notebook_is_valid_and_holds_the_stub(exercise):
    """Runs without the chapter: the notebooks' code can never drift from exercises/."""
    path = NOTEBOOKS / f"{exercise.stem}.ipynb"
    notebook = nbformat.read(path, as_version=4)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4 and notebook.metadata.lumen.exercise == exercise.id
    assert all(not cell.get("outputs") and cell.get("execution_count") is None
               for cell in notebook.cells if cell.cell_type == "code")
    stub = (EXERCISES / exercise.file_name).read_text(encoding="utf-8")
    assert notebook.cells[1].source == stub.rstrip("\n"), f"{path.name}: {STALE_RELEASE}"
    assert introduction(exercise).strip() in notebook.cells[0].source, f"{path.name}: {STALE_RELEASE}"
    assert notebook_code(path) == (  # graded, the notebook is its stub plus comments and a guarded scratch
        f"# {path.name}, cell 2\n{stub.rstrip()}\n\n"
        f"# {path.name}, cell 3\n{python_source(notebook.cells[2].source)}\n\n"
        f"# {path.name}, cell 4\n{notebook.cells[3].source}\n")


def test_notebooks_folder_has_one_notebook_per_exercise():
    assert sorted(p.name for p in NOTEBOOKS.iterdir()) == sorted(f"{e.stem}.ipynb" for e in catalog.EXERCISES)


# Taking the code out of a notebook


def test_shell_magic_and_help_lines_become_blank_keeping_line_numbers():
    """IPython's help (`name?`: round 54's h01, a scratch cell's) is no Python either."""
    source = textwrap.dedent("""\
        %matplotlib inline
        !pip install nothing
        files = !ls
        import math
        if True:
            !echo inside a block
        x = (10
        % 3)
        y = 1 \\
        !=2
        s = '''
        %not a magic, text in a string
        fused_project?
        '''
        fused_project?  # its docstring
        torch.nn.functional.softmax??
        ?torch.softmax
        if True:
            %timeit? 
        torch.*max*?
        q = k?
        # why?""")
    assert python_source(source).split("\n") == [
        "", "", "", "import math", "if True:", "    pass", "x = (10", "% 3)", "y = 1 \\", "!=2",
        "s = '''", "%not a magic, text in a string", "fused_project?", "'''", "", "", "", "if True:", "    pass",
        "", "q = k?", "# why?"]


@pytest.mark.parametrize("line", ['timings["mine"] = %timeit -o f(1, 4)', "a, *b = !ls", "out, = !ls",
                                  "x: object = %time 1", "a.b = %time 1", "t=%timeit f()", ";help f", "/print 1",
                                  ",print a b"])
def test_every_assignment_of_a_magic_and_every_autocall_escape_is_ipython(line):
    """Round 62's h02: `timings["mine"] = %timeit -o f()` runs in a kernel; only `name =` and `a.b =` were
    read as IPython, so the whole notebook was refused as not Python."""
    assert python_source(f"if True:\n    {line}\n{line}") == "if True:\n    pass\n"


@pytest.mark.parametrize("line", ["x = 5 % 3", "y = a != b", 's = "a = %d" % 3', "f(a=%d)", "q = [x == 2, !1]",
                                  "d = {'=': 1} # = %x", "z = '!x'", "w == %y"])
def test_python_with_an_equals_sign_and_a_percent_stays_python(line):
    assert python_source(line) == line


@pytest.mark.parametrize("source, expected", [
    ("%%bash\necho hi\nexit 1", None),
    ("\n%%writefile notes.py\nx = 1", None),
    ("%%time\ny = sum(range(3))", "\ny = sum(range(3))"),
    ("%%capture out\nprint(1)", "\nprint(1)"),
    ("%%timeit\ndef f():\n    pass", None),  # round 64's a03: its body's names are never the kernel's
    ("%%time\t-v\ny = 1", None),  # no magic IPython knows: the cell fails there
])
def test_cell_magics_are_skipped_unless_their_body_runs_as_python(source, expected):
    assert python_source(source) == expected


def write_notebook(path, *sources, metadata=None):
    """A notebook whose code cells hold the sources (strings), after a markdown cell."""
    notebook = nbformat.v4.new_notebook(metadata=metadata or {})
    notebook.cells = [nbformat.v4.new_markdown_cell("# Mine"), *map(nbformat.v4.new_code_cell, sources)]
    nbformat.write(notebook, path)
    return path


def test_a_cell_that_is_not_python_is_named(tmp_path):
    path = write_notebook(tmp_path / "exercise3_mine.ipynb", "import math", "x = 1\ndef f(:\n    pass")
    with pytest.raises(SubmissionError, match=r"exercise3_mine.ipynb: cell 3 \(code cell 2, starting "
                                              r"'x = 1'\) is not valid Python, line 2: invalid syntax"):
        notebook_code(path)


@pytest.mark.parametrize("text, words", [
    ('{"cells": [', r"exercise3_x.ipynb is not a readable notebook: its JSON is broken at line 1, column 12"),
    ('[1, 2]', "exercise3_x.ipynb is JSON but not a Jupyter notebook"),
    ('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}}', "JSON but not a Jupyter notebook"),
    ('{"cells": [], "execution_count": ' + "7" * 5000 + "}", "exercise3_x.ipynb is not a readable notebook: Exceeds"),
    (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                 "cells": [{"cell_type": "raw", "metadata": {}, "source": ""}] * 1001}),
     "exercise3_x.ipynb has 1001 cells, more than the 1000"),
], ids=["broken-json", "a-list", "no-cells", "an-integer-python-will-not-read", "more-cells-than-nbformat-is-given"])
def test_a_file_that_is_not_a_notebook_is_named(tmp_path, text, words):
    path = tmp_path / "exercise3_x.ipynb"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SubmissionError, match=words):
        notebook_code(path)


def test_older_and_hand_written_notebooks_are_read(tmp_path):
    """Sources as lists of lines, raw cells, foreign metadata, and the old nbformat 3."""
    v4 = {"nbformat": 4, "nbformat_minor": 2, "metadata": {"lumen": "not ours"}, "cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": 3,
         "source": ["x = 1\n", "!ls\n", "y = 2"]},
        {"cell_type": "raw", "metadata": {}, "source": "not python at all"}]}
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "z = 3", "language": "python", "outputs": []}]}]}
    for name, data, code in (("v4.ipynb", v4, "x = 1\n\ny = 2"), ("v3.ipynb", v3, "z = 3")):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        assert notebook_code(tmp_path / name, EX3) == f"# {name}, cell 1\n{code}\n"


def test_the_notebook_of_another_exercise_is_refused(tmp_path):
    path = write_notebook(tmp_path / "exercise3_mine.ipynb", "x = 1",
                          metadata={"lumen": {"exercise": "exercise4"}})
    with pytest.raises(SubmissionError, match="exercise3_mine.ipynb is the notebook of exercise4, not exerc"):
        notebook_code(path, EX3)
    assert notebook_code(path, catalog.find("4")).endswith("x = 1\n")


def test_the_claimed_exercise_is_quoted_on_one_short_line(tmp_path):
    """Round 27, a18: the metadata's claim was quoted whole, newlines and all, so a notebook could print
    a fake "✓ ... 26/26" verdict in the usage error, in `all`'s error and on Gradescope."""
    fake = "exercise9\n\n\u2713 exercise4  Causal and padding masks  26/26  on par\n\nTotal: 26/26\n" + "\n" * 24
    path = write_notebook(tmp_path / "exercise4_masking.ipynb", "x = 1", metadata={"lumen": {"exercise": fake * 100}})
    with pytest.raises(SubmissionError) as refused:
        notebook_code(path, catalog.find("4"))
    assert "\n" not in str(refused.value) and "Total: 26/26" not in str(refused.value)
    assert len(str(refused.value)) < 400 and "'exercise9\\n\\n\\u2713 exercise4" in str(refused.value)
    assert "which is no exercise: set its `lumen` metadata's `exercise` to exercise4" in str(refused.value)
    result = invoke("exercise4", "--submission", tmp_path, "--device", "cpu")
    assert result.exit_code == 2 and "Total: 26/26" not in result.output and "\u2713" not in result.output
    assert "is the notebook of 'exercise9\\n" in unwrapped(result.output) and "lumen-grade 'exercise9" not in unwrapped(result.output)


# Grading notebooks


def solved_notebook(path, *extra_cells):
    """The released exercise 3 notebook with the solution pasted into its code cell."""
    notebook = nbformat.read(NOTEBOOKS / f"{EX3.stem}.ipynb", as_version=4)
    notebook.cells[1].source = (SOLUTIONS / EX3.file_name).read_text(encoding="utf-8")
    notebook.cells[2:2] = [nbformat.v4.new_code_cell(source) for source in extra_cells]
    nbformat.write(notebook, path)
    return path


def grade_folder(launcher, folder, notebook=None):
    options = Settings(submission=folder, device="cpu", time_limit=20.0, notebook=notebook, perf=False)
    return runner.grade([EX3], options, launcher=launcher).exercises[0]


def test_solved_notebook_scores_full_marks_and_is_named(launcher, tmp_path):
    path = solved_notebook(tmp_path / "exercise3_scaling.ipynb")
    result = grade_folder(launcher, tmp_path)
    assert result.passed and result.score == result.max_score > 0
    assert result.file == str(path)


def test_untouched_notebook_scores_zero(launcher, tmp_path):
    (tmp_path / "exercise3_scaling.ipynb").write_bytes((NOTEBOOKS / f"{EX3.stem}.ipynb").read_bytes())
    result = grade_folder(launcher, tmp_path)
    assert result.score == 0 and result.max_score > 0
    assert all(t.message.startswith("not implemented yet") for t in result.tests if t.status != "skipped")


def test_magics_shell_lines_and_failing_scratch_do_not_change_the_grade(launcher, tmp_path):
    path = solved_notebook(
        tmp_path / "my-notebook.ipynb",
        "%matplotlib inline\n!echo hello\nfiles = !ls\nif True:\n    %time x = 1",
        "%%bash\nexit 1",
        "%%time\nscale = 2.0",
        'if __name__ == "__main__":\n    raise RuntimeError("an experiment that fails")',
    )
    result = grade_folder(launcher, tmp_path / "elsewhere", notebook=path)
    assert result.passed and result.score == result.max_score > 0 and result.file == str(path)


def test_a_script_wins_over_a_notebook(launcher, tmp_path):
    """A script the student wrote in, even wrong, is graded before the notebook (but not the untouched stub:
    `test_a_released_stub_beside_a_worked_notebook_gives_way_to_the_notebook`)."""
    solved_notebook(tmp_path / "exercise3_scaling.ipynb")
    stub = (EXERCISES / EX3.file_name).read_text(encoding="utf-8")
    written = stub + "\n\ndef scale_scores(scores, d_k):\n    return scores\n"
    (tmp_path / EX3.file_name).write_text(written, encoding="utf-8")
    result = grade_folder(launcher, tmp_path)
    assert result.file == str(tmp_path / EX3.file_name) and result.score < result.max_score


def test_broken_notebook_is_an_error_in_the_report(launcher, tmp_path):
    (tmp_path / "exercise3_scaling.ipynb").write_text('{"cells": [}', encoding="utf-8")
    result = grade_folder(launcher, tmp_path)
    assert {test.status for test in result.tests} == {"not_run", "skipped"} and result.max_score > 1
    assert "exercise3_scaling.ipynb is not a readable notebook: its JSON is broken at line 1" in result.error


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_grades_a_notebook_and_names_it_in_json(tmp_path):
    path = solved_notebook(tmp_path / "exercise3_scaling.ipynb")
    result = invoke("exercise3", "--notebook", path, "--device", "cpu", "--format", "json",
                    "--submission", tmp_path / "no-such-folder")  # --notebook: the folder is not used
    assert result.exit_code == 0, result.output
    (exercise,) = json.loads(result.output)["exercises"]
    assert exercise["file"] == str(path) and exercise["passed"] is True


def test_cli_broken_notebook_exits_1_naming_it(tmp_path):
    path = tmp_path / "exercise3_scaling.ipynb"
    path.write_text("not json", encoding="utf-8")
    result = invoke("3", "--notebook", path, "--device", "cpu")
    assert result.exit_code == 1
    assert "exercise3_scaling.ipynb is not a readable notebook" in unwrapped(result.output)


def test_cli_usage_errors_for_notebooks(tmp_path):
    missing = invoke("exercise3", "--notebook", tmp_path / "nope.ipynb")
    assert missing.exit_code == 2 and "nope.ipynb" in unwrapped(missing.output)
    wrong = solved_notebook(tmp_path / "exercise3_scaling.ipynb")  # a notebook made for exercise 3 ...
    refused = invoke("exercise5", "--notebook", wrong)  # ... given for exercise 5
    assert refused.exit_code == 2 and "is the notebook of exercise3, not exercise5" in unwrapped(refused.output)
    assert "Traceback" not in unwrapped(refused.output)


# The check cell, inside a kernel


def test_code_from_history_takes_the_last_run_of_each_definition():
    history = [
        "",
        "import math\ndef scale_scores(s, d):\n    return s\ndef scaled_scores(q, k):\n    return q",
        "print(1)",
        "%time\ndef scale_scores(s, d):\n    return s / math.sqrt(d)",
        "def broken(:",
        "x = " + "-" * 200_000 + "1",  # past the parser: a MemoryError, not a SyntaxError (round 62's a07)
        "%run -m grader.course.notebooks exercise3",
    ]
    code = notebooks.code_from_history(EX3, history)
    assert code == python_source(history[1]) + "\n\n" + python_source(history[3]) + "\n"
    assert notebooks.code_from_history(EX3, ["", "x = 1", "!ls"]) is None


def test_check_cell_grades_what_the_kernel_ran(tmp_path):
    """Runs the notebook's cells in an IPython shell, as Jupyter or Colab would."""
    pytest.importorskip("IPython")
    path = solved_notebook(tmp_path / "exercise3_scaling.ipynb")
    script = textwrap.dedent("""\
        import sys, nbformat
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        for cell in nbformat.read(sys.argv[1], as_version=4).cells:
            if cell.cell_type == "code":
                shell.run_cell(cell.source, store_history=True)
        """)
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython")}
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "✓ exercise3" in done.stdout and "lumen-check-" not in done.stdout  # no temporary path shown
    assert "Total: " in done.stdout and "1 of 1 exercise(s) passed" in done.stdout
    assert "Help on function scale_scores" in done.stdout  # the scratch cell ran in the kernel


def test_the_check_cell_names_a_line_as_the_kernel_numbered_its_input():
    """Round 70's P4: the check cell placed a crash at "exercise3_scaling.py, line 8", a file a notebook's
    student never had (or the untouched stub, whose line 8 says nothing)."""
    history = ["", "import math", "x = 1", "def scale_scores(scores, d_k):\n    return scores / math.sqrt(d_k)\n\n\n"
               "def scaled_scores(q, k):\n    s = q @ k  # no transpose: a shape error\n    return scale_scores(s, q.size(-1))"]
    shell = types.SimpleNamespace(history_manager=types.SimpleNamespace(input_hist_raw=history))
    shown = notebooks.check_in_kernel("exercise3", shell)
    assert "In [3], line 6" in shown and "exercise3_scaling.py, line" not in shown, shown


def test_the_check_cell_names_a_located_mistake_s_line_as_the_kernel_numbered_it(tmp_path, monkeypatch):
    """Round 71's a03: a diagnosis's located line ("it becomes float32 at line 10, in scale_scores") is written
    without its file, and named a line of the graded file."""
    (tmp_path / "course.toml").write_text("[hints]\nfirst_level = 3\n")  # the cause, where the line is
    monkeypatch.setenv("LUMEN_COURSE", str(tmp_path / "course.toml"))
    history = ["", "import math\nimport torch", "x = 1", "def scale_scores(scores, d_k):\n    factor = math.sqrt(d_k)\n"
               "    return scores.float() / factor\n\n\ndef scaled_scores(q, k):\n"
               "    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"]
    shell = types.SimpleNamespace(history_manager=types.SimpleNamespace(input_hist_raw=history))
    shown = " ".join(notebooks.check_in_kernel("exercise3", shell).split())
    assert "it becomes float32 at In [3], line 3, in scale_scores" in shown, shown


@pytest.mark.parametrize("scaled, located", [
    ("scores.float() / math.sqrt(d_k)", "it becomes float32 at mine.ipynb, cell 3 (code cell 2), line 3, in scale_scores"),
    ("scores.t() / math.sqrt(d_k)", "mine.ipynb, cell 3 (code cell 2), line 3, in scale_scores"),
], ids=["dtype", "crash"])
def test_a_graded_notebook_names_a_located_mistake_s_cell_and_line(launcher, tmp_path, scaled, located):
    """Round 71's a03, graded with --notebook: a diagnosis's located line, written without its file ("at line
    12, in scale_scores"), named a line of the .py file made of the notebook's cells, which the student never
    had; it names the cell and its line, as a frame of the student's code does."""
    code = (f"x = 1\ndef scale_scores(scores, d_k):\n    return {scaled}\n\n\n"
            "def scaled_scores(q, k):\n    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))")
    path = write_notebook(tmp_path / "mine.ipynb", "import math\nimport torch", code)
    result = grade_folder(launcher, tmp_path, notebook=path)
    messages = " ".join(diagnosis["message"] for diagnosis in result.diagnoses)
    assert located in messages, result.diagnoses
    assert not re.search(r"(?<![\w)], )\bline \d+, in", messages)  # no line of the .py file graded


def test_the_check_cell_says_how_to_see_every_level_of_a_hint_and_shows_them():
    """Round 76's P9: the check cell showed hint 1 and no way up (its code is graded from a temporary folder,
    where no ladder is kept): it names `hints`, which shows every level the course allows."""
    history = ["", "import math", "def scale_scores(scores, d_k):\n    return scores / d_k\n\n\n"
               "def scaled_scores(q, k):\n    return scale_scores(q @ k.transpose(-2, -1), q.size(-1))"]
    shell = types.SimpleNamespace(history_manager=types.SimpleNamespace(input_hist_raw=history))
    first = " ".join(notebooks.check_in_kernel("exercise3", shell).split())
    assert "hint 1 of 4" in first and "next hint: %run -m grader.course.notebooks exercise3 hints" in first, first
    every = " ".join(notebooks.check_in_kernel("exercise3", shell, hints=True).split())
    assert all(f"hint {level} of 4" in every for level in (1, 2, 3, 4)) and "next hint" not in every, every


def test_only_a_line_of_the_graded_code_is_named_as_a_cell_s(tmp_path):
    """Round 75's a01: find_heads returned a dict keyed "line 99...9, in find_heads" (5000 digits), which a
    message quotes; reading that number as a line raised past int()'s limit and stopped the grading. A
    number no line of the code has is left as it is."""
    code = tmp_path / "mine.py"
    code.write_text("# mine.ipynb, cell 2\nx = 1\ny = 2\n")
    found = Found(tmp_path / "mine.ipynb", code, cells=((2, 2, 1),))
    huge = "line " + "9" * 5000 + ", in find_heads"
    assert found.lines_named(f"keys [{huge!r}]") == f"keys [{huge!r}]"
    assert found.lines_named("at line 3, in f and line 4, in g") == (
        "at mine.ipynb, cell 2 (code cell 1), line 2, in f and line 4, in g")
    # round 75's a02: a warning the code printed names the graded file's path and line
    assert found.lines_named(f"{code}:3: UserWarning: x") == "mine.ipynb, cell 2 (code cell 1), line 2: UserWarning: x"


def test_the_check_cell_names_its_own_way_to_list_every_test(tmp_path):
    """The short report points to the check cell with -v (`lumen-grade exercise6 -v` would grade the
    .py file, not the notebook), and that line lists every test of the code the kernel ran."""
    pytest.importorskip("IPython")
    ex6 = catalog.find("exercise6")
    code = (SUBMISSIONS / "exercise6" / "wrong_split_no_transpose.py").read_text(encoding="utf-8")
    code = code.replace("    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)\n",
                        "    return x.view(B, L, H * d_head)\n")  # a wrong merge_heads too: many problems
    script = textwrap.dedent("""\
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        shell = InteractiveShell.instance()
        shell.run_cell(open(sys.argv[1]).read(), store_history=True)
        for line in sys.argv[2:]:
            print("=== " + line, flush=True)
            shell.run_cell(line, store_history=True)
        """)
    (tmp_path / "code.py").write_text(code, encoding="utf-8")
    check = notebooks.check_cell(ex6).splitlines()[-1]
    env = {**os.environ, "IPYTHONDIR": str(tmp_path / "ipython"), "COLUMNS": "400"}
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "code.py"), check, f"{check} -v"],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    short, verbose = done.stdout.split(f"=== {check}\n", 1)[1].split(f"=== {check} -v\n")
    assert f"{check} -v lists every test" in short and "lumen-grade exercise6 -v" not in short, short
    assert "✗ 0/1  test_merge_heads_values[cpu-float32]" in verbose and "lists every test" not in verbose, verbose
    assert "lumen-check-" not in short + verbose  # no temporary path shown


def test_check_module_outside_a_notebook_says_how_to_use_it():
    done = subprocess.run([sys.executable, "-m", "grader.course.notebooks", "exercise3"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "lumen-grade exercise3 --notebook FILE" in done.stderr


# One rule for choosing the file: lumen-grade, batch and Gradescope


def test_a_notebook_and_its_jupyter_copy_are_chosen_by_one_rule_everywhere(tmp_path):
    folder = tmp_path / "student"
    folder.mkdir()
    solved_notebook(folder / "exercise3_scaling.ipynb")
    shutil.copyfile(NOTEBOOKS / "exercise3_scaling.ipynb", folder / "exercise3_scaling-Copy1.ipynb")  # a stub
    from grader.course import gradescope
    from grader.grading.submission import candidates

    names = [path.name for path in candidates(EX3, folder)]
    assert names == ["exercise3_scaling.ipynb", "exercise3_scaling-Copy1.ipynb"]
    staged = tmp_path / "staged"
    staged.mkdir()
    chosen, notes = gradescope.stage(folder, staged, [EX3])  # Gradescope's and batch's staging
    assert [path.name for path in chosen[EX3][0].values()] == ["exercise3_scaling.ipynb"]
    assert notes == ["exercise3: graded exercise3_scaling.ipynb (ignored: exercise3_scaling-Copy1.ipynb)"]
    result = invoke("exercise3", "--submission", folder, "--device", "cpu", "--no-perf", "--format", "json")
    assert result.exit_code == 0, result.output  # the solved one was graded, not the stub
    (exercise,) = json.loads(result.output)["exercises"]
    assert exercise["file"] == str(folder / "exercise3_scaling.ipynb")
    assert exercise["ignored"] == [str(folder / "exercise3_scaling-Copy1.ipynb")]
    text = invoke("exercise3", "--submission", folder, "--device", "cpu", "--no-perf", "-v")
    assert "also found, not graded:" in text.output and "exercise3_scaling-Copy1.ipynb" in text.output
    assert "several" not in invoke("list", "--submission", folder).output


def test_a_notebook_for_another_exercise_in_the_folder_is_a_usage_error(tmp_path):
    solved_notebook(tmp_path / "exercise5_softmax.ipynb")  # exercise 3's notebook, renamed
    result = invoke("exercise5", "--submission", tmp_path, "--device", "cpu")
    assert result.exit_code == 2 and "is the notebook of exercise3, not exercise5" in unwrapped(result.output)


def test_in_all_a_notebook_for_another_exercise_is_that_exercises_error_alone(tmp_path):
    """`all` (and so batch, which runs it per student) grades the rest: the mislabelled notebook costs
    its own exercise, never the whole run as a usage error (round 23's a11: a batch row of `error`)."""
    shutil.copy(SOLUTIONS / EX3.file_name, tmp_path / EX3.file_name)
    solved_notebook(tmp_path / "exercise4_masking.ipynb")  # exercise 3's notebook, renamed
    result = invoke("all", "--submission", tmp_path, "--device", "cpu", "--no-perf", "--format", "json")
    assert result.exit_code == 1, result.output
    report = {exercise["id"]: exercise for exercise in json.loads(result.output)["exercises"]}
    assert report["exercise3"]["score"] == report["exercise3"]["max_score"] > 0
    assert "is the notebook of exercise3, not exercise4" in report["exercise4"]["error"]


def test_a_runtime_error_names_the_notebook_cell_not_the_graded_file(tmp_path):
    """The student's traceback, through the one mapping of the graded .py's lines to the cells."""
    from grader.grading.plugin import _outcome
    from grader.sandbox.judge import StudentError
    from grader.grading.submission import prepare

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# Mine"), nbformat.v4.new_code_cell("import torch"),
                      nbformat.v4.new_markdown_cell("then"),
                      nbformat.v4.new_code_cell("def scaled_scores(q, k):\n    x = 1\n    raise ValueError('oops')")]
    path = tmp_path / EX3.stem
    nbformat.write(notebook, path.with_suffix(".ipynb"))
    (tmp_path / "code").mkdir()
    found = prepare(EX3, tmp_path, tmp_path / "code")
    graded = found.code.read_text(encoding="utf-8").split("\n")
    line = graded.index("    raise ValueError('oops')") + 1
    frame = f"{EX3.file_name}, line {line}, in scaled_scores: raise ValueError('oops')"
    with pytest.raises(StudentError) as raised:
        raise StudentError("ValueError", "oops", [frame])
    status, message, details = _outcome(raised, 10.0, found)
    assert status == "error"
    assert message == (f"your code raised ValueError: oops ({EX3.stem}.ipynb, cell 4 (code cell 2), line 3, "
                       "in scaled_scores)")
    assert details["frames"] == [f"{EX3.stem}.ipynb, cell 4 (code cell 2), line 3, in scaled_scores: "
                                 "raise ValueError('oops')"]
    assert found.frame(frame) == found.frame(found.frame(frame))  # a frame already mapped stays as it is


def test_a_cell_with_lone_carriage_returns_keeps_the_later_cells_lines(tmp_path):
    """Round 27, a08: a lone CR ends a line for Python, and the cells' lines were counted by "\\n"
    alone: an error on cell 3's line 3 was reported at a line 10 that does not exist."""
    from grader.grading.submission import prepare

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import torch\rimport math\r\rx = 1\r\ny = 2\r" * 3),
                      nbformat.v4.new_markdown_cell("then"),
                      nbformat.v4.new_code_cell("def scaled_scores(q, k):\n    x = 1\n    raise ValueError('oops')")]
    nbformat.write(notebook, (tmp_path / EX3.stem).with_suffix(".ipynb"))
    (tmp_path / "code").mkdir()
    found = prepare(EX3, tmp_path, tmp_path / "code")
    module = found.code.read_bytes().decode("utf-8")
    line = re.split(r"\r\n?|\n", module).index("    raise ValueError('oops')") + 1  # as Python numbers it
    assert found.frame(f"{EX3.file_name}, line {line}, in scaled_scores: raise ValueError('oops')") == (
        f"{EX3.stem}.ipynb, cell 3 (code cell 2), line 3, in scaled_scores: raise ValueError('oops')")


@pytest.mark.parametrize("cell", [{"cell_type": "code", "source": 5, "metadata": {}, "outputs": []},
                                  {"source": "x = 1", "metadata": {}}], ids=["int source", "no cell_type"])
def test_a_notebook_cell_that_is_not_a_cell_is_a_one_line_reason(launcher, tmp_path, cell):
    """JSON nbformat accepts (it only records the schema violation) but whose cell has no type or a
    source that is not text: the student's row says so, never a grader traceback."""
    notebook = tmp_path / f"{EX3.stem}.ipynb"
    notebook.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [cell]}))
    result = grade_folder(launcher, tmp_path)
    assert "cell 1 is not a notebook cell" in result.error and "Traceback" not in result.error



def test_a_notebooks_file_name_is_never_code(tmp_path):
    """Round 24's a5: the released stub's cells, in a notebook whose name carries code after carriage
    returns (a lone \\r ends a line for Python), were graded 21/21: the name was written into the module."""
    code = "\r".join(["import math", "def scale_scores(s, d): return s.div(math.sqrt(d))",
                      "def scaled_scores(q, k): return scale_scores(q @ k.transpose(-2, -1), q.size(-1))", "#"])
    folder = tmp_path / "sub"
    folder.mkdir()
    shutil.copyfile(NOTEBOOKS / "exercise3_scaling.ipynb", folder / f"exercise3_scaling\r{code}.ipynb")
    result = invoke("exercise3", "--submission", folder, "--device", "cpu", "--no-perf", "--format", "json")
    (exercise,) = json.loads(result.output)["exercises"]
    assert result.exit_code == 1 and exercise["score"] == 0, result.output
    assert any("not implemented yet" in test["message"] for test in exercise["tests"])


def test_a_notebook_whose_name_holds_a_newline_is_found_as_any_other(tmp_path):
    """Round 77's a06: `exercise9_x\n.ipynb` matched no name (a regular expression's `.` stops at a newline):
    neither graded nor named, where `exercise9_x\r.ipynb` was."""
    for name in ("exercise3_x\n.ipynb", "exercise3_x\r.ipynb"):
        folder = tmp_path / ascii(name).strip("'")
        folder.mkdir()
        shutil.copyfile(NOTEBOOKS / "exercise3_scaling.ipynb", folder / name)
        assert [path.name for path in candidates(EX3, folder)] == [name]


def test_code_from_history_keeps_the_imports_and_helpers_the_code_reads():
    """Round 55's h02: imports and a helper in a cell of their own, above the exercise's cell; the check cell
    graded the exercise's cell alone (NameError: 0/21), where the handed-in notebook got full marks. A cell
    the kept code does not read (a print, an experiment) stays out."""
    history = [
        "import math\nimport torch\n_unused = 0\ndef _sqrt_dk(d):\n    return math.sqrt(d)",
        "x = torch.ones(2)\nprint(x)",
        "def scale_scores(s, d):\n    return s / _sqrt_dk(d)\ndef scaled_scores(q, k):\n    "
        "return scale_scores(q @ k.transpose(-2, -1), q.size(-1))",
    ]
    code = notebooks.code_from_history(EX3, history)
    assert code == history[0] + "\n\n" + history[2] + "\n"


def test_a_released_stub_beside_a_worked_notebook_gives_way_to_the_notebook(tmp_path):
    """Round 55's h03: a student who worked in the notebook handed in the released folder, stub .py and all;
    the stub was graded (0). A .py still the stub comes after any notebook; one with any of the exercise's
    names written is graded first, as before."""
    from grader.grading.submission import candidates

    folder = tmp_path / "student"
    (folder / "notebooks").mkdir(parents=True)
    stub = (EXERCISES / "exercise3_scaling.py").read_text(encoding="utf-8")
    (folder / "exercise3_scaling.py").write_text(stub, encoding="utf-8")
    solved_notebook(folder / "notebooks" / "exercise3_scaling.ipynb")
    assert [path.name for path in candidates(EX3, folder, nested=True)] == ["exercise3_scaling.ipynb",
                                                                             "exercise3_scaling.py"]
    (folder / "exercise3_scaling.py").write_text((SOLUTIONS / "exercise3_scaling.py").read_text(encoding="utf-8"),
                                                 encoding="utf-8")
    assert [path.name for path in candidates(EX3, folder, nested=True)] == ["exercise3_scaling.py",
                                                                             "exercise3_scaling.ipynb"]
    guarded = (SOLUTIONS / "exercise3_scaling.py").read_text(encoding="utf-8").replace(
        "    d_k = q.size(-1)\n", "    d_k = q.size(-1)\n    if d_k <= 0:\n        raise NotImplementedError('no width')\n").replace(
        "    return scores / math.sqrt(d_k)", "    if d_k <= 0:\n        raise NotImplementedError('no width')\n"
        "    return scores / math.sqrt(d_k)")
    assert guarded.count("NotImplementedError") == 2  # round 62's h07: written code keeping a guard of its own is written
    (folder / "exercise3_scaling.py").write_text(guarded, encoding="utf-8")
    assert [path.name for path in candidates(EX3, folder, nested=True)][0] == "exercise3_scaling.py"
    rebound = stub + "\n\ndef mine(scores, d_k):\n    return scores / d_k ** 0.5\n\n\nscale_scores = mine\n"
    (folder / "exercise3_scaling.py").write_text(rebound, encoding="utf-8")  # round 64's h02: the stub kept,
    assert [path.name for path in candidates(EX3, folder, nested=True)][0] == "exercise3_scaling.py"  # its name bound


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda exercise: exercise.id)
def test_the_released_stub_is_still_the_stub_and_the_solution_is_not(exercise):
    from grader.grading.submission import _still_the_stub

    assert _still_the_stub(exercise, EXERCISES / exercise.file_name)
    assert not _still_the_stub(exercise, SOLUTIONS / exercise.file_name)
