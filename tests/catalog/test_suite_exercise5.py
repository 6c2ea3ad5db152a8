"""The exercise 5 suite (softmax and scaled dot-product attention) on known submissions: the
solution, the stub, student-style mistakes that must fail exactly where expected, and correct
submissions written differently that must get full marks."""

import pytest

from conftest import SUBMISSIONS, failed_tests, failures
from test_diagnoses import graded

FOLDER = SUBMISSIONS / "exercise5"
FILE = "exercise5_softmax.py"

ATTENTION_WITH_MASK = {
    "test_causal_mask_broadcasts", "test_padding_mask_broadcasts", "test_fully_masked_rows",
    "test_attention_gradients", "test_gradients_with_fully_masked_row", "test_gradients_with_padding",
}
# a NaN gradient through a fully masked row, through softmax itself and through attention
NAN_GRADIENT = {"test_softmax_gradients_fully_masked_slice", "test_gradients_with_fully_masked_row",
                "test_gradients_with_padding"}

# a mistake in the values shows in float16 and bfloat16 too
HALF = {"test_half_precision"}

# submission -> (the tests it must fail, (a test, a phrase its message must contain))
WRONG = {
    "wrong_shift_clamped_at_minus_1e4": ({"test_softmax_huge_scores"},
                                         ("test_softmax_huge_scores", "is wrong at [4, 0]")),
    "wrong_softmax_over_queries": (
        HALF | ATTENTION_WITH_MASK | {"test_attention_values", "test_attention_shapes",
                                      "test_attention_huge_scores", "test_attention_zero_scores"},
        ("test_attention_values", "weights from scaled_dot_product_attention(q, k, v) are wrong at"),
    ),
    "wrong_naive_exp": (
        NAN_GRADIENT | {"test_softmax_huge_scores", "test_softmax_fully_masked_slice", "test_fully_masked_rows",
                        "test_attention_huge_scores"},
        ("test_softmax_huge_scores", "subtract each slice's max"),
    ),
    "wrong_nan_on_masked_rows": (
        NAN_GRADIENT | {"test_softmax_fully_masked_slice", "test_fully_masked_rows"},
        ("test_fully_masked_rows", "a fully masked row must give zero weights"),
    ),
    "wrong_mask_after_softmax": (
        HALF | ATTENTION_WITH_MASK | {"test_attention_huge_scores"},
        ("test_causal_mask_broadcasts", "weights from scaled_dot_product_attention(q, k, v, causal_mask(6)) are wrong"),
    ),
    "wrong_mask_inverted": (
        HALF | ATTENTION_WITH_MASK | {"test_attention_huge_scores"},
        ("test_padding_mask_broadcasts", "are wrong at [0, 0, 0, 0]: got 0, expected 0."),
    ),
    "wrong_no_scale": (
        HALF | ATTENTION_WITH_MASK | {"test_attention_values", "test_attention_shapes"},
        ("test_attention_values", "weights from scaled_dot_product_attention(q, k, v) are wrong at"),
    ),
    "wrong_softmax_ignores_dim": (
        {"test_softmax_any_dim"},
        ("test_softmax_any_dim", "is wrong at [0, 0, 0]"),
    ),
    "wrong_clamp_tiny": (
        NAN_GRADIENT,
        ("test_gradients_with_fully_masked_row", "a sum clamped to a tiny number"),
    ),
    "wrong_nan_to_num": (
        NAN_GRADIENT,
        ("test_gradients_with_fully_masked_row", "its gradients must be finite too"),
    ),
    "wrong_logsumexp_guard_after": (
        {"test_softmax_gradients_fully_masked_slice"},
        ("test_softmax_gradients_fully_masked_slice", "torch.logsumexp of an all -inf slice differentiates"),
    ),
    "wrong_where_after_division": (
        {"test_softmax_gradients_fully_masked_slice"},
        ("test_softmax_gradients_fully_masked_slice", "torch.where(total == 0, 0, e / total) still differentiates"),
    ),
}



def messages(result, test):
    return [t.message for t in failures(result) if t.name.split("[")[0] == test]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_submission_fails_where_expected(grade, name):
    expected, (test, phrase) = WRONG[name]
    result = graded(grade, 5, FOLDER / f"{name}.py")
    assert set(failed_tests(result)) == expected
    found = messages(result, test)
    assert found and all(phrase in message for message in found), found


def test_a_softmax_that_edits_its_input_unless_it_is_asked_back_is_caught(grade):
    """Round 11's a09: softmax in place over x except when the request asked for the arguments back.
    Every call now sends them back, so no request tells a check of the inputs from another call."""
    path = SUBMISSIONS.parent / "attacks" / "round11" / "a09" / "trick" / "exercise5_softmax.py"
    result = graded(grade, 5, path)
    assert failed_tests(result) == ["test_inputs_not_modified"]
    assert "modified its input `x` in place" in failures(result)[0].message
