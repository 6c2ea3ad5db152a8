"""The exercise 4 suite grades what it should: full marks, zero, and each classic mistake caught."""

import pytest

from conftest import EXERCISES, SOLUTIONS, SUBMISSIONS, failed_tests

HERE = SUBMISSIONS / "exercise4"
FILE = "exercise4_masking.py"
APPLY_VALUE_TESTS = {
    "test_apply_mask_values", "test_apply_mask_padding_broadcast", "test_apply_mask_queries_ne_keys",
    "test_apply_mask_fully_masked_rows", "test_apply_mask_keeps_huge_and_zero_scores",
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
    return [test.message for test in result.tests
            if test.name.startswith(prefix) and test.status not in ("passed", "skipped")]


def test_solution_scores_full_marks(grade):
    result = grade(4, path=SOLUTIONS / FILE)
    assert result.passed, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.score == result.max_score
    assert 15 <= result.max_score <= 30
    ran = [t for t in result.tests if t.status != "skipped"]
    assert len(result.tests) < 40 and len(ran) >= 15
    assert {t.name for t in ran if t.visibility == "hidden"} == {
        "test_apply_mask_fully_masked_rows", "test_apply_mask_keeps_huge_and_zero_scores",
        "test_padding_mask[cpu-L=1]",
    }


def test_stub_scores_zero_and_says_not_implemented(grade):
    result = grade(4, path=EXERCISES / FILE)
    assert result.score == 0
    ran = [t for t in result.tests if t.status != "skipped"]
    assert ran and all(t.message.startswith("not implemented yet") for t in ran)


@pytest.mark.parametrize("name", ["alt_where_and_arange", "alt_clone_and_loops"])
def test_correct_alternatives_score_full_marks(grade, name):
    result = grade(4, path=HERE / f"{name}.py")
    assert result.passed, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.score == result.max_score


def test_inverted_causal_mask_is_explained_and_peeks(grade):
    result = grade(4, path=HERE / "wrong_inverted_causal.py")
    assert failed_tests(result) == ["test_causal_mask", "test_no_peeking_at_the_future"]
    [_, four, seven] = messages(result, "test_causal_mask")
    assert "True must mean 'may attend'" in four and "True above the diagonal" in four
    assert seven == four.replace("causal_mask(4", "causal_mask(7")
    [peek] = messages(result, "test_no_peeking_at_the_future")
    assert "still sees key" in peek and "no peeking at the future" in peek


def test_missing_diagonal_is_explained(grade):
    result = grade(4, path=HERE / "wrong_no_diagonal.py")
    # token i cannot read itself, but it cannot read the future either: no-peeking passes
    assert failed_tests(result) == ["test_causal_mask"]
    for message in messages(result, "test_causal_mask"):
        assert "the diagonal must be True" in message and "divide 0 by 0" in message


def test_masked_fill_with_underscore_changes_the_callers_scores(grade):
    result = grade(4, path=HERE / "wrong_in_place.py")
    assert failed_tests(result) == ["test_apply_mask_gradients", "test_apply_mask_not_in_place"]
    [message] = messages(result, "test_apply_mask_not_in_place")
    assert message.startswith("your code modified its input `scores` in place") and "masked_fill_" in message


def test_minus_1e9_is_refused_with_the_reason(grade):
    result = grade(4, path=HERE / "wrong_minus_1e9.py")
    # the gradient is the same as with -inf, so those points stay
    assert failed_tests(result) == sorted(APPLY_VALUE_TESTS)
    for message in messages(result, "test_apply_mask"):
        assert "masked scores must be -inf, not -1e+09" in message
        assert "uniform weights" in message and "float('-inf')" in message


def test_padding_mask_without_the_query_axis(grade):
    result = grade(4, path=HERE / "wrong_padding_2d.py")
    assert failed_tests(result) == ["test_padding_mask"]
    for message in messages(result, "test_padding_mask"):
        assert "must be (B, 1, L)" in message and "not (B, L)" in message and "mask[:, None, :]" in message


@pytest.mark.parametrize("causal, expected", [
    ("return torch.triu(torch.ones(L, L, dtype=torch.bool, device=device))",
     "on and below the diagonal (torch.tril), not on and above it (torch.triu)"),
    ("return torch.ones(L, L, dtype=torch.bool, device=device)", "every entry is True"),
    ("return torch.tril(torch.ones(L, L, device=device))", "is float32, expected bool"),
], ids=["upper-triangle", "all-true", "float-mask"])
def test_other_causal_mistakes(grade, causal, expected):
    right = "return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))"
    source = CORRECT_CAUSAL.replace(right, causal) + CORRECT_APPLY + CORRECT_PADDING
    result = grade(4, source=source)
    assert "test_causal_mask" in failed_tests(result)
    assert all(expected in message for message in messages(result, "test_causal_mask[cpu-L=4]"))


@pytest.mark.parametrize("apply, expected", [
    ('return scores.masked_fill(mask, float("-inf"))', "you put -inf where the mask is True"),
    ("return scores.masked_fill(~mask, 0.0)", "masked scores must be -inf, not 0: e^0 = 1"),
    ("return scores.masked_fill(~mask, torch.finfo(scores.dtype).min)",
     "masked scores must be -inf, not -1.79769e+308"),
    ("return scores * mask", "masked scores must be -inf, not 0"),
    ("return scores.clone()", "nothing was masked"),
], ids=["inverted", "zero-fill", "finfo-min", "multiply", "nothing"])
def test_other_apply_mask_mistakes(grade, apply, expected):
    right = 'return scores.masked_fill(~mask, float("-inf"))'
    source = CORRECT_CAUSAL + CORRECT_APPLY.replace(right, apply) + CORRECT_PADDING
    result = grade(4, source=source)
    assert "test_apply_mask_values" in failed_tests(result)
    [_, values64] = messages(result, "test_apply_mask_values")
    assert expected in values64


@pytest.mark.parametrize("padding, expected", [
    ("return (torch.arange(L, device=lengths.device) >= lengths[:, None])[:, None, :]", "the other way round"),
    ("return (torch.arange(L, device=lengths.device) <= lengths[:, None])[:, None, :]", "not j <= lengths[b]"),
    ("return (torch.arange(L, device=lengths.device) < lengths[:, None])[:, :, None]", "masks queries, not keys"),
    ("return (torch.arange(L) < lengths[:, None]).float()[:, None, :]", "is float32, expected bool"),
], ids=["inverted", "off-by-one", "query-axis-last", "float-mask"])
def test_other_padding_mistakes(grade, padding, expected):
    right = "return (torch.arange(L, device=lengths.device) < lengths[:, None])[:, None, :]"
    source = CORRECT_CAUSAL + CORRECT_APPLY + CORRECT_PADDING.replace(right, padding)
    result = grade(4, source=source)
    assert failed_tests(result) == ["test_padding_mask"]
    assert all(expected in message for message in messages(result, "test_padding_mask[cpu-mixed]"))
