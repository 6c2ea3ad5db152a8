"""The `lumen-grade` command line: exit codes, errors a student can act on, the JSON contract."""

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXERCISES, SOLUTIONS, unwrapped
from grader import catalog
from grader.cli import main as cli
from grader.cli.main import main


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_solutions_pass_with_exit_code_0():
    result = invoke("exercise3", "--submission", SOLUTIONS, "--device", "cpu")
    assert result.exit_code == 0, result.output
    assert "✓ exercise3" in result.output
    assert "Total: 21/21 — 1 of 1 exercise(s) passed" in result.output


def test_number_alias_and_stub_fails_with_exit_code_1():
    result = invoke("3", "--submission", EXERCISES, "--device", "cpu")
    assert result.exit_code == 1
    assert "not implemented yet" in result.output
    assert "Why divide by √d_k?" in " ".join(result.output.split())  # the section to read (wrapped)


def test_ctrl_c_before_the_grading_starts_exits_130(monkeypatch):
    """Round 70's N6: "Aborted!" exited 1, the code of a failure; Ctrl-C is 130 however early it comes."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "run_grading", interrupted)
    result = invoke("exercise3", "--submission", SOLUTIONS, "--device", "cpu")
    assert result.exit_code == 130 and "Aborted!" in result.output


def test_ctrl_c_while_the_command_line_loads_exits_130_without_a_traceback():
    """Round 71's a04: Ctrl-C in the first tenth of a second, while Click and the kit were imported, showed a
    KeyboardInterrupt traceback. The console script loads the command line itself; here its import is
    interrupted, as a Ctrl-C at that moment would."""
    interrupted = ("import sys\n"
                   "class Interrupt:\n"
                   "    def find_spec(self, name, path=None, target=None):\n"
                   "        if name == 'grader.cli.main':\n"
                   "            raise KeyboardInterrupt\n"
                   "sys.meta_path.insert(0, Interrupt())\n"
                   "from grader.cli import lumen_grade\n"
                   "lumen_grade()\n")
    run = subprocess.run([sys.executable, "-c", interrupted], capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout, run.stderr) == (130, "", "Aborted!\n")


def test_ctrl_c_while_torch_loads_stops_the_run_though_torch_swallows_it():
    """Round 80: Ctrl-C in the first second of `lumen-grade all` printed an ImportError's traceback, or was
    ignored and the whole run graded: torch turns an error raised while it imports NumPy, the
    KeyboardInterrupt too, into a warning. Here the Ctrl-C comes as NumPy is imported."""
    interrupted = ("import os, signal, sys\n"
                   "class Interrupt:\n"
                   "    def find_spec(self, name, path=None, target=None):\n"
                   "        if name == 'numpy':\n"
                   "            sys.meta_path.remove(self)\n"
                   "            os.kill(os.getpid(), signal.SIGINT)\n"
                   "sys.meta_path.insert(0, Interrupt())\n"
                   "from grader.cli import lumen_grade\n"
                   f"sys.argv = ['lumen-grade', 'exercise3', '--submission', {str(SOLUTIONS)!r}, '--no-perf']\n"
                   "lumen_grade()\n")
    run = subprocess.run([sys.executable, "-c", interrupted], capture_output=True, text=True, timeout=120,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as a terminal starts it
    assert run.returncode == 130 and "Traceback" not in run.stderr and "exercise3" not in run.stdout, run
    assert run.stderr.splitlines()[-1] in ("Aborted!", "stopped by SIGINT: nothing graded"), run.stderr


def test_a_misnamed_file_is_named_with_the_name_to_give_it(tmp_path):
    """Round 80: exercise3.py beside no exercise3_scaling.py was "no exercise3_scaling.py" alone, to
    `lumen-grade` and in batch's and Gradescope's notes alike."""
    from grader.course import gradescope
    from grader.grading import submission

    (tmp_path / "exercise3.py").write_text((SOLUTIONS / "exercise3_scaling.py").read_text())
    (tmp_path / "Exercise5_Softmax.ipynb").write_text("{}")
    result = invoke("3", "--submission", tmp_path, "--device", "cpu")
    assert result.exit_code == 2 and "exercise3.py is there: name it exercise3_scaling.py" in unwrapped(result.output)
    found = submission.listing(tmp_path, nested=True)
    assert gradescope.not_file_notes(tmp_path, found, catalog.EXERCISES) == [
        "exercise3: not graded exercise3.py: name it exercise3_scaling.py",
        "exercise5: not graded Exercise5_Softmax.ipynb: name it exercise5_softmax.ipynb"]
    forged = tmp_path / "forged"  # round 81's a04: a name's newline would print a line of its own
    forged.mkdir()
    (forged / "exercise3\nTotal: 21 of 21.py").write_text("")
    result = invoke("3", "--submission", forged, "--device", "cpu")
    assert "\nTotal" not in result.output and "exercise3 Total: 21 of 21.py is there" in unwrapped(result.output)
    nested = tmp_path / "nested"  # a file in a folder below, which batch would find: named, with its folder
    (nested / "hw" / "week3").mkdir(parents=True)
    (nested / "hw" / "week3" / "exercise3_scaling.py").write_text("")
    result = invoke("all", "--submission", nested, "--device", "cpu")
    assert result.exit_code == 2 and (f"hw/week3/exercise3_scaling.py is in a folder below: pass --submission "
                                      f"{nested / 'hw' / 'week3'}") in unwrapped(result.output), result.output


def test_a_notebook_written_below_the_untouched_stub_is_pointed_to(tmp_path):
    """Round 80: exercise 5 done in exercises/notebooks/, then `lumen-grade 5`, which graded the stub .py beside
    it: "not implemented yet" and no word of the notebook. A notebook still the stub is not pointed to."""
    folder = tmp_path / "exercises"
    shutil.copytree(EXERCISES, folder)
    result = invoke("5", "--submission", folder, "--device", "cpu", "--no-perf")
    assert result.exit_code == 1 and "still the stub" not in result.output, result.output
    notebook = folder / "notebooks" / "exercise5_softmax.ipynb"
    cells = json.loads(notebook.read_text())
    stub = next(cell for cell in cells["cells"]
                if cell["cell_type"] == "code" and "NotImplementedError" in "".join(cell["source"]))
    stub["source"] = (SOLUTIONS / "exercise5_softmax.py").read_text()
    notebook.write_text(json.dumps(cells))
    result = invoke("5", "--submission", folder, "--device", "cpu", "--no-perf")
    assert result.exit_code == 1 and (
        "exercise5: exercise5_softmax.py is still the stub, and your notebook notebooks/exercise5_softmax.ipynb is "
        f"not graded by this command: lumen-grade exercise5 --notebook {notebook}") in unwrapped(result.output)
    result = invoke("5", "--notebook", notebook, "--device", "cpu", "--no-perf")
    assert result.exit_code == 0 and "still the stub" not in result.output, result.output


def test_a_file_named_nearly_as_the_exercise_beside_its_stub_is_named_everywhere(tmp_path):
    """Round 86: exercise2.py beside the released notebook (batch graded the notebook, Gradescope too) or beside
    the released stub (`lumen-grade 2`) was named nowhere: each says the name to give it, and the page shows it."""
    from grader.course import gradescope
    from grader.grading import submission
    from grader.reports import html

    (tmp_path / "exercise2.py").write_text((SOLUTIONS / "exercise2_scoring.py").read_text())
    shutil.copyfile(EXERCISES / "notebooks" / "exercise2_scoring.ipynb", tmp_path / "exercise2_scoring.ipynb")
    found = submission.listing(tmp_path, nested=True)
    notes = gradescope.not_file_notes(tmp_path, found, [catalog.find("exercise2")])
    assert notes == ["exercise2: not graded exercise2.py: name it exercise2_scoring.py"]
    page = html.render({"score": 0, "max_score": 17, "device": "cpu", "seed": 0, "exercises": []}, files=notes)
    assert "<li>exercise2: not graded exercise2.py: name it exercise2_scoring.py</li>" in page
    (tmp_path / "exercise2_scoring.ipynb").unlink()
    shutil.copyfile(EXERCISES / "exercise2_scoring.py", tmp_path / "exercise2_scoring.py")
    result = invoke("2", "--submission", tmp_path, "--device", "cpu", "--no-perf")
    assert "exercise2: exercise2_scoring.py is still the stub, and exercise2.py is there: name it " \
        "exercise2_scoring.py" in unwrapped(result.output), result.output
    (tmp_path / "exercise2_scoring.py").write_text((SOLUTIONS / "exercise2_scoring.py").read_text())  # written
    assert submission.misnamed(catalog.find("exercise2"), submission.listing(tmp_path)) == []


def test_two_exercises_at_once_say_how_to_grade_more_than_one():
    result = invoke("3", "4")  # round 80: Click's "Got unexpected extra argument (4)" alone
    assert result.exit_code == 2 and "grade one exercise at a time (lumen-grade exercise3), or every one: lumen-grade " \
        "all" in unwrapped(result.output)


def test_a_long_grading_says_on_a_terminal_that_it_goes_on(monkeypatch, capsys):
    """Round 80: a loop that never ends showed nothing for the minute of its time limit; on a terminal a line
    says the grading goes on (never where stderr is a file: CI logs, tests)."""
    import time

    monkeypatch.setattr(cli, "STILL_GRADING", 0.01)
    with cli.still_grading(60):  # stderr is no terminal here
        time.sleep(0.1)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    said = ""
    with cli.still_grading(60):
        for _ in range(1000):  # until the timer's thread has run, however busy the machine
            said += capsys.readouterr().err
            if said:
                break
            time.sleep(0.01)
    assert said == "still grading after 0.01 s (an exercise may take 60 s before its time limit stops it; Ctrl-C " \
        "stops now)\n"


FIRST, LAST = catalog.EXERCISES[0], catalog.EXERCISES[-1]


@pytest.mark.parametrize("name", ["exercise99", "softmax", "exercise3_wrong"])
def test_unknown_exercise_is_a_usage_error_listing_the_valid_ones(name):
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, [name])
    assert result.exit_code == 2
    assert f"unknown exercise or command {name!r}" in result.output
    assert f"exercises: {FIRST.id} … {LAST.id} (or just {FIRST.number}–{LAST.number})" in result.output
    assert "commands: all, " in result.output and "list" in result.output


@pytest.mark.parametrize("name", [f"{LAST.id}1", f"{LAST.number + 1}", f"{LAST.id}0", "exercise33"])
def test_a_number_beyond_the_last_exercise_says_how_many_there_are(name):
    """Round 80: `lumen-grade exercise11` was asked "did you mean exercise1?" alone; the closest name stays
    (exercise33 is most often exercise3 typed twice)."""
    said = unwrapped(CliRunner().invoke(main, [name]).output)
    assert f"(there is no exercise {int(name.removeprefix('exercise'))}: they are numbered {FIRST.number}–" \
        f"{LAST.number}" in said, said
    assert name != "exercise33" or f"{LAST.number}; did you mean exercise3?)" in said, said


@pytest.mark.parametrize("name, closest", [("exercse3", "exercise3"), ("wacth", "watch"), ("exercise_3", "exercise3")])
def test_an_unknown_name_suggests_the_closest(name, closest):
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, [name])
    assert f"(did you mean {closest}?)" in result.output


@pytest.mark.parametrize("option, word", [("--hint", "next"), ("--hints", "all")])
def test_a_hint_option_given_another_word_says_what_its_word_does(option, word):
    """Round 80: `--hint 2` got Click's "'2' is not 'next'" alone."""
    result = invoke("3", option, "2")
    said = unwrapped(result.output)
    assert result.exit_code == 2 and f"'2': write {option} {word}, which " in said, said
    assert option == "--hints" or "the levels climb one at a time; --hints all shows every level" in said


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("args", [
    ["exercise99"],
    ["all", "--submission", "nosuchdir"],
    ["watch", "exercise42"],
    ["exercise5", "--notebook", EXERCISES / "notebooks" / "exercise3_scaling.ipynb"],
])
def test_usage_errors_wrap_to_the_width_with_a_hanging_indent(args, columns):
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(main, [str(a) for a in args])
    assert result.exit_code == 2
    lines = result.output.rstrip("\n").split("\n")
    # every line fits, but one that is a single word (a path longer than the line: never split)
    assert all(len(line) <= columns or len(line.split()) == 1 for line in lines), result.output
    # "Error:" stands alone on its line when the word after it (a long path) would not fit there
    error = next(i for i, line in enumerate(lines) if line.startswith("Error:"))
    assert len(lines) > error + 1 and all(line.startswith("  ") for line in lines[error + 1:]), result.output


