"""Integrity: hostile submissions (tests/hostile/) graded by the real CLI, and the guard's rules.

Every hostile submission must score no more than it honestly earns, each test it fails must say
why in words a student can act on, and the grader must finish normally (exit code 0 or 1, a JSON
report, no traceback). A few go through a real `lumen-grade` process to show that the process
itself survives crashes, fork bombs and memory bombs.
"""

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from conftest import ROOT, SOLUTIONS, unwrapped
from grader import catalog
from grader.grading import runner
from grader.sandbox import rules, wire
from grader.cli.main import MemorySize, main
from grader.sandbox.judge import Launcher, printable
from grader.grading.settings import Settings

HOSTILE = Path(__file__).resolve().parents[1] / "hostile"
SHADOWS = ("torch.py", "numpy.py", "sitecustomize.py", "usercustomize.py")  # each leaves a file if imported
MEMORY_LIMIT = "256M"


@dataclass(frozen=True)
class Case:
    file: str  # in tests/hostile/: the exercise file, or what is appended to the solution
    says: str | tuple  # part of the message of a test it fails ("" for a case that fails none), or
                       # several: the layer that stops it says one of them (the kernel, or the rules)
    exercise: str = "exercise3"
    on_solution: bool = False  # appended to the instructor solution of the exercise
    honest: tuple = ()  # names (beginnings) of the tests it may pass; ("",): it must pass them all
    beside: dict = field(default_factory=dict)  # file in the submission folder -> file in tests/hostile/
    timeout: float = 20.0
    timed: bool = False  # run the timing phase too (which loads the reference beside the student's code)

    @property
    def id(self):
        return self.file.removesuffix(".py")


SHADOWED = {name: "beside_shadow.py" for name in SHADOWS} | {"conftest.py": "beside_conftest.py"}
SPLIT_MERGE = ("test_split", "test_merge", "test_constructor")

CASES = [
    Case("loop_at_import.py", "time limit", timeout=1),
    Case("loop_in_function.py", "time limit", timeout=1),
    Case("sys_exit.py", "SystemExit"),
    Case("os_exit.py", "exit status 0"),
    Case("segfault.py", "SIGSEGV"),
    Case("keyboard_interrupt.py", "KeyboardInterrupt"),
    Case("recursion_bomb.py", "RecursionError"),
    Case("memory_bomb.py", "memory limit"),
    Case("fork_bomb.py", "0 processes started"),
    Case("fake_output.py", "", on_solution=True, honest=("",)),
    Case("print_flood.py", "", on_solution=True, honest=("",)),
    Case("patches_comparisons.py", "is wrong at", honest=("test_inputs_not_modified",)),
    Case("tensor_subclass.py", "subclass of torch.Tensor"),
    Case("meta_tensor.py", "a tensor on the meta device"),
    Case("equal_to_everything.py", "expected a tensor", honest=("test_inputs_not_modified",)),
    Case("right_shape_zeros.py", "is wrong at", honest=("test_inputs_not_modified",)),
    Case("stub_needs_torch.py", "not implemented yet", beside=SHADOWED),
    Case("import_answer_key.py", "forbidden: the answer key (lumen_ref, solutions) (your code imported lumen_ref"),
    Case("import_solutions.py", "forbidden: the answer key (lumen_ref, solutions) (your code imported solutions"),
    Case("answer_key_by_path.py", ("forbidden: the answer key", "PermissionError", "FileNotFoundError")),
    Case("sys_modules_tricks.py", "is wrong at", honest=("test_inputs_not_modified",)),
    *(Case(f"softmax_{variant}.py", "forbidden: torch's softmax", exercise="exercise5", on_solution=True)
      for variant in ("method", "alias", "log", "special", "module", "caught", "dispatcher", "thread")),
    Case("guard_tampering.py", "forbidden: torch's softmax", exercise="exercise5", on_solution=True),
    Case("mentions_only.py", "", exercise="exercise5", on_solution=True, honest=("",), timed=True),
    Case("fused_attention.py", "forbidden: torch's fused attention", exercise="exercise6", on_solution=True,
         honest=SPLIT_MERGE),
    Case("multihead_module.py", "forbidden: nn.MultiheadAttention", exercise="exercise6", on_solution=True,
         honest=SPLIT_MERGE),
    # the same shortcuts at the dispatcher: other overloads, private operators and modules
    *(Case(f"softmax_{variant}.py", "forbidden: torch's softmax", exercise="exercise5", on_solution=True)
      for variant in ("out_overload", "masked", "refs")),
    Case("fused_flash_cpu.py", "forbidden: torch's fused attention", exercise="exercise6", on_solution=True,
         honest=SPLIT_MERGE),
    # odd values: a failed test about the student's code, never "grader error"
    Case("odd_state_dict.py", "state_dict() returned a list", exercise="exercise6", on_solution=True,
         honest=SPLIT_MERGE),
    Case("class_is_a_number.py", "must stay a class", exercise="exercise6", on_solution=True, honest=SPLIT_MERGE),
    Case("class_is_a_tensor.py", "must stay a class", exercise="exercise7", on_solution=True,
         honest=("test_repeat_kv",)),
    Case("huge_int.py", "far beyond any count", exercise="exercise8", on_solution=True,
         honest=("test_kvcache", "test_cached")),
    Case("fused_flex_attention.py", "forbidden: torch's fused attention", exercise="exercise7", on_solution=True,
         honest=("test_repeat_kv", "test_constructor", "test_gqa_parameters")),
]


