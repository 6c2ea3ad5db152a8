"""The machine formats: Gradescope's results.json and JUnit XML, checked against what their readers
expect (Gradescope's autograder specification; the JUnit fields GitHub and GitLab read), on reports
made by hand and on real grading runs; and the CI examples, whose commands are run as written."""

import json
import os
import re
import shlex
import shutil
import threading
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, SOLUTIONS
from grader import catalog
from grader.reports import gradescope, junit
from grader.cli.main import main
from grader.grading.results import ExerciseResult, GradeReport
from grader.grading.results import TestResult as Check  # not a pytest class

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
    if data["tests"]:  # a test's output holds the student's own text (round 31's a04): never read as markup
        assert data.get("test_output_format") == "text"
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
                   duration=0.5, details={"diagnosis": "divisor:d_k"}),
        Check("test_zero_and_huge[cpu]", "failed", 3.0, visibility="hidden", message="huge scores overflow"),
        Check("test_values[cuda]", "skipped", 2.0, message="cuda is not available"),
    ], tier=tier, diagnoses=[{"id": "divisor:d_k", "message": "you divided by d_k instead of √d_k"}],
        output="debug \x1b[31mred\x1b[0m \x00 done")
    softmax = ExerciseResult("exercise5", "Softmax", "exercises/exercise5_softmax.py", tests=[
        Check("test_softmax", "error", 1.0, message="your code raised ZeroDivisionError (line 3)"),
        Check("test_rows", "timeout", 1.0, message="the exercise's time limit (60 s) ran out"),
    ])
    return GradeReport([scaling, softmax], device="cpu", seed=7, wall_time=12.3456)


# -- Gradescope ----------------------------------------------------------------------------------

def test_gradescope_results_follow_the_specification():
    data = json.loads(gradescope.render(fabricated_report()))
    check_gradescope_results(data)
    assert data["score"] == 2.0 and data["execution_time"] == 12.35
    by_name = {test["name"]: test for test in data["tests"]}
    assert sorted(by_name) == ["exercise3: test_spread", "exercise3: test_values[cpu]",
                               "exercise3: test_zero_and_huge[cpu]", "exercise5: test_rows",
                               "exercise5: test_softmax"]  # the skipped CUDA check is not a test
    assert by_name["exercise3: test_values[cpu]"] == {
        "name": "exercise3: test_values[cpu]", "number": "3.1", "score": 2.0, "max_score": 2.0, "status": "passed",
        "output": "", "tags": ["exercise3"], "visibility": "visible"}
    assert [test["number"] for test in data["tests"]] == ["3.1", "3.2", "3.3", "5.1", "5.2"]
    spread = by_name["exercise3: test_spread"]
    assert (spread["status"], spread["score"], spread["max_score"]) == ("failed", 0.0, 1.0)
    assert spread["output"] == ("spread 8.00, expected about 1: divide by √d_k"  # the teaching message
                                "\n➜ you divided by d_k instead of √d_k")  # and the mistake it shows, in words
    assert spread["tags"] == ["exercise3"] and spread["extra_data"] == {"diagnosis": "divisor:d_k"}  # ids: machines
    assert by_name["exercise3: test_zero_and_huge[cpu]"]["visibility"] == "after_published"
    assert by_name["exercise5: test_softmax"]["status"] == "failed"  # an error is a failed check
    assert by_name["exercise5: test_rows"]["status"] == "failed"  # and so is a timeout
    assert "1 check(s) skipped and not counted: cuda is not available" in data["output"]
    assert "you divided by d_k instead of √d_k" in data["output"]
    assert "leaderboard" not in data  # no tier, no leaderboard


@pytest.mark.parametrize("visibility", ["hidden", "after_due_date", "visible"])
def test_hidden_checks_take_the_configured_visibility(visibility):
    data = json.loads(gradescope.render(fabricated_report(), hidden_visibility=visibility))
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
    data = json.loads(gradescope.render(fabricated_report(tier=tier)))
    check_gradescope_results(data)
    assert data["leaderboard"] == [
        {"name": "exercise3 tier", "value": "on par with the reference"},
        {"name": "exercise3 time vs reference", "value": 1.07, "order": "asc"},
    ]
    assert "    performance: on par with the reference: 1.07× the reference's time" in data["output"]
    not_timed = {"id": "not-timed", "name": "not timed", "ratio": None, "device": "cpu", "message": "not timed"}
    assert "leaderboard" not in json.loads(gradescope.render(fabricated_report(tier=not_timed)))


# -- JUnit -----------------------------------------------------------------------------------------