LONG = "a-folder-whose-name-alone-is-longer-than-any-terminal-line-" * 3  # 177 characters


@pytest.mark.parametrize("columns", [40, 80, 200])
@pytest.mark.parametrize("command, path", [
    (lambda folder: ["exercise2", "--submission", folder / "nowhere"], lambda folder: folder / "nowhere"),
    (lambda folder: ["exercise2", "--submission", folder], lambda folder: folder),
    (lambda folder: ["release", "--solutions", folder, "--out", folder / "out"],
     lambda folder: folder / "exercise1_projection.py"),
    (lambda folder: ["batch", folder, "--out", folder / "grades.txt"], lambda folder: folder / "grades.txt"),
], ids=["no-folder", "no-file", "release", "batch-out"])
def test_an_error_never_splits_a_path(tmp_path, command, path, columns):
    """However long the path and narrow the terminal, the path in an error is on one line, whole
    (`lumen-grade release` once split `solutions/ex` / `ercise6_multihead.py`)."""
    folder = tmp_path / LONG / LONG
    folder.mkdir(parents=True)
    result = CliRunner(env={"COLUMNS": str(columns)}).invoke(main, [str(a) for a in command(folder)])
    assert result.exit_code == 2, result.output
    assert any(str(path(folder)) in line for line in result.output.split("\n")), result.output


