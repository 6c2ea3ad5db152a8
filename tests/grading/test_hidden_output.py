"""What the student's code prints during a hidden check stays out of the report: round 9's a19
printed every argument, and Gradescope's visible stdout showed the hidden checks' inputs before
grades were published."""

from pathlib import Path

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
