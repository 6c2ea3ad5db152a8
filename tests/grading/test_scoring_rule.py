"""One scoring rule: an exercise's max_score is its full points whatever was handed in, and a file
that cannot be imported is reported once, at file level, with its tests not run."""

import json
import os
import xml.etree.ElementTree as ET

import nbformat
import pytest

from conftest import SOLUTIONS
from grader import catalog
from grader.reports import gradescope as gradescope_report, json_report, junit as junit_report, text as report
from grader.grading import runner
from grader.grading.plugin import GradingPlugin
from test_gradescope_bundle import as_notebook
from grader.grading.settings import Settings

ALL = list(catalog.EXERCISES)


def wrong_exercise_notebook():
    """A released-style notebook whose metadata says it belongs to exercise 3."""
    notebook = nbformat.reads(as_notebook((SOLUTIONS / "exercise3_scaling.py").read_text()), as_version=4)
    notebook.metadata["lumen"] = {"exercise": "exercise3"}
    return nbformat.writes(notebook)


BROKEN = {  # everything but exercise 1, which is correct, is missing or cannot be imported
    "exercise2_scoring.py": "import torch\n\ndef attention_scores(q, k):\n    return q @ k.mT\n\n"
                            "raise RuntimeError('left over')\n",
    "exercise3_scaling.ipynb": '{"cells": [',
    "exercise4_masking.py": "def causal_mask(L, device=None:\n    pass\n",
    "exercise5_softmax.ipynb": as_notebook("import torch\n\ndef softmax(x, dim=-1):\n    return x\n\nsoftmax(1 / 0)\n"),
    "exercise6_multihead.py": "while True:\n    pass\n",
    "exercise7_gqa.ipynb": wrong_exercise_notebook(),
    # exercise8: no file at all
}


@pytest.fixture(scope="module")
def verdicts(launcher, tmp_path_factory):
    """(the solutions' report, the broken submission's report), graded on the CPU."""
    folder = tmp_path_factory.mktemp("broken")
    (folder / "exercise1_projection.py").write_bytes((SOLUTIONS / "exercise1_projection.py").read_bytes())
    for name, text in BROKEN.items():
        (folder / name).write_text(text, encoding="utf-8")
    options = {"device": "cpu", "time_limit": 3.0, "perf": False}
    solved = runner.grade(ALL, Settings(submission=SOLUTIONS, **options), launcher=launcher)
    broken = runner.grade(ALL, Settings(submission=folder, **options), launcher=launcher)
    return solved, broken


def test_max_score_is_the_full_points_in_every_case(verdicts):
    solved, broken = verdicts
    full = {exercise.id: exercise.max_score for exercise in solved.exercises}
    assert all(points > 1 for points in full.values())
    assert {exercise.id: exercise.max_score for exercise in broken.exercises} == full
    assert broken.max_score == solved.max_score and broken.score == full["exercise1"]
    for exercise in broken.exercises[1:]:
        assert exercise.score == 0 and exercise.error, exercise.id
        assert {test.status for test in exercise.tests} <= {"not_run", "skipped"}, exercise.id


def test_every_format_carries_the_same_maximum(verdicts):
    solved, broken = verdicts
    full = {exercise.id: exercise.max_score for exercise in solved.exercises}
    data = json.loads(json_report.render(broken))
    assert data["max_score"] == sum(full.values())
    assert {exercise["id"]: exercise["max_score"] for exercise in data["exercises"]} == full
    gradescope = json.loads(gradescope_report.render(broken))
    by_exercise = {}
    for test in gradescope["tests"]:
        exercise_id = test["name"].split(":")[0]
        by_exercise[exercise_id] = by_exercise.get(exercise_id, 0) + test["max_score"]
    assert by_exercise == full and gradescope["extra_data"]["max_score"] == sum(full.values())
    junit = ET.fromstring(junit_report.render(broken).split("\n", 1)[1])
    maxima = {suite.get("name").split(":")[0]:
              float(suite.find("properties/property[@name='max_score']").get("value")) for suite in junit}
    assert maxima == full
    text = report.render_text(broken, width=400)
    lines = {line.split()[1]: line for line in text.splitlines() if line.startswith(("✓ exercise", "✗ exercise"))}
    assert set(lines) == set(full)
    for exercise_id, points in full.items():
        assert f"/{points:g}" in lines[exercise_id].split("  ")[2]
    assert f"Total: {full['exercise1']:g}/{sum(full.values()):g}" in text


