"""The exercise 6 suite (split_heads, merge_heads, MultiHeadAttention) on known submissions: the
solution, the stub, student-style mistakes that must fail exactly where expected, and correct
submissions written differently that must get full marks."""

import pytest

from conftest import SUBMISSIONS, failed_tests, failures
from test_diagnoses import graded

FOLDER = SUBMISSIONS / "exercise6"
FILE = "exercise6_multihead.py"

FORWARD = {"test_forward_values", "test_forward_shapes", "test_gradients", "test_one_module_at_several_lengths"}

# a mistake in the values shows in float16 and bfloat16 too
HALF = {"test_half_precision"}

# submission -> (the tests it must fail, (a test, a phrase its message must contain))
WRONG = {
    "wrong_split_no_transpose": (
        HALF | FORWARD | {"test_split_heads_values", "test_split_heads_shapes", "test_merge_undoes_split",
                          "test_split_merge_gradients", "test_no_peeking_at_the_future", "test_explicit_mask",
                          "test_fully_masked_rows"},
        ("test_split_heads_values", "split_heads(x of shape (2, 5, 12), 3) is wrong at [0, 0, 1, 0]"),
    ),
    "wrong_merge_no_transpose": (
        HALF | FORWARD | {"test_merge_heads_values", "test_merge_heads_shapes", "test_merge_undoes_split",
                          "test_split_merge_gradients", "test_no_peeking_at_the_future", "test_explicit_mask",
                          "test_fully_masked_rows"},
        ("test_merge_heads_values", "merge_heads(x of shape (2, 3, 5, 4)) is wrong at [0, 0, 4]"),
    ),
    "wrong_nan_on_fully_masked_rows": (
        {"test_fully_masked_rows"},
        ("test_fully_masked_rows", "must read nothing (zeros from attention, so out's bias after W_O), not NaN"),
    ),
    "wrong_no_causal_mask": (
        HALF | FORWARD | {"test_no_peeking_at_the_future"},
        ("test_no_peeking_at_the_future", "changing tokens 4 and 5 changed the output at position 0"),
    ),
    "wrong_qkv_order": (
        HALF | FORWARD | {"test_explicit_mask", "test_fully_masked_rows"},
        ("test_forward_values", "MultiHeadAttention(12, 3)(x) is wrong at [0, 1, 0]"),
    ),
    "wrong_scale_d_model": (
        HALF | FORWARD | {"test_explicit_mask", "test_fully_masked_rows"},
        ("test_explicit_mask", "MultiHeadAttention(12, 3)(x, mask) with "),
    ),
    "wrong_mask_buffer_ignores_mask": (
        {"test_explicit_mask", "test_fully_masked_rows"},
        ("test_explicit_mask", "MultiHeadAttention(12, 3)(x, mask) with "),
    ),
    "wrong_mask_buffer_in_state_dict": (
        {"test_constructor_parameters"},
        ("test_constructor_parameters", "persistent=False"),
    ),
}



def messages(result, test):
    return [t.message for t in failures(result) if t.name.split("[")[0] == test]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_submission_fails_where_expected(grade, name):
    expected, (test, phrase) = WRONG[name]
    result = graded(grade, 6, FOLDER / f"{name}.py")
    assert set(failed_tests(result)) == expected
    found = messages(result, test)
    assert found and all(phrase in message for message in found), found


def test_explicit_mask_ignored_is_named(grade):
    result = graded(grade, 6, FOLDER / "wrong_mask_buffer_ignores_mask.py")
    assert "Your forward attends with its own causal mask even when it is given one" in result.diagnoses[0]["message"]