def test_the_report_never_splits_the_path_of_your_file(tmp_path):
    folder = tmp_path / LONG
    folder.mkdir()
    (folder / "exercise3_scaling.py").write_bytes((EXERCISES / "exercise3_scaling.py").read_bytes())
    result = CliRunner(env={"COLUMNS": "40"}).invoke(main, ["3", "--submission", str(folder), "--no-perf",
                                                            "--device", "cpu"])
    assert result.exit_code == 1 and "not implemented yet" in result.output
    assert any(str(folder / "exercise3_scaling.py") in line for line in result.output.split("\n")), result.output


def test_wrap_error_breaks_only_between_words():
    text = "Error: no file /a/very/long/path/to/solutions/exercise6_multihead.py (looked in /x/y): pass --solutions"
    wrapped = cli.wrap_error(text, 40)
    assert wrapped.split("\n") == ["Error: no file", "  /a/very/long/path/to/solutions/exercise6_multihead.py",
                                   "  (looked in /x/y): pass --solutions"]
    assert unwrapped(wrapped) == text


def test_every_command_has_a_whole_short_help_on_one_line():
    result = CliRunner(env={"COLUMNS": "80"}).invoke(main, ["--help"], terminal_width=80)
    assert max(map(len, result.output.split("\n"))) <= 80, result.output
    for name, command in main.commands.items():
        if not command.hidden:
            assert command.short_help and command.get_short_help_str(60) == command.short_help, name
            assert any(line.split() and line.split()[0] == name and line.rstrip().endswith(command.short_help)
                       for line in result.output.split("\n")), name