def submission(case, folder):
    """Write the case's submission into `folder`; returns the folder."""
    exercise = catalog.find(case.exercise)
    folder.mkdir(parents=True, exist_ok=True)
    source = (HOSTILE / case.file).read_text().replace("@KIT@", str(ROOT))
    if case.on_solution:
        source = (SOLUTIONS / exercise.file_name).read_text() + "\n\n" + source
    (folder / exercise.file_name).write_text(source)
    for name, hostile in case.beside.items():
        (folder / name).write_text((HOSTILE / hostile).read_text())
    return folder


def grade_cli(case, folder, *extra):
    """The case graded by `lumen-grade` in this process; returns (exit code, what it printed). Scored
    even where it reaches into its process (--score-reaching): what the layers behind that hold let
    through is what these cases check (tests/sandbox/test_reach.py checks the hold)."""
    args = [case.exercise, "--submission", str(folder), "--device", "cpu", "--format", "json",
            "--timeout", str(case.timeout), "--memory-limit", MEMORY_LIMIT, "--score-reaching", *extra]
    args += [] if case.timed else ["--no-perf"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.output


def graded(case, folder):
    """(exit code, the exercise's JSON report) of the case graded by the CLI."""
    exit_code, output = grade_cli(case, folder)
    return exit_code, json.loads(output)["exercises"][0]


def assert_honest(case, exit_code, exercise):
    """The verdict gives the case no more than it earns, and says why it fails."""
    tests = [test for test in exercise["tests"] if test["status"] != "skipped"]
    assert tests, exercise
    earned = [test["name"] for test in tests if test["status"] == "passed"]
    allowed = [name for name in earned if name.startswith(case.honest)] if case.honest else []
    assert earned == allowed, f"{case.file} passed {sorted(set(earned) - set(allowed))}"
    if case.honest == ("",):
        assert exercise["score"] == exercise["max_score"] > 0 and exit_code == 0, exercise
        assert not case.timed or exercise["tier"]["ratio"], exercise["tier"]  # timed beside the reference
    else:
        assert exercise["score"] < exercise["max_score"] and exit_code == 1
        messages = [test["message"] for test in tests if test["status"] != "passed"] + [exercise["error"] or ""]
        says = case.says if isinstance(case.says, tuple) else (case.says,)
        assert any(said in message for message in messages for said in says), messages
    for text in [test["message"] for test in tests] + [exercise["output"]]:
        assert text == printable(text, len(text), newlines=True), "a control character reached the report"
        assert "grader error" not in text, text


@pytest.mark.privileges
@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_hostile_submission_scores_only_what_it_earns(case, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the fork bomb's children would leave files
    monkeypatch.chdir(tmp_path)
    exit_code, exercise = graded(case, submission(case, tmp_path / "submission"))
    assert_honest(case, exit_code, exercise)
    left = sorted(path.name for path in tmp_path.rglob("*") if "-was-" in path.name or "hostile-child" in path.name)
    assert not left, f"code beside the submission ran, or a forked child lived: {left}"


def test_the_corpus_has_every_kind_of_attack_the_issue_lists():
    assert len(CASES) >= 20
    assert all((HOSTILE / case.file).is_file() for case in CASES)


@pytest.mark.privileges
def test_a_fake_report_at_the_output_path_is_replaced_by_the_judges(tmp_path, monkeypatch):
    """A full-marks report left where --output points (and rewritten by the submission at import and
    at every call, where it can reach it) is replaced by the judge's own report."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "report.json").write_text(json.dumps({"score": 19, "max_score": 19, "exercises": []}))
    case = Case("writes_report.py", "is wrong at")
    grade_cli(case, submission(case, tmp_path / "submission"), "--output", "report.json")
    data = json.loads((tmp_path / "report.json").read_text())
    assert data["score"] < data["max_score"] and len(data["exercises"][0]["tests"]) > 1


@pytest.mark.parametrize("make", [lambda path: path.symlink_to(path.parent / "elsewhere.json"),
                                  lambda path: os.mkfifo(path), lambda path: path.mkdir()],
                         ids=["link", "named-pipe", "folder"])
def test_an_output_path_that_is_not_a_regular_file_is_refused(tmp_path, make):
    (tmp_path / "elsewhere.json").write_text("{}")
    make(tmp_path / "report.json")
    case = Case("writes_report.py", "is wrong at")
    args = [case.exercise, "--submission", str(submission(case, tmp_path / "submission")), "--no-perf",
            "--output", str(tmp_path / "report.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "--output" in result.output and "Traceback" not in result.output
    assert (tmp_path / "elsewhere.json").read_text() == "{}"


@pytest.mark.privileges
def test_attacks_on_the_judge_are_all_refused(tmp_path):
    case = Case("attacks_the_judge.py", "is wrong at", honest=("test_inputs_not_modified",))
    exit_code, exercise = graded(case, submission(case, tmp_path / "submission"))
    assert_honest(case, exit_code, exercise)
    printed = [line for line in exercise["output"].splitlines() if ": " in line]
    attempts = printed[:6]  # the first child's import (each child the wire's refusals restart imports it again)
    assert len(set(attempts)) == 6 and not attempts[0].startswith("["), exercise["output"]
    refused = [line for line in attempts if not line.endswith(": done")]
    if sys.platform == "linux":
        assert refused == attempts
    messages = {test["message"] for test in exercise["tests"] if test["name"].startswith("test_scaled_scores")}
    assert any("not a reply" in message for message in messages), messages


# -- through a real process -----------------------------------------------------------------------


# The lumen-grade script installed beside the Python running these tests (its environment's, not one
# that comes first on PATH: the root pass of .ci/run runs the venv's Python without activating it).
LUMEN_GRADE = str(Path(sys.executable).with_name("lumen-grade"))


def lumen_grade(folder, *args, python_m=False):
    """Run the grader as its own process from inside `folder`; returns (exit code, report, stderr)."""
    command = [sys.executable, "-m", "grader"] if python_m else [LUMEN_GRADE]
    env = {**os.environ, "TMPDIR": str(folder)}
    done = subprocess.run([*command, "exercise3", "--submission", ".", "--device", "cpu", "--format", "json",
                           "--memory-limit", MEMORY_LIMIT, "--timeout", "30", "--no-perf", "--score-reaching", *args],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, json.loads(done.stdout), done.stderr


@pytest.mark.parametrize("hostile, says", [("segfault.py", "SIGSEGV"), ("memory_bomb.py", "memory limit"),
                                           ("fork_bomb.py", "0 processes started")])
@pytest.mark.privileges
def test_the_grader_process_survives(hostile, says, tmp_path):
    """`python -m grader` run from inside the submission folder, beside a torch.py, numpy.py,
    sitecustomize.py, usercustomize.py and conftest.py: none of them is loaded, and a crash, a
    memory bomb or a fork bomb costs the tests it hits and nothing else."""
    case = Case(hostile, says, beside=SHADOWED)
    folder = submission(case, tmp_path)
    exit_code, report, _ = lumen_grade(folder, python_m=hostile == "segfault.py")
    assert exit_code == 1
    assert_honest(case, exit_code, report["exercises"][0])
    left = sorted(path.name for path in folder.iterdir() if "-was-" in path.name or "hostile-child" in path.name)
    assert not left, f"code beside the submission ran, or a forked child lived: {left}"


@pytest.mark.privileges
def test_a_spawned_child_is_confined_too(tmp_path, monkeypatch):
    """Where there is no zygote (macOS, Windows) every child is a fresh `python -I`: run from the
    submission folder, it imports none of the files beside it, and the rules hold there too."""
    case = Case("softmax_method.py", "forbidden: torch's softmax", exercise="exercise5", on_solution=True,
                beside=SHADOWED)
    folder = submission(case, tmp_path)
    monkeypatch.chdir(folder)
    options = Settings(submission=folder, device="cpu", time_limit=60, memory_limit=256 << 20, perf=False)
    verdict = runner.grade([catalog.find(case.exercise)], options, launcher=Launcher())  # never started: spawns
    assert_honest(case, 1, verdict.exercises[0].to_dict())
    assert not [path.name for path in folder.iterdir() if "-was-" in path.name]


# -- the rules --------------------------------------------------------------------------------------


def test_the_rules_cover_what_the_issue_forbids():
    by_exercise = {exercise.number: {rule.id for rule in rules.rules_for(exercise.forbidden)}
                   for exercise in catalog.EXERCISES}
    steps = (1, 2, 3, 4, 6, 7, 8)
    assert "softmax" in by_exercise[5] and all("softmax" not in by_exercise[n] for n in steps)
    assert all({"fused-attention", "multihead-attention"} <= by_exercise[n] for n in (5, 6, 7, 8))
    assert all({"fused-attention", "multihead-attention"}.isdisjoint(by_exercise[n]) for n in (1, 2, 3, 4))
    assert all({"answer-key", "grader"} <= forbidden for forbidden in by_exercise.values())


def test_every_declared_rule_exists():
    for exercise in catalog.EXERCISES:
        rules.rules_for(exercise.forbidden)  # raises KeyError naming an unknown rule
    with pytest.raises(KeyError, match="no rule 'softmaxx'"):
        rules.rules_for(("softmaxx",))


def test_the_grader_s_own_rules_apply_to_every_exercise():
    modules = {module for rule in rules.RULES for module in rule.modules}
    assert {"lumen_ref", "grader", "solutions"} <= modules


@pytest.mark.privileges
def test_the_answer_key_and_hidden_tests_are_secret_in_the_child():
    secret = rules._SECRET
    assert os.path.realpath(ROOT / "lumen_ref") in secret and os.path.realpath(ROOT / "solutions") in secret
    assert os.path.realpath(ROOT / "grader" / "oracle.py") in secret


def test_malformed_replies_are_wire_errors_not_crashes():
    """Whatever bytes the child sends, decoding gives plain values or a WireError."""
    header = json.dumps({"tensor": 0, "dtype": "float32", "shape": [2], "device": "meta"}).encode()
    nested = b"[" * 100_000 + b"]" * 100_000
    for frames in ([header, b"\0" * 8], [nested], [b'{"tensor": 0, "dtype": "float32", "shape": [3], '
                                                   b'"device": "cpu"}', b"\0" * 4], [b'{"list": 5}']):
        with pytest.raises(wire.WireError):
            wire.decode(frames)
    handle = wire.decode([json.dumps({"handle": 1, "kind": "\x1b[2Kpassed"}).encode()])
    assert handle.kind == "object"
    with pytest.raises(wire.WireError, match="a tensor of 17 dimensions, where the grader takes 16 at most"):
        wire.decode(wire.encode(torch.zeros([1] * 17)))  # the reason a student can act on (round 23)


def test_a_reply_cannot_make_the_judge_build_more_than_it_sent():
    """One buffer named by many tensors (a 1 MiB reply that would expand to 1 GiB), a buffer whose
    size does not match its shape, too many values, too many dimensions: all refused."""
    tensor = {"tensor": 0, "dtype": "float32", "shape": [1 << 18], "device": "cpu"}
    buffer = bytes(1 << 20)
    refused = [
        [json.dumps({"list": [tensor] * 1000}).encode(), buffer],
        [json.dumps({**tensor, "shape": [1 << 20]}).encode(), buffer],
        [json.dumps({**tensor, "shape": [-1]}).encode(), buffer],
        [json.dumps({**tensor, "shape": [1] * 17 + [1 << 18]}).encode(), buffer],
        [json.dumps({"list": list(range(wire.MAX_VALUES + 1))}).encode()],
    ]
    for frames in refused:
        with pytest.raises(wire.WireError):
            wire.decode(frames)
    assert wire.decode([json.dumps({"list": [tensor]}).encode(), buffer])[0].shape == (1 << 18,)


def test_a_header_of_many_empty_values_is_refused_before_it_is_parsed(monkeypatch):
    """Round 9's a17: 16 MiB of `{}` made json.loads build 5.6 M dicts (+450 MiB in the judge)
    before the budget of values was checked; the header's commas and brackets are counted first."""
    wire.decode([json.dumps({"message": "a, b, c [d] {e}", "list": list(range(wire.MAX_VALUES - 10))}).encode()])
    parsed = []
    monkeypatch.setattr(wire.json, "loads", lambda text: parsed.append(text))
    with pytest.raises(wire.WireError, match="values in one reply"):
        wire.decode([b"[" + b",".join([b"{}"] * (wire.MAX_TOKENS // 2 + 1)) + b"]"])
    assert not parsed


@pytest.mark.parametrize("size, expected", [("512M", 512 << 20), ("1.5G", 3 << 29), ("4GiB", 4 << 30), ("64", 64 << 20)])
def test_memory_limit_takes_a_size(size, expected):
    assert MemorySize().convert(size, None, None) == expected


@pytest.mark.parametrize("size", ["lots", "0", "-1G", "4X"])
def test_a_memory_limit_that_is_not_a_size_is_a_usage_error(size):
    result = CliRunner().invoke(main, ["exercise3", "--memory-limit", size])
    assert result.exit_code == 2 and "is not a size" in unwrapped(result.output)


def test_a_notebook_built_to_exhaust_the_judge_is_a_clean_failure(tmp_path):
    """Nested 100 000 deep, or over the size limit: refused before json.loads with a message, never
    a grader error; 20 000 magic lines in one cell are read in one pass."""
    from grader.grading import submission

    deep = tmp_path / "exercise3_deep.ipynb"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(submission.SubmissionError, match="too deeply nested"):
        submission.read_notebook(deep)
    large = tmp_path / "exercise3_large.ipynb"
    large.write_bytes(b" " * (submission.MAX_NOTEBOOK_BYTES + 1))
    with pytest.raises(submission.SubmissionError, match="too large"):
        submission.read_notebook(large)
    source = "\n".join(["x = 1"] + ["%timeit x"] * 20_000)
    assert submission.python_source(source).count("\n") == 20_000
