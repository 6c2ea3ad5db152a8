"""The machine formats: Gradescope's results.json and JUnit XML, checked against what their readers
expect (Gradescope's autograder specification; the JUnit fields GitHub and GitLab read), on reports
made by hand and on real grading runs; and the CI examples, whose commands are run as written."""

import json
import re
import shlex
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, SOLUTIONS
from grader import report
from grader.cli import main
from grader.results import ExerciseResult, GradeReport
from grader.results import TestResult as Check  # not a pytest class

# Gradescope's specification (gradescope-autograders.readthedocs.io/en/latest/specs/): every field
# it documents, with the JSON type each one takes.
NUMBER = (int, float)
SPEC_TOP = {"score": NUMBER, "execution_time": NUMBER, "output": str, "output_format": str,
            "test_output_format": str, "test_name_format": str, "visibility": str,
            "stdout_visibility": str, "extra_data": dict, "tests": list, "leaderboard": list}
SPEC_TEST = {"score": NUMBER, "max_score": NUMBER, "status": str, "name": str, "name_format": str,
             "number": str, "output": str, "output_format": str, "tags": list, "visibility": str,
             "extra_data": dict}
SPEC_VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
SPEC_FORMATS = {"text", "simple_format", "html", "md", "ansi"}
PROMISED_TEST_FIELDS = {"name", "score", "max_score", "status", "output", "visibility"}


def _typed(value, kind):
    return isinstance(value, kind) and not isinstance(value, bool)


def check_gradescope_results(data):
    """Fail unless `data` is a results.json Gradescope accepts, with the fields this kit promises."""
    assert set(data) <= set(SPEC_TOP), f"fields outside the specification: {set(data) - set(SPEC_TOP)}"
    for key, value in data.items():
        assert _typed(value, SPEC_TOP[key]), f"{key} = {value!r}"
    assert "score" in data and "tests" in data and "output" in data
    assert data.get("output_format", "text") in SPEC_FORMATS
    for test in data["tests"]:
        assert PROMISED_TEST_FIELDS <= set(test) <= set(SPEC_TEST), test
        for key, value in test.items():
            assert _typed(value, SPEC_TEST[key]), f"{test['name']}: {key} = {value!r}"
        assert test["status"] in ("passed", "failed")
        assert test["visibility"] in SPEC_VISIBILITIES
        assert 0 <= test["score"] <= test["max_score"]
    for entry in data.get("leaderboard", []):
        assert set(entry) <= {"name", "value", "order"} and _typed(entry["name"], str)
        assert _typed(entry["value"], (int, float, str)) and entry.get("order", "desc") in ("asc", "desc")


def fabricated_report(tier=None):
    """A report with every status, a hidden check, a diagnosis, and printing that XML cannot carry."""
    scaling = ExerciseResult("exercise3", "Scale by √d_k", "exercises/exercise3_scaling.py", tests=[
        Check("test_values[cpu]", "passed", 2.0, duration=0.25),
        Check("test_spread", "failed", 1.0, message="spread 8.00, expected about 1: divide by √d_k",
                   duration=0.5),
        Check("test_zero_and_huge[cpu]", "failed", 3.0, visibility="hidden", message="huge scores overflow"),
        Check("test_values[cuda]", "skipped", 2.0, message="cuda is not available"),
    ], tier=tier, diagnoses=[{"message": "you divided by d_k instead of √d_k"}],
        output="debug \x1b[31mred\x1b[0m \x00 done")
    softmax = ExerciseResult("exercise5", "Softmax", "exercises/exercise5_softmax.py", tests=[
        Check("test_softmax", "error", 1.0, message="your code raised ZeroDivisionError (line 3)"),
        Check("test_rows", "timeout", 1.0, message="the exercise's time limit (60 s) ran out"),
    ])
    return GradeReport([scaling, softmax], device="cpu", seed=7, wall_time=12.3456)


# -- Gradescope ----------------------------------------------------------------------------------

def test_gradescope_results_follow_the_specification():
    data = json.loads(report.render_gradescope(fabricated_report()))
    check_gradescope_results(data)
    assert data["score"] == 2.0 and data["execution_time"] == 12.35
    by_name = {test["name"]: test for test in data["tests"]}
    assert sorted(by_name) == ["exercise3: test_spread", "exercise3: test_values[cpu]",
                               "exercise3: test_zero_and_huge[cpu]", "exercise5: test_rows",
                               "exercise5: test_softmax"]  # the skipped CUDA check is not a test
    assert by_name["exercise3: test_values[cpu]"] == {
        "name": "exercise3: test_values[cpu]", "score": 2.0, "max_score": 2.0, "status": "passed",
        "output": "", "visibility": "visible"}
    spread = by_name["exercise3: test_spread"]
    assert (spread["status"], spread["score"], spread["max_score"]) == ("failed", 0.0, 1.0)
    assert spread["output"] == "spread 8.00, expected about 1: divide by √d_k"  # the teaching message
    assert by_name["exercise3: test_zero_and_huge[cpu]"]["visibility"] == "after_published"
    assert by_name["exercise5: test_softmax"]["status"] == "failed"  # an error is a failed check
    assert by_name["exercise5: test_rows"]["status"] == "failed"  # and so is a timeout
    assert "1 check(s) skipped and not counted: cuda is not available" in data["output"]
    assert "you divided by d_k instead of √d_k" in data["output"]
    assert "leaderboard" not in data  # no tier, no leaderboard