def test_missing_folder_says_where_it_looked(tmp_path):
    missing = tmp_path / "nowhere"
    result = CliRunner().invoke(main, ["exercise2", "--submission", str(missing)])
    assert result.exit_code == 2
    assert str(missing) in result.output and "--submission DIR" in result.output


@pytest.mark.parametrize("command", [["3"], ["all"], ["watch", "3"]])
def test_inside_exercises_you_are_told_submission_dot_or_cd_up(tmp_path, monkeypatch, command):
    inside = tmp_path / "exercises"
    inside.mkdir()
    (inside / "exercise3_scaling.py").write_bytes((EXERCISES / "exercise3_scaling.py").read_bytes())
    monkeypatch.chdir(inside)
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2
    said = unwrapped(result.output)
    assert "the exercise files are right here (exercise3_scaling.py)" in said, said
    assert "pass --submission . to grade them, or cd .." in said and "exercises/exercises" not in said
    graded = CliRunner().invoke(main, ["3", "--submission", ".", "--no-perf", "--device", "cpu"])
    assert graded.exit_code == 1 and "not implemented yet" in graded.output  # the advice works


def test_exercise_files_in_another_folder_are_not_told_to_cd_up(tmp_path, monkeypatch):
    (tmp_path / "exercise3_scaling.py").write_bytes((EXERCISES / "exercise3_scaling.py").read_bytes())
    monkeypatch.chdir(tmp_path)
    said = unwrapped(CliRunner().invoke(main, ["3", "--submission", "mywork"]).output)
    assert "right here (exercise3_scaling.py): pass --submission . to grade them" in said and "cd .." not in said


