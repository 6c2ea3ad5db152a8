"""The hint ladder where students and staff meet it: the course file, `lumen-grade hint`, `--hint next`,
`--hints all`, each report's level, and Gradescope's uploads climbing it.

The graded file is a real wrong answer (exercise 3 divided by d_k); the level texts are the test's
own (`four_levels`), since which texts the catalogue has is another part's work.
"""

import json
import zipfile
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from conftest import unwrapped
from grader import catalog
from grader.cli.main import main
from grader.course import gradescope, ladder, policy
from grader.diagnosis import hints
from grader.grading.results import ExerciseResult, GradeReport, TestResult as Check
from grader.grading.settings import Policy
from grader.reports import formats, schema
from grader.reports import gradescope as gradescope_results
from grader.reports import text as report
from test_formats import WRONG_SCALING, check_gradescope_results

EX3 = catalog.find("exercise3")
EXAMPLE = "scale_scores(scores, d_k=4)\n  scores   [[4.]]\n  expected [[2.]]\n  yours    [[1.]]"
PICTURE = {"kind": "mask", "rows": "queries", "columns": "keys", "slice": [], "shape": [2, 2],
           "expected": [[True, False], [True, True]], "got": [[True, True], [True, True]]}


@pytest.fixture
def four_levels(monkeypatch):
    """Every diagnosis has all four levels, each text naming its level and the mistake."""
    def fake(diagnosis):
        texts = (f"PRINCIPLE of {diagnosis['id']}", EXAMPLE, f"CAUSE of {diagnosis['id']}", diagnosis["message"])
        return [{"level": n, "kind": kind, "text": text} for n, (kind, text) in enumerate(zip(hints.KINDS, texts), 1)]

    monkeypatch.setattr(hints, "ladder", fake)


def grade(folder, *args, env=None):
    result = CliRunner(env={"COLUMNS": "100", **(env or {})}).invoke(
        main, ["exercise3", "--submission", str(folder), "--device", "cpu", "--no-perf", *map(str, args)],
        catch_exceptions=False)
    return result, unwrapped(result.output)


def hint(folder, *args):
    result = CliRunner(env={"COLUMNS": "100"}).invoke(
        main, ["hint", "3", "--submission", str(folder), "--device", "cpu", "--no-perf", *map(str, args)],
        catch_exceptions=False)
    return result, unwrapped(result.output)


def test_the_ladder_through_the_commands(tmp_path, four_levels):
    """Graded twice unchanged: level 1; two changed versions later: 3; `hint`: 4; .lumen/ deleted: 1."""
    student = tmp_path / EX3.file_name
    student.write_text(WRONG_SCALING)
    for _ in range(2):
        result, said = grade(tmp_path)
        assert result.exit_code == 1
        assert "➜ hint 1 of 4: what is wrong: PRINCIPLE of scale-by-dk" in said
        assert "next hint: lumen-grade hint exercise3" in said and "You divided" not in said
    for version in (2, 3):
        student.write_text(WRONG_SCALING + f"\n# version {version}\n")
        result, said = grade(tmp_path)
    assert "➜ hint 3 of 4: the mistake: CAUSE of scale-by-dk" in said
    result, said = hint(tmp_path)
    assert result.exit_code == 1 and "➜ hint 4 of 4: the fix: scale_scores(...), scaled_scores(...): You divided" in said
    assert "next hint" not in said
    result, said = grade(tmp_path, "--hint", "next")
    assert "no further hint for exercise3 (scale-by-dk): this is its last level" in said
    for path in (tmp_path / ".lumen").iterdir():
        path.unlink()
    (tmp_path / ".lumen").rmdir()
    assert "➜ hint 1 of 4" in grade(tmp_path)[1]


def test_hints_all_shows_every_level_the_course_allows_and_the_example_as_printed(tmp_path, four_levels):
    (tmp_path / EX3.file_name).write_text(WRONG_SCALING)
    course = tmp_path / "course.toml"
    course.write_text("[hints]\nhighest_level = 3\n")
    result = CliRunner(env={"COLUMNS": "100"}).invoke(
        main, ["exercise3", "--submission", str(tmp_path), "--device", "cpu", "--no-perf", "--hints", "all",
               "--course", str(course)])
    said = result.output
    assert "hint 1 of 4" in said and "hint 3 of 4" in said and "hint 4 of 4" not in said  # capped by the course
    assert "      scale_scores(scores, d_k=4)\n        scores   [[4.]]\n" in said  # not rewrapped


