"""The exercise 4 suite grades what it should: full marks, zero, and each classic mistake caught."""

import pytest

from conftest import SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import diagnosed, graded

HERE = SUBMISSIONS / "exercise4"
FILE = "exercise4_masking.py"
APPLY_VALUE_TESTS = {
    "test_apply_mask_values", "test_apply_mask_padding_broadcast", "test_apply_mask_queries_ne_keys",
    "test_apply_mask_fully_masked_rows", "test_apply_mask_keeps_huge_and_zero_scores", "test_apply_mask_half_precision",
}
CORRECT_CAUSAL = """
    import torch

    def causal_mask(L, device=None):
        return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))
"""
CORRECT_APPLY = """
    def apply_mask(scores, mask):
        return scores.masked_fill(~mask, float("-inf"))
"""
CORRECT_PADDING = """
    def padding_mask(lengths, L):
        return (torch.arange(L, device=lengths.device) < lengths[:, None])[:, None, :]
"""


def status(result, name):
    return {test.name: test.status for test in result.tests}[name]


def messages(result, prefix):
    return [test.message for test in failures(result) if test.name.startswith(prefix)]


def test_solution_scores_full_marks(grade):
    result = graded(grade, 4, SOLUTIONS / FILE)
    assert result.passed, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.score == result.max_score
    assert 15 <= result.max_score <= 30
    ran = [t for t in result.tests if t.status != "skipped"]
    assert len(result.tests) < 40 and len(ran) >= 15
    assert {t.name for t in ran if t.visibility == "hidden"} == {
        "test_apply_mask_fully_masked_rows", "test_apply_mask_keeps_huge_and_zero_scores",
        "test_padding_mask[cpu-L=1]",
    }


def test_inverted_causal_mask_fails_and_peeks(grade):
    result = graded(grade, 4, HERE / "wrong_inverted_causal.py")
    assert failed_tests(result) == ["test_causal_mask", "test_no_peeking_at_the_future"]
    [_, four, seven] = messages(result, "test_causal_mask")
    assert four == "causal_mask(4, device='cpu') is wrong at [0, 0]: got False, expected True; 16 of 16 entries differ"
    assert seven == four.replace("causal_mask(4", "causal_mask(7").replace("16 of 16", "49 of 49")
    [peek] = messages(result, "test_no_peeking_at_the_future")
    assert "still sees key" in peek and "no peeking at the future" in peek


def test_missing_diagonal_fails_only_the_mask_tests(grade):
    result = graded(grade, 4, HERE / "wrong_no_diagonal.py")
    # token i cannot read itself, but it cannot read the future either: no-peeking passes
    assert failed_tests(result) == ["test_causal_mask"]
    for message in messages(result, "test_causal_mask"):
        assert "is wrong at [0, 0]: got False, expected True" in message


def test_masked_fill_with_underscore_changes_the_callers_scores(grade):
    result = graded(grade, 4, HERE / "wrong_in_place.py")
    assert failed_tests(result) == ["test_apply_mask_gradients", "test_apply_mask_not_in_place"]
    [message] = messages(result, "test_apply_mask_not_in_place")
    assert message.startswith("apply_mask(...) modified its input `scores` in place") and "masked_fill_" in message
    assert "became -inf" in message


def test_minus_1e9_is_refused(grade):
    result = graded(grade, 4, HERE / "wrong_minus_1e9.py")
    # the gradient is the same as with -inf, so those points stay
    assert failed_tests(result) == sorted(APPLY_VALUE_TESTS)
    for test in failures(result):
        if test.name.startswith("test_apply_mask_half_precision"):  # bfloat16 rounds -1e9
            assert test.message.startswith("apply_mask(scores, mask) in bfloat16") and "expected -inf" in test.message
        else:
            assert "got -1e+09, expected -inf" in test.message, test.name


def test_padding_mask_without_the_query_axis(grade):
    result = graded(grade, 4, HERE / "wrong_padding_2d.py")
    assert failed_tests(result) == ["test_padding_mask"]
    [mixed, *_] = messages(result, "test_padding_mask")
    assert mixed == ("padding_mask(lengths=[3, 5, 1, 2], L=6) has shape (4, 6) (2 dims), expected (4, 1, 6) (3 dims): "
                     "axis 1 of size 1 is missing (which step of yours drops it, or never makes it?)")


def test_a_float_causal_mask_is_told_to_be_bool(grade):
    source = CORRECT_CAUSAL.replace("dtype=torch.bool, ", "") + CORRECT_APPLY + CORRECT_PADDING
    result = grade(4, source=source)
    assert "test_causal_mask" in failed_tests(result)
    [message] = messages(result, "test_causal_mask[cpu-L=4]")
    assert message.startswith("causal_mask(4, device='cpu') is float32, expected bool: a mask says yes or no")
    # no misconception of the catalogue: the message names the mistake, and so does the diagnosis
    assert [d["id"] for d in result.diagnoses] == ["mask-not-bool"] and "dtype=torch.bool" in result.diagnoses[0]["message"]


@pytest.mark.parametrize("apply, expected, diagnosis", [
    ('return scores.masked_fill(mask, float("-inf"))', "has -inf at 90 positions where a number is expected, "
     "first at [0, 0, 0, 0]: is something masked that may be seen", "mask-inverted"),
    ("return scores.masked_fill(~mask, 0.0)", "got 0, expected -inf", "mask-fill-zero"),
    ("return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)", "got -1.79769e+308, expected -inf",
     "mask-fill-finite"),
], ids=["inverted", "zero-fill", "finfo-min"])
def test_other_apply_mask_mistakes(grade, apply, expected, diagnosis):
    right = 'return scores.masked_fill(~mask, float("-inf"))'
    source = CORRECT_CAUSAL + CORRECT_APPLY.replace(right, apply) + CORRECT_PADDING
    result = grade(4, source=source)
    assert "test_apply_mask_values" in failed_tests(result)
    [_, values64] = messages(result, "test_apply_mask_values")
    assert expected in values64
    assert diagnosed(result) == [diagnosis]


@pytest.mark.parametrize("padding, expected, diagnosis", [
    ("return (torch.arange(L, device=lengths.device) >= lengths[:, None])[:, None, :]",
     "is wrong at [0, 0, 0]: got False, expected True", ["mask-inverted"]),
    ("return (torch.arange(L, device=lengths.device) < lengths[:, None]).float()[:, None, :]",
     "is float32, expected bool", ["mask-not-bool"]),
], ids=["inverted", "float-mask"])
def test_other_padding_mistakes(grade, padding, expected, diagnosis):
    right = "return (torch.arange(L, device=lengths.device) < lengths[:, None])[:, None, :]"
    source = CORRECT_CAUSAL + CORRECT_APPLY + CORRECT_PADDING.replace(right, padding)
    result = grade(4, source=source)
    assert failed_tests(result) == ["test_padding_mask"]
    assert all(expected in message for message in messages(result, "test_padding_mask[cpu-mixed]"))
    assert diagnosed(result) == diagnosis
