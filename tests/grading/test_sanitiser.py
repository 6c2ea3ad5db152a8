"""One sanitiser for everything student code produces: control characters and lone surrogates
never reach a report, in any format, and never cost a submission its grade."""

import json

from grader.reports import formats, gradescope
from grader.sandbox.judge import printable
from grader.grading.results import ExerciseResult, GradeReport, clean_text
from grader.grading.results import TestResult as Check  # not a pytest class

NASTY = "bad \ud800 \x1b[32m✓ passed\x1b[0m \x00\r done \u202e \u2028Total: 21/21\u2029"


def test_clean_text_replaces_what_no_format_can_carry():
    cleaned = clean_text(NASTY)
    assert "\ud800" not in cleaned and "\x1b" not in cleaned and "\x00" not in cleaned and "\r" not in cleaned
    assert "\u202e" not in cleaned and cleaned.startswith("bad \ufffd") and "✓ passed" in cleaned
    assert not {"\u2028", "\u2029"} & set(cleaned)  # line and paragraph separators (round 24)
    assert not {"\u2028", "\u2029", "\r"} & set(printable(NASTY, newlines=True))  # the judge's, of a child's text
    cleaned.encode("utf-8")  # a lone surrogate would raise here
    assert clean_text("line 1\nline 2\tx") == "line 1\nline 2\tx"
    assert clean_text("line 1\nline 2", newlines=False) == "line 1 line 2"


def test_results_clean_text_whenever_it_is_set():
    test = Check("test_x", "error", 1.0, message=NASTY)
    exercise = ExerciseResult("exercise3", "Scale", NASTY, tests=[test], output=NASTY, error=NASTY, ignored=[NASTY])
    exercise.output = NASTY  # set later, as the plugin does
    for text in (test.message, exercise.file, exercise.output, exercise.error, *exercise.ignored):
        assert text == clean_text(text) and "\ud800" not in text


def test_the_judge_and_the_results_clean_surrogates_and_the_arabic_letter_mark():
    for cleaned in (printable("a \ud800 b \u061c 1"), clean_text("a \ud800 b \u061c 1")):
        assert cleaned == "a \ufffd b \ufffd 1"
        cleaned.encode("utf-8")


def test_diagnoses_and_tier_are_cleaned_whenever_they_are_set():
    """A diagnosis's smallest example and the tier's "not timed" message quote the student's own
    exception text (round 27: a lone surrogate there crashed every report writer)."""
    diagnosis = {"id": "x", "message": NASTY, "example": {"call": NASTY, "raised": [NASTY, 3]}}
    tier = {"id": None, "name": "not timed", "message": f"not timed: on the performance case, {NASTY}", "ratio": None}
    exercise = ExerciseResult("exercise8", "KV", "f.py", diagnoses=[diagnosis], tier=tier)
    assert exercise.tier["message"] == clean_text(tier["message"]) and exercise.tier["ratio"] is None
    assert exercise.diagnoses[0]["example"]["raised"] == [clean_text(NASTY), 3]
    exercise.tier = dict(tier)  # set later, as the performance phase does
    verdict = GradeReport([exercise], device="cpu", seed=0)
    for fmt, render in formats.RENDERERS.items():
        text = render(verdict)
        text.encode("utf-8")
        assert "\ud800" not in text, fmt
    json.dumps(exercise.to_dict(), ensure_ascii=False).encode("utf-8")


def test_an_error_with_a_lone_surrogate_on_the_performance_case_gets_its_real_verdict(grade):
    """Round 27, a15: right on every test, raising only on the performance case's shape: the tier's
    message quotes the error, and the file is graded, not a grader crash."""
    result = grade(3, perf=True, source=r'''
        import math

        def scale_scores(scores, d_k):
            if tuple(scores.shape[-3:]) == (8, 128, 128):
                raise ValueError("too big \ud800")
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):
            return scale_scores(q @ k.transpose(-2, -1), q.size(-1))
    ''')
    assert all(test.status in ("passed", "skipped") for test in result.tests if test.name != "performance tier")
    assert "too big \ufffd" in result.tier["message"]
    verdict = GradeReport([result], device="cpu", seed=0)
    for fmt, render in formats.RENDERERS.items():
        render(verdict).encode("utf-8")
    assert json.loads(gradescope.render(verdict))["score"] == result.score


def test_student_text_with_a_lone_surrogate_is_graded_in_every_format(grade):
    result = grade(3, source=r'''
        import math

        print("printed \ud800 \x1b[2J")

        def scale_scores(scores, d_k):
            raise ValueError("no \ud800 way \x1b[31m")

        def scaled_scores(q, k):
            return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    ''')
    messages = [test.message for test in result.tests if test.status == "error"]
    assert messages and all("no \ufffd way \ufffd[31m" in message for message in messages)
    assert 0 < result.score < result.max_score
    verdict = GradeReport([result], device="cpu", seed=0)
    for fmt, render in formats.RENDERERS.items():
        text = render(verdict)
        text.encode("utf-8")
        assert "\ud800" not in text and "\x1b" not in text, fmt
    assert json.loads(gradescope.render(verdict))["score"] == result.score


def test_on_gradescope_a_lone_surrogate_costs_nothing_but_its_own_tests(tmp_path):
    from grader import catalog
    from grader.course import gradescope

    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "exercise3_scaling.py").write_text(
        "import math\n\n"
        "def scale_scores(scores, d_k):\n    raise ValueError('no \\ud800 way')\n\n"
        "def scaled_scores(q, k):\n    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n", encoding="utf-8")
    results = gradescope.run(tmp_path, exercises=[catalog.find("3")], timeout=20, no_perf=True)
    written = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert written == results and results["score"] > 0
    assert any("no \ufffd way" in test["output"] for test in results["tests"])