def test_a_folder_without_exercise_files_is_not_taken_for_exercises(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    said = unwrapped(CliRunner().invoke(main, ["3"]).output)
    assert f"no folder exercises (looked in {tmp_path / 'exercises'})" in said and "right here" not in said


def test_a_folder_named_nearly_right_is_suggested(tmp_path, monkeypatch):
    """Round 70's new user typed `--submission exercise`; the folder beside it is `exercises`."""
    (tmp_path / "exercises").mkdir()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["3", "--submission", "exercise"])
    assert result.exit_code == 2 and "did you mean --submission exercises?" in unwrapped(result.output)
    result = CliRunner().invoke(main, ["3", "--submission", "homework"])  # nothing close: the usual advice
    assert "did you mean" not in result.output and "pass --submission DIR" in unwrapped(result.output)


def test_a_submission_through_a_looping_link_is_a_usage_error(tmp_path, monkeypatch):
    """Round 75's a04: a --submission through a link to itself raised RuntimeError (a traceback, exit 1)
    where the message resolved the path; and a looping link beside it stopped "did you mean"."""
    (tmp_path / "loop").symlink_to("loop")
    (tmp_path / "exercises").mkdir()
    monkeypatch.chdir(tmp_path)
    for folder in ("loop", "loop/x", "exercisez"):
        result = CliRunner().invoke(main, ["3", "--submission", folder])
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert "did you mean --submission exercises?" in unwrapped(result.output)