@pytest.mark.parametrize("visibility", ["hidden", "after_due_date", "visible"])
def test_hidden_checks_take_the_configured_visibility(visibility):
    data = json.loads(report.render_gradescope(fabricated_report(), hidden_visibility=visibility))
    check_gradescope_results(data)
    visibilities = {test["name"]: test["visibility"] for test in data["tests"]}
    assert visibilities.pop("exercise3: test_zero_and_huge[cpu]") == visibility
    assert set(visibilities.values()) == {"visible"}
    summary = data["output"].splitlines()[1]
    if visibility == "visible":  # the summary counts only the checks a student may see now
        assert summary == "exercise3 (Scale by √d_k): 1 of 3 checks passed"
    else:
        assert summary.startswith("exercise3 (Scale by √d_k): 1 of 2 checks passed; 1 more ")


def test_a_measured_tier_becomes_leaderboard_entries():
    tier = {"id": "on-par", "name": "on par with the reference", "ratio": 1.07, "device": "cpu",
            "message": "on par with the reference: 1.07× the reference's time"}
    data = json.loads(report.render_gradescope(fabricated_report(tier=tier)))
    check_gradescope_results(data)
    assert data["leaderboard"] == [
        {"name": "exercise3 tier", "value": "on par with the reference"},
        {"name": "exercise3 time vs reference", "value": 1.07, "order": "asc"},
    ]
    assert "    performance: on par with the reference: 1.07× the reference's time" in data["output"]
    not_timed = {"id": "not-timed", "name": "not timed", "ratio": None, "device": "cpu", "message": "not timed"}
    assert "leaderboard" not in json.loads(report.render_gradescope(fabricated_report(tier=not_timed)))


# -- JUnit -----------------------------------------------------------------------------------------

def parse_junit(text):
    """Parse JUnit XML and check the fields GitHub's and GitLab's readers take from it."""
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    for element in [root, *root.iter("testsuite")]:
        assert {"name", "tests", "failures", "errors", "skipped", "time"} <= set(element.attrib)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        for kind, attribute in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attribute)) == sum(case.find(kind) is not None for case in cases)
        for case in cases:
            assert case.get("classname") and case.get("name") and float(case.get("time")) >= 0
            outcomes = [child for child in case if child.tag in ("failure", "error", "skipped")]
            assert len(outcomes) <= 1 and all("message" in child.attrib for child in outcomes)
    for attribute in ("tests", "failures", "errors", "skipped"):
        assert int(root.get(attribute)) == sum(int(suite.get(attribute)) for suite in root.iter("testsuite"))
    return root


def test_junit_has_a_suite_per_exercise_and_an_outcome_per_check():
    root = parse_junit(report.render_junit(fabricated_report()))
    assert [suite.get("name") for suite in root] == ["exercise3: Scale by √d_k", "exercise5: Softmax"]
    scaling, softmax = root
    assert (scaling.get("tests"), scaling.get("failures"), scaling.get("errors"), scaling.get("skipped")) == \
        ("4", "2", "0", "1")
    assert float(scaling.get("time")) == pytest.approx(0.75)
    cases = {case.get("name"): case for case in scaling.iter("testcase")}
    assert cases["test_values[cpu]"].get("classname") == "exercise3"
    assert float(cases["test_values[cpu]"].get("time")) == pytest.approx(0.25)
    assert list(cases["test_values[cpu]"]) == []  # passed: no child
    failure = cases["test_spread"].find("failure")
    assert failure.get("message") == "spread 8.00, expected about 1: divide by √d_k"
    assert "0/1 points" in failure.text
    assert cases["test_values[cuda]"].find("skipped").get("message") == "cuda is not available"
    errors = {case.get("name"): case.find("error") for case in softmax.iter("testcase")}
    assert errors["test_softmax"].get("type") == "error" and "ZeroDivisionError" in errors["test_softmax"].get("message")
    assert errors["test_rows"].get("type") == "timeout"
    printed = scaling.find("system-out").text
    assert "you divided by d_k instead of √d_k" in printed
    assert "debug \ufffd[31mred\ufffd[0m \ufffd done" in printed  # control characters made safe
    properties = {p.get("name"): p.get("value") for p in scaling.find("properties")}
    assert properties["score"] == "2" and properties["max_score"] == "6" and "tier" not in properties