def test_the_course_file_is_found_in_the_current_folder_or_by_the_environment(tmp_path, four_levels, monkeypatch):
    (tmp_path / EX3.file_name).write_text(WRONG_SCALING)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lumen-course.toml").write_text("[hints]\nfirst_level = 3\n")
    assert "➜ hint 3 of 4" in grade(tmp_path)[1]
    (tmp_path / "elsewhere.toml").write_text("[hints]\nfirst_level = 2\n")
    assert "➜ hint 2 of 4" in grade(tmp_path, env={"LUMEN_COURSE": str(tmp_path / "elsewhere.toml")})[1]


@pytest.mark.parametrize("text, named", [
    ("[hints]\nfrist_level = 2\n", "unknown key hints.frist_level"),
    ("[hint]\nfirst_level = 2\n", "unknown table [hint]"),
    ("[hints]\nfirst_level = 5\n", "hints.first_level must be an integer from 1 to 4, not 5"),
    ("[hints]\nfirst_level = true\n", "hints.first_level must be an integer from 1 to 4, not True"),
    ("[hints]\nfirst_level = 3\nhighest_level = 2\n", "hints.first_level (3) is above hints.highest_level (2)"),
    ("[hints]\ndue = \"friday\"\n", "hints.due must be a TOML date-time"),
    ("[report]\nshow_tier = \"no\"\n", "report.show_tier must be true or false"),
    ("hints = 3\n", "hints must be a table"),
    ("[hints\n", "is not valid TOML"),
])
def test_a_bad_course_file_is_an_error_naming_the_key_never_a_traceback(tmp_path, text, named):
    (tmp_path / EX3.file_name).write_text(WRONG_SCALING)
    course = tmp_path / "course.toml"
    course.write_text(text)
    result = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["exercise3", "--submission", str(tmp_path),
                                                             "--course", str(course)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert named in unwrapped(result.output) and "--course" in result.output


def test_a_course_file_reads_back_as_the_bundle_writes_it(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text("[hints]\nfirst_level = 2\nhighest_level = 3\ndue = 2026-12-15\n\n[report]\nshow_tier = false\n")
    read = policy.load(course)
    assert (read.first_level, read.highest_level, read.highest_level_after_due, read.show_tier) == (2, 3, 4, False)
    assert read.due.tzinfo is not None and (read.due.hour, read.due.minute) == (23, 59)  # a date: due at its end
    again = tmp_path / "again.toml"
    again.write_text(policy.as_toml(read))
    assert policy.load(again) == Policy(**{**vars(read), "source": again})


def test_the_policy_decides_the_level_before_and_after_the_due_date():
    before = Policy(highest_level=2, highest_level_after_due=4, due=datetime(2026, 12, 15, tzinfo=timezone.utc))
    assert before.highest(datetime(2026, 12, 14, tzinfo=timezone.utc)) == 2
    assert before.highest(datetime(2026, 12, 16, tzinfo=timezone.utc)) == 4
    assert Policy(highest_level=2).highest(datetime(2099, 1, 1, tzinfo=timezone.utc)) == 2  # no due date


@pytest.mark.parametrize("fmt", ["json", "gradescope", "junit", "html"])
def test_no_format_of_a_students_run_holds_a_level_above_the_cap(tmp_path, four_levels, fmt):
    """Round 18's a4: capped at level 1 by the course file, a student's `--format json` held every level,
    the remedy included. Every format of their own run now holds only the levels the course allows."""
    (tmp_path / EX3.file_name).write_text(WRONG_SCALING)
    course = tmp_path / "course.toml"
    course.write_text("[hints]\nhighest_level = 1\n")
    result, _ = grade(tmp_path, "--format", fmt, "--course", course, "--output", tmp_path / "report")
    assert result.exit_code == 1, result.output
    written = (tmp_path / "report").read_text()
    assert "PRINCIPLE of scale-by-dk" in written
    assert "CAUSE of" not in written and "You divided" not in written and "d_k=4" not in written
    if fmt == "json":
        [diagnosis] = json.loads(written)["exercises"][0]["diagnoses"]
        assert [(h["level"], bool(h["text"])) for h in diagnosis["hints"]] == [(1, True), (2, False), (3, False),
                                                                             (4, False)]
        assert "example" not in diagnosis and diagnosis["message"] == "PRINCIPLE of scale-by-dk"


# -- the reports -----------------------------------------------------------------------------------

def chosen_verdict(level=2, shown=None, hidden=False):
    """A verdict whose one diagnosis the ladder put at `level`, its example with a picture."""
    diagnosis = {"id": "scale-by-dk", "message": "You divided by d_k", "level": level,
                 "shown": shown or [level], "allowed": 4, "attempts": level,
                 "example": {"text": EXAMPLE, "pictures": [PICTURE]},
                 "hints": [{"level": 1, "kind": "principle", "text": "PRINCIPLE"},
                           {"level": 2, "kind": "example", "text": EXAMPLE},
                           {"level": 3, "kind": "cause", "text": "CAUSE"},
                           {"level": 4, "kind": "remedy", "text": "You divided by d_k"}]}
    tests = [Check("test_values", "failed", 2.0, message="scale_scores(s, 4) is wrong",
                        details={"diagnosis": "scale-by-dk"}),
             Check("test_secret", "failed", 1.0, visibility="hidden" if hidden else "visible",
                        message="the secret case fails", details={"diagnosis": "scale-by-dk"})]
    result = ExerciseResult(EX3.id, EX3.title, EX3.file_name, tests=tests, diagnoses=[diagnosis],
                            tier={"id": "on-par", "name": "on par", "message": "TIER MESSAGE", "ratio": 1.0})
    return GradeReport([result], "cpu", 0)


def test_every_report_carries_the_level(tmp_path):
    verdict = chosen_verdict(level=2)
    text = report.render_text(verdict, width=100)
    assert "➜ hint 2 of 4: the smallest example:\n      scale_scores(scores, d_k=4)" in text
    assert "PRINCIPLE" not in text and "CAUSE" not in text and "You divided" not in text
    page = formats.render_html(verdict)
    assert "PRINCIPLE" in page and "scale_scores(scores, d_k=4)" in page  # the levels reached, the example
    assert "CAUSE" not in page and 'data-side="got"' in page  # and its picture drawn
    saved = schema.load(formats.RENDERERS["json"](verdict))
    assert saved["exercises"][0]["diagnoses"][0]["level"] == 2
    results = json.loads(gradescope_results.render(verdict))
    check_gradescope_results(results)
    test = results["tests"][0]
    assert "➜ hint 2 of 4: the smallest example:\nscale_scores(scores, d_k=4)" in test["output"]
    assert "You divided" not in test["output"] and "You divided" not in results["output"]
    assert test["extra_data"]["level"] == 2  # for staff: every level
    assert [h["level"] for h in test["extra_data"]["diagnosed"]["hints"]] == [1, 2, 3, 4]
    assert "hint 2 of 4" in formats.RENDERERS["junit"](verdict)


def test_the_schema_refuses_a_level_that_is_no_level():
    saved = json.loads(formats.RENDERERS["json"](chosen_verdict()))
    saved["exercises"][0]["diagnoses"][0]["level"] = 0
    with pytest.raises(schema.ReportError, match="level: below 1"):
        schema.check(saved)
    saved["exercises"][0]["diagnoses"][0]["level"] = None  # every level withheld
    schema.check(saved)


def test_the_policy_withholds_the_tier_and_the_hidden_checks_from_students():
    verdict = chosen_verdict(hidden=True)
    quiet = Policy(show_tier=False, show_hidden_tests=False)
    text = report.render_text(verdict, width=100, verbose=True, policy=quiet)
    assert "the secret case" not in text and "test_secret" not in text and "a hidden check" in text
    assert "TIER MESSAGE" not in report.render_text(dataclass_passed(verdict), width=100, verbose=True, policy=quiet)
    page = formats.render_html(verdict, policy=quiet)
    assert "the secret case" not in page and "TIER MESSAGE" not in page
    results = json.loads(gradescope_results.render(verdict, hidden_visibility="visible", policy=quiet))
    assert {t["visibility"] for t in results["tests"]} == {"visible", "after_due_date"}
    assert "TIER MESSAGE" not in results["output"] and "leaderboard" not in results
    saved = json.loads(formats.RENDERERS["json"](verdict))  # machines and staff keep everything
    assert saved["exercises"][0]["tests"][1]["message"] == "the secret case fails"


def test_a_diagnosis_of_hidden_checks_alone_is_shown_with_them():
    """Round 69's a01: a mistake only a hidden check showed was diagnosed in the visible summary, whose
    finding quoted the value the code returned there (one it kept from another hidden check's inputs).
    Where hidden checks are withheld, such a diagnosis is shown with them; one a visible check shares stays."""
    import dataclasses

    verdict = chosen_verdict(level=2, hidden=True)
    alone = dataclasses.replace(verdict, exercises=[dataclasses.replace(verdict.exercises[0], tests=[
        dataclasses.replace(test, details={}) if test.visibility == "visible" else test
        for test in verdict.exercises[0].tests])])
    quiet = Policy(show_hidden_tests=False)
    assert "hint 2 of 4" in report.render_text(verdict, width=100, policy=quiet)  # a visible check's too
    assert "hint" not in report.render_text(alone, width=100, policy=quiet)
    assert "hint" in report.render_text(alone, width=100)  # the course shows hidden checks: all of it
    summary = json.loads(gradescope_results.render(alone))["output"]
    assert "hint" not in summary and "scale_scores" not in summary
    assert "hint 2 of 4" in json.loads(gradescope_results.render(verdict))["output"]
    shown = json.loads(gradescope_results.render(alone, hidden_visibility="visible"))["output"]
    assert "hint 2 of 4" in shown  # hidden checks shown at once: their diagnoses too


def dataclass_passed(verdict):
    """The verdict with every test passed (a tier is shown for a passed exercise)."""
    import dataclasses

    result = verdict.exercises[0]
    return dataclasses.replace(verdict, exercises=[dataclasses.replace(
        result, diagnoses=[], tests=[dataclasses.replace(test, status="passed") for test in result.tests])])


# -- Gradescope ------------------------------------------------------------------------------------

def test_a_second_and_third_upload_with_the_same_mistake_get_levels_2_and_3(tmp_path, four_levels):
    """Gradescope's submission_metadata.json, as documented: previous_submissions, each with the
    results.json this kit wrote for it; the upload folder is never written into."""
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    uploads, levels = [], []
    for version in (1, 2, 3):
        (root / "submission" / EX3.file_name).write_text(WRONG_SCALING + f"\n# upload {version}\n")
        (root / gradescope.METADATA).write_text(json.dumps({
            "id": 100 + version, "created_at": "2026-12-01T10:00:00.000000-07:00",
            "assignment": {"due_date": "2026-12-15T23:00:00.000000-07:00", "late_due_date": None, "id": 1,
                           "title": "Attention", "total_points": "19.0"},
            "users": [{"email": "s@example.com", "id": 7, "name": "S"}],
            "previous_submissions": [{"submission_time": "2026-11-30T10:00:00.000000-07:00",
                                      "score": upload["score"], "results": upload} for upload in uploads]}))
        results = gradescope.run(root, exercises=[EX3], timeout=20, no_perf=True)
        check_gradescope_results(results)
        diagnosed = [test for test in results["tests"] if test.get("extra_data", {}).get("diagnosis")]
        assert diagnosed
        levels.append({test["extra_data"]["level"] for test in diagnosed})
        assert all(f"➜ hint {version} of 4" in test["output"] for test in diagnosed)
        uploads.append(results)
    assert levels == [{1}, {2}, {3}]
    assert sorted(path.name for path in (root / "submission").iterdir()) == [EX3.file_name]


def test_after_the_assignments_due_date_the_after_due_cap_holds(tmp_path, four_levels):
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / EX3.file_name).write_text(WRONG_SCALING)
    (root / gradescope.METADATA).write_text(json.dumps({
        "created_at": "2026-12-20T10:00:00.000000-07:00", "previous_submissions": [],
        "assignment": {"due_date": "2026-12-15T23:00:00.000000-07:00"}}))
    late = Policy(first_level=1, highest_level=1, highest_level_after_due=4)
    results = gradescope.run(root, exercises=[EX3], timeout=20, no_perf=True, policy=late)
    diagnosed = [test for test in results["tests"] if test.get("extra_data", {}).get("diagnosis")]
    assert {test["extra_data"]["diagnosed"]["allowed"] for test in diagnosed} == {4}


def test_the_bundle_carries_the_course_file(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text("[hints]\nhighest_level = 3\ndue = 2026-12-15T23:00:00-07:00\n")
    out = tmp_path / "autograder.zip"
    names = gradescope.build_bundle(out, policy=policy.load(course))
    assert "lumen-course.toml" in names
    with zipfile.ZipFile(out) as bundle:
        carried = bundle.read("lumen-course.toml").decode()
        assert '--course "$root"/source/lumen-course.toml' in bundle.read("run_autograder").decode()
    (tmp_path / "carried.toml").write_text(carried)
    assert policy.load(tmp_path / "carried.toml").due == policy.load(course).due


def test_watch_keeps_the_level_while_the_mistake_stays_and_shows_a_hint_asked_for(launcher, tmp_path, four_levels):
    from grader.course import watch
    from grader.grading.settings import Settings

    student = tmp_path / EX3.file_name
    student.write_text(WRONG_SCALING)
    shown, notes = [], []
    watcher = watch.Watcher([EX3], Settings(submission=tmp_path, device="cpu", perf=False),
                            lambda verdict, graded, seconds: shown.append(verdict), notes=notes.append)
    watcher.launcher = launcher
    levels = []
    for version in (1, 2, 3):
        student.write_text(WRONG_SCALING + f"\n# save {version}\n")
        watcher.grade([EX3])
        levels.append(shown[-1].exercises[0].diagnoses[0]["level"])
    assert levels == [1, 1, 1] and notes == []  # saves are not attempts
    assert hint(tmp_path)[0].exit_code == 1  # `lumen-grade hint exercise3` in another terminal
    watcher.grade([EX3])
    assert shown[-1].exercises[0].diagnoses[0]["level"] == 2