@pytest.mark.parametrize("command", [["3"], ["all"], ["list"], ["hint", "3"]])
def test_a_folder_too_large_to_look_through_is_said_not_a_traceback(tmp_path, monkeypatch, command):
    """Round 62's a06: a folder past the bounds of the search raised TreeTooLarge out of the command."""
    from grader.grading.settings import DEFAULTS

    monkeypatch.setattr(DEFAULTS, "tree_entries", 20)
    for number in range(30):
        (tmp_path / f"notes{number}.txt").write_text("")
    (tmp_path / "exercise3_scaling.py").write_bytes((SOLUTIONS / "exercise3_scaling.py").read_bytes())
    result = CliRunner().invoke(main, [*command, "--submission", str(tmp_path), "--no-perf", "--device", "cpu"]
                                if command != ["list"] else ["list", "--submission", str(tmp_path)])
    assert result.exit_code == 2, (result.output, result.exception)
    assert "holds more than 20 files and folders" in unwrapped(result.output), result.output
    monkeypatch.chdir(tmp_path)  # a working folder too large to look through is no guess of where the files are
    result = CliRunner().invoke(main, ["3", "--submission", "nowhere"])
    assert result.exit_code == 2 and "no folder nowhere" in unwrapped(result.output), result.output


@pytest.mark.parametrize("typed, present, advice", [
    ("exercises/exercise3_scaling.py", [], "lumen-grade exercise3"),
    ("exercise3_scaling.py", [], "lumen-grade exercise3"),  # not here, but in exercises/: the default
    ("exercise3_scaling.py", ["exercise3_scaling.py"], "lumen-grade exercise3 --submission ."),
    ("my work/exercise10_tiled_attention.py", ["my work/exercise10_tiled_attention.py"],
     "lumen-grade exercise10 --submission 'my work'"),
    ("exercises/notebooks/exercise6_multihead.ipynb", ["exercises/notebooks/exercise6_multihead.ipynb"],
     "lumen-grade exercise6 --notebook exercises/notebooks/exercise6_multihead.ipynb"),
])
def test_a_path_to_an_exercise_file_suggests_the_command_that_grades_it(tmp_path, monkeypatch, typed, present, advice):
    """`lumen-grade exercises/exercise3_scaling.py`: the file names its exercise; the advice, typed
    in that folder, grades that very file (a course folder: exercises/ and the files `present`)."""
    for name in ["exercises/exercise3_scaling.py", *present]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [typed])
    assert result.exit_code == 2
    exercise = catalog.find(advice.split()[1])
    assert f"(did you mean {exercise.id}? to grade that file: {advice})" in unwrapped(result.output)
    options = dict(zip(*[iter(shlex.split(advice)[2:])] * 2))
    graded = (Path(options["--notebook"]) if "--notebook" in options
              else Path(options.get("--submission", "exercises")) / exercise.file_name)
    assert graded.resolve() == (tmp_path / (present or ["exercises/exercise3_scaling.py"])[0]).resolve()


def test_a_file_named_after_an_exercise_but_nowhere_gets_no_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    said = unwrapped(CliRunner().invoke(main, ["exercise3_scaling.py"]).output)
    assert "(did you mean exercise3?)" in said and "to grade that file" not in said


@pytest.mark.parametrize("given, advice", [
    ("exercises/exercise3_scaling.py", "to grade it: lumen-grade exercise3"),
    ("mine/exercise3_scaling.py", "to grade it: lumen-grade exercise3 --submission mine"),
    ("mine/notes.txt", "pass its folder: --submission mine"),
])
def test_a_file_given_as_the_submission_folder_is_told_to_pass_its_folder(tmp_path, monkeypatch, given, advice):
    for name in ("exercises/exercise3_scaling.py", given):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["3", "--submission", given])
    assert result.exit_code == 2
    assert f"--submission {given} is a file, not a folder: {advice}" in unwrapped(result.output)


def test_missing_file_says_which_file_and_where(tmp_path):
    result = CliRunner().invoke(main, ["exercise2", "--submission", str(tmp_path)])
    assert result.exit_code == 2
    assert "exercise2_scoring.py" in result.output and str(tmp_path) in result.output


def test_bad_option_values_are_usage_errors():
    assert CliRunner().invoke(main, ["3", "--format", "xml"]).exit_code == 2
    assert CliRunner().invoke(main, ["3", "--timeout", "0"]).exit_code == 2
    assert CliRunner().invoke(main, ["3", "--device", "tpu"]).exit_code == 2