def test_importing_another_exercise_s_file_says_each_file_is_graded_alone(grade):
    """Round 61's h07: exercise 3 importing the student's own exercise2_scoring.py got a bare
    ModuleNotFoundError; the files are graded one at a time, and the message says so."""
    result = grade(3, "from exercise2_scoring import attention_scores\n")
    assert result.error.endswith("importing it raised ModuleNotFoundError: No module named 'exercise2_scoring' (each "
                                 "exercise file is graded alone, without the others beside it: copy what you need "
                                 "from that exercise into this file)"), result.error
    assert "graded alone" not in grade(3, "import no_such_module\n").error


def test_an_import_failure_is_said_once_naming_the_line_or_cell(verdicts):
    _, broken = verdicts
    errors = {exercise.id: exercise.error for exercise in broken.exercises}
    assert errors["exercise2"] == "exercise2_scoring.py, line 6: importing it raised RuntimeError: left over"
    assert "exercise3_scaling.ipynb is not a readable notebook" in errors["exercise3"]
    assert errors["exercise4"].startswith("exercise4_masking.py: importing it raised SyntaxError")
    assert errors["exercise5"] == ("exercise5_softmax.ipynb, cell 2 (code cell 1), line 6: importing it raised "
                                   "ZeroDivisionError: division by zero")
    assert "did not finish within the exercise's time limit (3 s)" in errors["exercise6"]
    assert "is the notebook of exercise3, not exercise7" in errors["exercise7"]
    assert errors["exercise8"].startswith("no exercise8_kv_cache.py in")
    text = report.render_text(broken)
    assert text.count("left over") == 1 and "your code raised" not in text
    not_run = [test for test in broken.exercises[1].tests if test.status == "not_run"]
    assert len(not_run) > 5 and f"{len(not_run)} tests not run" in text


ONE_SUITE = """
import pytest

@pytest.mark.points(2)
@pytest.mark.parametrize("case", [1, 2])
def test_counted(case, device):
    assert False, "a test of an exercise whose file could not be graded ran"
"""
NOT_RUN = "not run: the file could not be graded (the reason is given once, for the exercise)"
SKIPPED = "cuda is not available or not selected (--device)"


@pytest.mark.parametrize("handed_in", ["nothing", "unimportable"])
def test_an_exercise_without_a_gradable_file_gets_a_row_per_test(handed_in, launcher, tmp_path):
    """Not found or failing to import: each test not run (skipped for a device not used), 0 of its points."""
    (tmp_path / "suites").mkdir()
    (tmp_path / "suites" / f"test_exercise8_rows_{handed_in}.py").write_text(ONE_SUITE)  # a module name per run
    (tmp_path / "work").mkdir()
    if handed_in == "unimportable":
        (tmp_path / "work" / "exercise8_kv_cache.py").write_text("raise RuntimeError('left over')\n")
    options = Settings(submission=tmp_path / "work", device="cpu", perf=False, suites=[tmp_path / "suites"],
                       builtin_suites=False)
    exercise = runner.grade([catalog.find("exercise8")], options, launcher=launcher).exercises[0]
    rows = sorted((test.name, test.status, test.max_score, test.message) for test in exercise.tests)
    assert rows == sorted((f"test_counted[{device}-{case}]", status, 2.0, message) for case in (1, 2)
                          for device, status, message in (("cpu", "not_run", NOT_RUN), ("cuda", "skipped", SKIPPED)))
    assert exercise.score == 0 and exercise.max_score == 4 and exercise.error


def test_the_tests_of_an_exercise_with_no_file_are_not_run(tmp_path):
    """Their rows are written at collection: pytest starts none of them (a batch's student who hands in
    one exercise would otherwise pay for running every other exercise's tests)."""
    (tmp_path / "test_exercise8_rows_unit.py").write_text(ONE_SUITE)
    plugin = GradingPlugin(files={}, errors={"exercise8": "no exercise8_kv_cache.py in work"}, launcher=None,
                           log_dir=str(tmp_path), devices=("cpu",), seed=0, time_limit=3.0, memory_limit=None)

    class Started:
        nodeids = []

        def pytest_runtest_logstart(self, nodeid):
            self.nodeids.append(nodeid)

    started = Started()
    pytest.main([str(tmp_path), "-p", "no:cacheprovider", "-p", "no:terminal", "--noconftest",
                 "-c", os.devnull, "--rootdir", str(tmp_path)], plugins=[plugin, started])
    assert started.nodeids == []
    outcome = plugin.outcome("exercise8")
    assert sorted(test.status for test in outcome.tests) == ["not_run", "not_run", "skipped", "skipped"]