# Jenkins' junit-10.xsd (github.com/jenkinsci/xunit-plugin, src/main/resources/org/jenkinsci/
# plugins/xunit/types/model/xsd/junit-10.xsd; pytest checks its xunit2 output against the same file),
# written out as rules: per element, its attributes (required ones marked), the type of each, the
# elements it may hold, and whether it holds text. Every attribute type there is xs:string except
# `time` on <testsuite> and <testsuites>, SUREFIRE_TIME.
SUREFIRE_TIME = re.compile(r"(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?")
RERUN = {"attributes": {"message": False, "type": True},
         "children": {"stackTrace", "system-out", "system-err"}, "text": True}
OUTCOME = {"attributes": {"type": False, "message": False}, "children": set(), "text": True}
JUNIT_10 = {
    "testsuites": {"attributes": {"name": False, "time": False, "tests": False, "failures": False,
                                  "errors": False},
                   "children": {"testsuite"}, "text": False},
    "testsuite": {"attributes": {"name": True, "tests": True, "failures": True, "errors": True, "group": False,
                                 "time": False, "skipped": False, "timestamp": False, "hostname": False,
                                 "id": False, "package": False, "file": False, "log": False, "url": False},
                  "children": {"testsuite", "properties", "testcase", "system-out", "system-err"}, "text": False},
    "properties": {"attributes": {}, "children": {"property"}, "text": False},
    "property": {"attributes": {"name": True, "value": True}, "children": set(), "text": False},
    "testcase": {"attributes": {"name": True, "time": False, "classname": False, "group": False},
                 "children": {"skipped", "error", "failure", "rerunFailure", "rerunError", "flakyFailure",
                              "flakyError", "system-out", "system-err"}, "text": False},
    "failure": OUTCOME, "error": OUTCOME, "skipped": OUTCOME,
    "rerunFailure": RERUN, "rerunError": RERUN, "flakyFailure": RERUN, "flakyError": RERUN,
    "system-out": {"attributes": {}, "children": set(), "text": True},
    "system-err": {"attributes": {}, "children": set(), "text": True},
    "stackTrace": {"attributes": {}, "children": set(), "text": True},
}


def check_junit_10(element, parent=None):
    """Fail unless `element` (and all below it) is valid against junit-10.xsd's rules above."""
    if parent is None:
        assert element.tag == "testsuites", "the document element is <testsuites>"
    rule = JUNIT_10.get(element.tag)
    assert rule is not None, f"<{element.tag}> is not an element of junit-10.xsd"
    if parent is not None:
        assert element.tag in JUNIT_10[parent.tag]["children"], f"<{element.tag}> inside <{parent.tag}>"
    unknown = set(element.attrib) - set(rule["attributes"])
    assert not unknown, f"<{element.tag}> has attributes junit-10.xsd does not allow: {unknown}"
    missing = {name for name, required in rule["attributes"].items() if required} - set(element.attrib)
    assert not missing, f"<{element.tag}> lacks required attributes {missing}"
    if element.tag in ("testsuite", "testsuites") and "time" in element.attrib:
        assert SUREFIRE_TIME.fullmatch(element.get("time")), f"time={element.get('time')!r} is not SUREFIRE_TIME"
    if not rule["text"]:
        texts = [element.text, *(child.tail for child in element)]
        assert all(not (text or "").strip() for text in texts), f"<{element.tag}> holds text"
    for child in element:
        check_junit_10(child, element)


def test_the_junit_10_rules_reject_what_the_schema_rejects():
    """The checker itself: each thing junit-10.xsd forbids, and that an older report had, fails."""
    bad = [
        '<testsuites skipped="1"/>',  # no `skipped` on <testsuites>
        '<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
        '<testcase name="t" file="x.py"/></testsuite></testsuites>',  # no `file` on <testcase>
        '<testsuites><testsuite name="a" tests="1" failures="0" errors="0">'
        '<testcase name="t" line="3"/></testsuite></testsuites>',  # nor `line`
        '<testsuites><testsuite name="a" tests="1"/></testsuites>',  # failures, errors required
        '<testsuites><testsuite name="a" tests="0" failures="0" errors="0" time="1e-3"/></testsuites>',
        '<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="t">'
        '<property name="a" value="b"/></testcase></testsuite></testsuites>',
    ]
    for text in bad:
        with pytest.raises(AssertionError):
            check_junit_10(ET.fromstring(text))
    check_junit_10(ET.fromstring('<testsuites name="x" time="12.500"><testsuite name="a" tests="1" failures="1" '
                                 'errors="0" file="a.py" skipped="0"><properties><property name="p" value="v"/>'
                                 '</properties><testcase name="t" classname="a" time="0.1"><failure message="m" '
                                 'type="failed">why</failure></testcase></testsuite></testsuites>'))