def test_json_report_has_the_promised_fields(tmp_path):
    out = tmp_path / "report.json"
    result = invoke("exercise3", "--submission", SOLUTIONS, "--device", "cpu", "--format", "json",
                    "--output", out, "--seed", 7, "--no-perf")
    assert result.exit_code == 0
    assert f"wrote the json report to {out}" in result.output
    data = json.loads(out.read_text())
    assert {"score", "max_score", "device", "seed", "exercises"} <= set(data)
    assert data["seed"] == 7 and data["device"] == "cpu"
    (exercise,) = data["exercises"]
    assert {"id", "title", "file", "passed", "score", "max_score", "tier", "diagnoses", "tests"} <= set(exercise)
    assert exercise["id"] == "exercise3" and exercise["passed"] is True
    assert exercise["tier"] is None  # --no-perf
    assert exercise["diagnoses"] == []
    assert exercise["score"] == exercise["max_score"] == data["score"] > 0
    for test in exercise["tests"]:
        assert {"name", "status", "score", "max_score", "visibility", "message"} <= set(test)
        assert test["status"] in ("passed", "skipped")
        assert test["visibility"] in ("visible", "hidden")


def test_json_to_stdout_is_valid_json_for_a_failing_submission():
    result = invoke("exercise3", "--submission", EXERCISES, "--device", "cpu", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert data["score"] == 0 and data["max_score"] > 0
    statuses = {t["status"] for t in data["exercises"][0]["tests"]}
    assert statuses <= {"error", "skipped"}


def test_all_with_some_files_missing_grades_the_rest(tmp_path):
    (tmp_path / "exercise3_scaling.py").write_bytes((SOLUTIONS / "exercise3_scaling.py").read_bytes())
    result = invoke("all", "--submission", tmp_path, "--device", "cpu", "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    by_id = {e["id"]: e for e in data["exercises"]}
    assert by_id["exercise3"]["passed"] is True
    assert by_id["exercise1"]["passed"] is False
    assert "no exercise1_projection.py in" in by_id["exercise1"]["error"]


def test_cuda_requested_without_a_gpu_is_a_usage_error():
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    result = CliRunner().invoke(main, ["3", "--submission", str(SOLUTIONS), "--device", "cuda"])
    assert result.exit_code == 2
    assert "no CUDA device" in result.output


def test_list_shows_every_exercise_and_its_file():
    result = invoke("list", "--submission", SOLUTIONS)
    assert result.exit_code == 0
    assert result.output.count("found") == len(catalog.EXERCISES)
    assert all(exercise.file_name in result.output for exercise in catalog.EXERCISES)
    lines = result.output.splitlines()
    assert len({line.index(" found ") for line in lines}) == 1, "the columns do not line up"


def test_help_explains_the_options():
    result = invoke("exercise3", "--help")
    for option in ("--submission", "--format", "--output", "--device", "--seed", "--timeout", "--suites"):
        assert option in result.output


def test_private_suites_get_remote_objects_and_len_is_checked(tmp_path):
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_exercise8_private.py").write_text(
        "def test_len_of_a_new_cache(student):\n"
        "    assert len(student.KVCache(1, 2, 4, 10)) == 0\n"
    )
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "exercise8_kv_cache.py").write_text(
        "class KVCache:\n"
        "    def __init__(self, *args, **kwargs):\n"
        "        pass\n"
        "    def __len__(self):\n"
        "        return '0'\n"
    )
    args = ["exercise8", "--device", "cpu", "--no-perf", "--no-builtin-suites", "--suites", suites]
    result = invoke(*args, "--submission", submission, "--format", "json")
    (test,) = json.loads(result.output)["exercises"][0]["tests"]
    assert test["status"] == "failed"
    assert test["message"] == "len(...) of your KVCache returned an object of type str, expected an int >= 0"
    assert invoke(*args, "--submission", SOLUTIONS).exit_code == 0


