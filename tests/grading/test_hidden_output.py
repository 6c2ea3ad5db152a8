"""What the student's code prints during a hidden check stays out of the report: round 9's a19
printed every argument, and Gradescope's visible stdout showed the hidden checks' inputs before
grades were published."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import SOLUTIONS

A19 = Path(__file__).resolve().parents[1] / "attacks" / "round9" / "files" / "a19_hidden_checks_printed.py"


def test_what_a_hidden_check_printed_is_left_out_and_said(grade):
    result = grade(3, path=A19)
    hidden = [test for test in result.tests if test.visibility == "hidden"]
    assert hidden and "A9CALL scale_scores" in result.output  # the visible checks' calls are shown
    assert "min=10000" not in result.output  # scores of 1e4: only test_zero_and_huge_scores (hidden) uses them
    assert "printed during hidden checks are not shown" in result.output


def test_what_the_import_and_visible_checks_printed_is_all_shown(grade):
    result = grade(3, source="""
        import math
        print("imported")

        def scale_scores(scores, d_k):  # the one function exercise 3's hidden check calls
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):
            print("scaling", tuple(q.shape))
            return q @ k.mT / math.sqrt(q.size(-1))
        """)
    assert result.output.startswith("imported\nscaling") and "hidden checks" not in result.output


def test_a_warning_torch_gives_for_a_call_names_the_students_line_not_the_graders(tmp_path):
    """Round 72's a03: torch.quantize_per_tensor's deprecation warning names its caller, which in exercise 5
    was the grader's watcher of torch functions: "your code printed" showed the kit's path and line. Graded
    by `python -m grader`, whose warnings are shown as a student's run shows them (pytest records its own)."""
    solution = (SOLUTIONS / "exercise5_softmax.py").read_text(encoding="utf-8")
    line = len(solution.splitlines()) + 5  # two blank lines, then the three below
    (tmp_path / "exercise5_softmax.py").write_text(solution + textwrap.dedent("""\


        _softmax = softmax
        def softmax(x, dim=-1):
            torch.quantize_per_tensor(x.detach().float().cpu(), 0.1, 0, torch.quint8)
            return _softmax(x, dim)
        """), encoding="utf-8")
    subprocess.run([sys.executable, "-m", "grader", "exercise5", "--submission", str(tmp_path), "--no-perf",
                    "--device", "cpu", "--format", "json", "--output", str(tmp_path / "report.json")],
                   capture_output=True, timeout=300, cwd=tmp_path)
    (exercise,) = json.loads((tmp_path / "report.json").read_text())["exercises"]
    assert f"exercise5_softmax.py:{line}: UserWarning: torch.quantize_per_tensor" in exercise["output"], exercise
    assert "grader" not in exercise["output"]


def test_no_visible_check_runs_after_a_hidden_one(grade):
    """Round 25's a15: the code keeps what every call gave it and raises it in a later visible check, whose
    message is shown: each exercise's hidden checks run after its visible ones. The report keeps the
    suites' order."""
    result = grade(3, source="""
        import math

        SEEN = []

        def scale_scores(scores, d_k):
            SEEN.append(float(scores.abs().max()))
            if SEEN[-1] >= 1e4:  # only the hidden check's scores are this large
                raise ValueError("huge scores")
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):
            if any(seen >= 1e4 for seen in SEEN):
                raise ValueError(f"seen before: {max(SEEN)}")
            return q @ k.mT / math.sqrt(q.size(-1))
        """)
    hidden = [test for test in result.tests if test.visibility == "hidden" and test.status != "skipped"]
    assert hidden and all(test.status == "error" for test in hidden), hidden
    visible = [test for test in result.tests if test.visibility == "visible" and test.status != "skipped"]
    assert visible and all("seen before" not in test.message for test in visible), visible
    names = [test.name for test in result.tests]
    assert names.index(hidden[0].name) < names.index(visible[-1].name)  # reported in the suites' order


def test_a_hidden_check_that_writes_over_the_log_shows_nothing(grade):
    """Round 30's a08: during the hidden check the code sought back to its log's start and wrote the
    check's inputs over what its import printed, so that the log did not grow. The log is appended
    to, and the judge keeps what it read: the import's dots stay, the inputs are left out."""
    result = grade(3, source="""
        import math
        import os

        print("." * 300)

        def scale_scores(scores, d_k):
            if float(scores.abs().max()) >= 1e4:  # the hidden check's huge scores
                os.lseek(1, 0, 0)
                os.write(1, f"[HIDDEN {tuple(scores.shape)} d_k={d_k}]".encode())
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):
            return q @ k.mT / math.sqrt(q.size(-1))
        """)
    assert result.output.startswith("." * 300) and "HIDDEN" not in result.output, result.output
    assert "printed during hidden checks are not shown" in result.output


def test_what_an_earlier_child_printed_is_kept_when_one_is_restarted(grade):
    """A child that crashes is replaced, and the new one appends to the same log: the report shows
    what both printed (a new child once emptied the log, and the judge's account of it with it)."""
    result = grade(3, source="""
        import math
        import os

        print("imported once more")
        CALLS = []

        def scale_scores(scores, d_k):
            CALLS.append(d_k)
            if len(CALLS) == 1:  # each child's first call ends it
                os._exit(3)
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):
            return q @ k.mT / math.sqrt(q.size(-1))
        """)
    assert any("ended the process" in test.message for test in result.tests), [t.message for t in result.tests]
    assert result.output.count("imported once more") >= 3, result.output


def test_a_diagnosis_s_example_is_computed_where_no_hidden_check_ran(grade):
    """Round 66's a01: the code keeps what a hidden check gave it, and answers with it (or raises it) when
    the diagnosis's search for a small example calls it after the hidden checks: the example (shown at
    hint level 2) carried their inputs. Each search runs in a process that has run nothing else."""
    result = grade(3, source="""
        KEPT = []

        def scale_scores(scores, d_k):
            if bool((scores == 1e4).all()):  # only the hidden check's scores are all 1e4
                KEPT.append(12345.0)
            if KEPT and scores.numel() <= 32:  # a small call after it: what it kept, as its answer
                return scores * 0 + KEPT[0]
            return scores / d_k  # divides by d_k, not its square root: a diagnosis with an example

        def scaled_scores(q, k):
            return scale_scores(q @ k.mT, q.size(-1))
        """)
    assert result.diagnoses and all("example" in diagnosis for diagnosis in result.diagnoses), result.diagnoses
    assert "12345" not in json.dumps(result.diagnoses)
    assert "12345" not in "".join(test.message for test in result.tests if test.visibility == "visible")


def test_a_diagnosis_takes_its_words_from_a_visible_check_where_one_shows_it(grade):
    """Round 71's a02: a hidden check listed above a visible one that failed the same way gave the diagnosis its
    words, a fill value the code made from the hidden check's inputs; its control fills with -1e5 everywhere.
    The visible checks' calls come first: the same message for both."""
    attempt = Path(__file__).resolve().parents[1] / "attacks" / "round71" / "a02_hidden_fill_value"
    said = [[diagnosis["message"] for diagnosis in grade(4, path=attempt / folder / "exercise4_masking.py").diagnoses]
            for folder in ("sub", "control")]
    assert said[0] and said[0] == said[1], said