def parse_junit(text):
    """Parse JUnit XML, check it against junit-10.xsd, and check the counts readers total."""
    root = ET.fromstring(text.encode("utf-8"))
    check_junit_10(root)
    for element in [root, *root.iter("testsuite")]:
        assert {"name", "tests", "failures", "errors", "time"} <= set(element.attrib)
    for suite in root.iter("testsuite"):
        cases = suite.findall("testcase")
        assert int(suite.get("tests")) == len(cases)
        for kind, attribute in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
            assert int(suite.get(attribute)) == sum(case.find(kind) is not None for case in cases)
        for case in cases:
            assert case.get("classname") and case.get("name") and float(case.get("time")) >= 0
            outcomes = [child for child in case if child.tag in ("failure", "error", "skipped")]
            assert len(outcomes) <= 1 and all("message" in child.attrib for child in outcomes)
    for attribute in ("tests", "failures", "errors"):
        assert int(root.get(attribute)) == sum(int(suite.get(attribute)) for suite in root.iter("testsuite"))
    return root


def test_junit_has_a_suite_per_exercise_and_an_outcome_per_check():
    root = parse_junit(junit.render(fabricated_report()))
    assert [suite.get("name") for suite in root] == ["exercise3: Scale by √d_k", "exercise5: Softmax"]
    scaling, softmax = root
    # the CUDA check of a CPU run is left out, and counted once in the properties
    assert (scaling.get("tests"), scaling.get("failures"), scaling.get("errors"), scaling.get("skipped")) == \
        ("3", "2", "0", "0")
    assert float(scaling.get("time")) == pytest.approx(0.75)
    assert scaling.get("file") == "exercises/exercise3_scaling.py"
    cases = {case.get("name"): case for case in scaling.iter("testcase")}
    assert "test_values[cuda]" not in cases
    assert cases["test_values[cpu]"].get("classname") == "exercises.exercise3_scaling"  # xunit2: dotted path
    assert float(cases["test_values[cpu]"].get("time")) == pytest.approx(0.25)
    assert list(cases["test_values[cpu]"]) == []  # passed: no child
    failure = cases["test_spread"].find("failure")
    assert failure.get("message") == "spread 8.00, expected about 1: divide by √d_k"
    assert "0/1 points" in failure.text
    errors = {case.get("name"): case.find("error") for case in softmax.iter("testcase")}
    assert errors["test_softmax"].get("type") == "error" and "ZeroDivisionError" in errors["test_softmax"].get("message")
    assert errors["test_rows"].get("type") == "timeout"
    printed = scaling.find("system-out").text
    assert "you divided by d_k instead of √d_k" in printed
    assert "debug \ufffd[31mred\ufffd[0m \ufffd done" in printed  # control characters made safe
    properties = {p.get("name"): p.get("value") for p in scaling.find("properties")}
    assert properties["score"] == "2" and properties["max_score"] == "6" and "tier" not in properties
    assert properties["not_run"] == "1 check(s) for a device this run did not use (cpu only)"
    assert root.get("tests") == "5" and "skipped" not in root.attrib


def test_junit_keeps_a_skip_of_a_device_the_run_used():
    verdict = fabricated_report()
    verdict.device = "cpu+cuda"
    (scaling, _) = parse_junit(junit.render(verdict))
    cases = {case.get("name"): case for case in scaling.iter("testcase")}
    assert cases["test_values[cuda]"].find("skipped").get("message") == "cuda is not available"
    assert scaling.get("skipped") == "1" and scaling.find("properties/property[@name='not_run']") is None