# -- real runs, through the command line ----------------------------------------------------------

WRONG_SCALING = (SOLUTIONS / "exercise3_scaling.py").read_text().replace("math.sqrt(d_k)", "d_k")


def test_real_runs_agree_across_json_gradescope_and_junit(tmp_path):
    (tmp_path / "exercise3_scaling.py").write_text(WRONG_SCALING)
    outputs = {}
    for fmt in ("json", "gradescope", "junit"):
        outputs[fmt] = tmp_path / f"report.{fmt}"
        result = CliRunner().invoke(main, ["exercise3", "--submission", str(tmp_path), "--device", "cpu",
                                           "--format", fmt, "--output", str(outputs[fmt])])
        assert result.exit_code == 1, result.output
    (exercise,) = json.loads(outputs["json"].read_text())["exercises"]
    failed = {t["name"]: t["message"] for t in exercise["tests"] if t["status"] not in ("passed", "skipped")}
    assert failed, "dividing by d_k must fail some check"

    gradescope = json.loads(outputs["gradescope"].read_text())
    check_gradescope_results(gradescope)
    assert gradescope["score"] == exercise["score"] < exercise["max_score"]
    assert gradescope["execution_time"] > 0
    assert {t["name"].removeprefix("exercise3: "): t["output"] for t in gradescope["tests"]
            if t["status"] == "failed"} == failed

    (suite,) = parse_junit(outputs["junit"].read_text())
    assert {case.get("name"): case.find("failure").get("message") for case in suite.iter("testcase")
            if case.find("failure") is not None} == failed
    assert sum(float(case.get("time")) for case in suite.iter("testcase")) > 0


def test_gradescope_to_stdout_with_a_visibility_and_bad_values_are_usage_errors():
    result = CliRunner().invoke(main, ["exercise3", "--submission", str(SOLUTIONS), "--device", "cpu",
                                       "--format", "gradescope", "--hidden-visibility", "hidden", "--no-perf"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    check_gradescope_results(data)
    assert {test["visibility"] for test in data["tests"]} == {"visible", "hidden"}
    assert all(test["status"] == "passed" for test in data["tests"])
    assert CliRunner().invoke(main, ["3", "--format", "junit", "--hidden-visibility", "soon"]).exit_code == 2
    assert CliRunner().invoke(main, ["3", "--format", "tap"]).exit_code == 2


# -- the CI examples -------------------------------------------------------------------------------

EXAMPLES = [ROOT / "examples" / "github-actions-grade.yml", ROOT / "examples" / "gitlab-ci.yml"]


def example_commands(path):
    """The `lumen-grade ...` command lines of a CI file, as its shell would split them."""
    lines = (re.sub(r"^\s*(- )?", "", line) for line in path.read_text().splitlines())
    return [shlex.split(line) for line in lines if line.startswith("lumen-grade ")]


def test_the_ci_examples_grade_a_student_repo_into_junit(tmp_path, monkeypatch):
    commands = {tuple(command) for path in EXAMPLES for command in example_commands(path)}
    assert len(commands) == 1, "both examples run the same grading command"
    (command,) = commands
    assert "junit" in command and "--output" in command
    report_path = command[command.index("--output") + 1]
    for path in EXAMPLES:  # the file the publishing step reads is the one the command writes
        assert re.findall(r"(?:report_paths|junit): (\S+)", path.read_text()) == [report_path]
    student_repo = tmp_path / "repo"
    (student_repo / "exercises").mkdir(parents=True)  # a student partway through: exercise 3 done
    shutil.copy(SOLUTIONS / "exercise3_scaling.py", student_repo / "exercises")
    monkeypatch.chdir(student_repo)
    result = CliRunner().invoke(main, list(command[1:]))
    assert result.exit_code == 1, result.output  # the CI step fails until every exercise passes
    root = parse_junit(Path(report_path).read_text())
    suites = {suite.get("name").split(":")[0]: suite for suite in root}
    assert len(suites) == 8
    assert suites["exercise3"].get("failures") == suites["exercise3"].get("errors") == "0"
    assert int(suites["exercise3"].get("tests")) > 0
    missing = suites["exercise1"].find("testcase/error")
    assert missing.get("type") == "not_run" and missing.get("message").startswith("not run")
    assert "not graded: no exercise1_projection.py" in suites["exercise1"].find("system-out").text