@pytest.mark.parametrize("command", [["3"], ["watch", "3"]])
@pytest.mark.parametrize("given, advice", [
    ("exercises/exercise3_scaling.py", "to grade that .py file: lumen-grade exercise3"),
    ("mine/exercise3_scaling.py", "to grade that .py file: lumen-grade exercise3 --submission mine"),
    ("mine/attention.py", "a .py file is graded under its exercise's file name, exercise3_scaling.py, in the "
                          "--submission folder"),
])
def test_a_py_file_given_as_the_notebook_is_a_usage_error_that_says_how_to_grade_it(tmp_path, monkeypatch, command,
                                                                                   given, advice):
    (tmp_path / given).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / given).write_text("")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [*command, "--notebook", given])
    assert result.exit_code == 2, result.output
    assert f"--notebook {given} is not a notebook (a .ipynb file): {advice}" in unwrapped(result.output)


def _never_graded(*args, **kwargs):
    raise AssertionError("graded, although the report could not have been written")


@pytest.mark.parametrize("output, says", [
    ("no such folder/report.json", "there is no folder"),
    ("a file/report.json", "there is no folder"),  # a file where its folder should be
    ("a folder", "is a directory"),  # Click's own check
])
def test_an_output_that_cannot_be_written_is_a_usage_error_before_grading(tmp_path, monkeypatch, output, says):
    from grader.grading import runner

    (tmp_path / "a file").write_text("")
    (tmp_path / "a folder").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runner, "grade", _never_graded)
    result = CliRunner().invoke(main, ["3", "--submission", str(SOLUTIONS), "--output", output])
    assert result.exit_code == 2, result.output
    assert "--output" in result.output and says in unwrapped(result.output)


@pytest.mark.privileges
def test_a_folder_the_user_cannot_write_in_is_refused_before_grading(request):
    """A read-only folder: root may write in it (the probe agrees); an unprivileged user gets a usage
    error (exit 2) before anything is graded, not a lost result after it (exit 1)."""
    import tempfile

    from grader.sandbox import files
    from test_containment import _as_nobody

    folder = Path(tempfile.mkdtemp(prefix="lumen-output-"))  # a folder 65534 can reach
    request.addfinalizer(lambda: (folder.chmod(0o755), shutil.rmtree(folder, ignore_errors=True)))
    folder.chmod(0o555)
    if os.geteuid() == 0:
        files.check_destination(folder / "report.json")  # root can: no refusal
        assert list(folder.iterdir()) == []  # and the probe leaves nothing behind
    prefix, reason = _as_nobody()
    if prefix is None:
        pytest.skip(reason)
    done = subprocess.run([*prefix, sys.executable, "-m", "grader", "exercise3", "--submission", str(SOLUTIONS),
                           "--device", "cpu", "--no-perf", "--output", str(folder / "report.json")],
                          capture_output=True, text=True, timeout=120, cwd=folder,
                          env={**os.environ, "PYTHONPATH": str(SOLUTIONS.parent)})
    assert done.returncode == 2, done.stderr
    assert f"--output {folder / 'report.json'} cannot be written: Permission denied" in unwrapped(done.stderr)
    assert "wrote" not in done.stdout and list(folder.iterdir()) == []


def test_every_options_help_is_a_sentence_ending_in_a_full_stop():
    """Before the bracket that gives the default, if any: `--total-timeout`'s and every other's."""
    import click

    context = click.Context(main)
    unfinished = []
    for name in [None, *main.list_commands(context)]:
        command = main if name is None else main.get_command(context, name)
        for option in (p for p in command.params if isinstance(p, click.Option) and p.help):
            if not option.help.split("  [")[0].strip().endswith("."):
                unfinished.append(f"{name} {option.opts[0]}")
    assert unfinished == []