def test_junit_points_at_the_line_of_the_students_function(tmp_path, monkeypatch):
    """The failure text ends `at FILE:LINE (function)`, which GitHub's reporter turns into an
    annotation on that line: the frame where the code raised, else the function the failing call
    went to (a module's forward)."""
    monkeypatch.chdir(tmp_path)
    Path("exercises").mkdir()
    Path("exercises/exercise6_multihead.py").write_text(
        "import torch\n\n\ndef split_heads(x, n_heads):\n    return x\n\n\n"
        "class MultiHeadAttention(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
        "    def forward(self, x):\n        return x\n")
    tests = [
        Check("test_split", "failed", 1.0, message="wrong", details={"call": {"target": "split_heads"}}),
        Check("test_layer", "failed", 1.0, message="wrong",
              details={"call": {"target": "MultiHeadAttention", "method": "__call__"}}),
        Check("test_raises", "error", 1.0, message="your code raised",
              details={"frames": ["exercise6_multihead.py, line 5, in split_heads: return x"]}),
        Check("test_unknown", "failed", 1.0, message="wrong"),
    ]
    verdict = GradeReport([ExerciseResult("exercise6", "Multi-head", "exercises/exercise6_multihead.py", tests)],
                          device="cpu", seed=0)
    (suite,) = parse_junit(junit.render(verdict))
    ends = {case.get("name"): case[0].text.splitlines()[-1] for case in suite.iter("testcase")}
    assert ends == {"test_split": "at exercises/exercise6_multihead.py:4 (split_heads)",
                    "test_layer": "at exercises/exercise6_multihead.py:12 (MultiHeadAttention.forward)",
                    "test_raises": "at exercises/exercise6_multihead.py:5 (split_heads)",
                    "test_unknown": "0/1 points"}
    notebook = GradeReport([ExerciseResult("exercise6", "Multi-head", "exercises/exercise6_multihead.ipynb",
                                           tests[2:3])], device="cpu", seed=0)
    (notebook_suite,) = parse_junit(junit.render(notebook))
    assert " at " not in notebook_suite.find("testcase/error").text  # its lines are not the notebook's
    # action-junit-report's rule: the last ` <path containing the suite's file>:<digits>` in the text
    found = re.findall(rf" [^ ]*{re.escape(suite.get('file'))}.*?:(\d+)", " " + suite[1][0].text)
    assert found[-1] == "4"


def test_junit_of_a_file_too_deep_to_parse_is_written_without_lines(tmp_path):
    """A line Python's parser gives up on (3000 terms: RecursionError): the lines are decoration, the
    report is written all the same (round 23's a14 left no XML)."""
    path = tmp_path / "exercise3_scaling.py"
    path.write_text("x = " + " + ".join(["1"] * 3000) + "\n", encoding="utf-8")
    tests = [Check("test_scaled", "failed", 1.0, message="wrong", details={"call": {"target": "scaled_scores"}})]
    verdict = GradeReport([ExerciseResult("exercise3", "Scale", str(path), tests)], device="cpu", seed=0)
    (suite,) = parse_junit(junit.render(verdict))
    assert suite.find("testcase/failure").text.splitlines()[-1] == "0/1 points"


def test_junit_reads_no_exercise_file_the_judge_would_refuse(tmp_path):
    """Round 27, a03: a link (to /dev/zero: GiBs of memory), a pipe (a hang) or an oversized file
    named as the exercise: the JUnit writer reads it as the judge does, or not at all (no lines)."""
    (tmp_path / "real.py").write_text("def scaled_scores(q, k):\n    return q\n")
    os.symlink(tmp_path / "real.py", tmp_path / "exercise3_scaling.py")
    os.mkfifo(tmp_path / "exercise4_masking.py")
    (tmp_path / "exercise5_softmax.py").write_text("def softmax(x):\n    return x\n" + "#" * (3 << 20))
    tests = [Check("test_scaled", "failed", 1.0, message="wrong", details={"call": {"target": "scaled_scores"}})]
    for name in ("exercise3_scaling.py", "exercise4_masking.py", "exercise5_softmax.py"):
        verdict = GradeReport([ExerciseResult(name[:9], "x", str(tmp_path / name), tests)], device="cpu", seed=0)
        written = []
        writer = threading.Thread(target=lambda: written.append(junit.render(verdict)), daemon=True)
        writer.start()
        writer.join(timeout=20)
        assert written, f"{name}: the writer blocked"
        (suite,) = parse_junit(written[0])
        assert suite.find("testcase/failure").text.splitlines()[-1] == "0/1 points", name


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
    assert {t["name"].removeprefix("exercise3: "): t["output"].split("\n➜ ")[0] for t in gradescope["tests"]
            if t["status"] == "failed"} == failed  # each message, then the misconception it shows, if any

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
    assert len(suites) == len(catalog.EXERCISES)
    assert suites["exercise3"].get("failures") == suites["exercise3"].get("errors") == "0"
    assert int(suites["exercise3"].get("tests")) > 0
    missing = suites["exercise1"].find("testcase/error")
    assert missing.get("type") == "not_run" and missing.get("message").startswith("not run")
    assert "not graded: no exercise1_projection.py" in suites["exercise1"].find("system-out").text
