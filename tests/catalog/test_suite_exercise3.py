"""The exercise 3 suite (scaling) grades what it should: full marks, zero, and each mistake caught."""

import pytest

from conftest import SUBMISSIONS, failed_tests
from test_diagnoses import graded

HERE = SUBMISSIONS / "exercise3"
FILE = "exercise3_scaling.py"
VALUE_TESTS = ["test_gradients", "test_scale_scores_values", "test_scaled_scores_keeps_unit_spread",
               "test_scaled_scores_shapes", "test_scaled_scores_width", "test_zero_and_huge_scores"]


@pytest.mark.parametrize("name, spread", [("wrong_no_scale", "22.70"), ("wrong_divide_by_dk", "0.04"),
                                          ("wrong_multiply_sqrt", "513.71")])
def test_a_wrong_scale_fails_every_value_test_but_d_k_1(grade, name, spread):
    result = graded(grade, 3, HERE / f"{name}.py")
    assert failed_tests(result) == VALUE_TESTS
    passed = {t.name for t in result.tests if t.status == "passed"}
    assert {"test_scaled_scores_width[1]", "test_inputs_not_modified[cpu]"} <= passed  # √1 = 1 = 1²: no difference
    [message] = [t.message for t in result.tests if t.name == "test_scaled_scores_keeps_unit_spread"]
    assert message.startswith(f"scaled scores of unit-variance q, k at d_k = 512 have spread {spread}, expected")


def test_an_integer_square_root_fails_scale_scores_own_test(grade):
    """math.isqrt(d_k) equals √d_k at a perfect square: the test of scale_scores itself uses d_k = 130,
    so it fails there, not only in scaled_scores' tests (width 10 in test_scaled_scores_width)."""
    result = graded(grade, 3, HERE / "wrong_isqrt.py")
    failed = set(failed_tests(result))
    assert "test_scale_scores_values" in failed, [(t.name, t.status) for t in result.tests]
    messages = [t.message for t in result.tests if t.name.startswith("test_scale_scores_values[cpu")]
    assert messages and all(m.startswith("scale_scores(scores, 130) is wrong") for m in messages), messages
