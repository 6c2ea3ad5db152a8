"""Fair verdicts on honest code: tolerances from the maths, gradients where the contract defines them.

Every file of tests/honest/exerciseN/ is a correct answer written another way than the reference;
each is graded through its exercise's suite and must get full marks (an exercise without its own
folder there is graded on its solution instead, conftest.honest_corpus). The policy itself
(grader.grading.compare) is checked on the case that motivated it: a backward-stable softmax at scores
of 1e4 in float32 is further from the float64 answer than a fixed 1e-4 allows, yet within what
the input's magnitude lets any method promise.
"""

from pathlib import Path

import pytest
import torch

import lumen_ref as ref
from conftest import CORPUS_TIME_LIMIT, HONEST, SUBMISSIONS, honest_corpus
from grader import catalog
from grader.grading.compare import Mismatch, TOLERANCES, check_close, softmax_magnitude

CORPUS = honest_corpus()


def not_passed(result):
    return [(test.name, test.message) for test in result.tests if test.status not in ("passed", "skipped")]


@pytest.mark.parametrize("entry", CORPUS, ids=lambda entry: entry.id)
def test_an_honest_alternative_gets_full_marks(grade, entry):
    result = grade(entry.exercise.id, path=entry.path, time_limit=CORPUS_TIME_LIMIT)
    assert not_passed(result) == [] and result.score == result.max_score > 0


def test_the_corpus_covers_the_honest_variants_the_issue_names():
    sources = [entry.path.read_text() for entry in CORPUS if not entry.stand_in]
    for needle in ("torch.logsumexp", "log_softmax(", "einsum(", "torch.log(mask", ".masked_fill(~mask",
                   ".expand(", "repeat_interleave", "view(B, L, G, 1, d)"):
        assert any(needle in text for text in sources), needle
    assert {entry.exercise for entry in CORPUS} == set(catalog.EXERCISES)
    folders = {path.name for path in HONEST.iterdir() if path.is_dir()} | {
        path.name for path in SUBMISSIONS.iterdir() if path.is_dir()}
    assert folders <= {exercise.id for exercise in catalog.EXERCISES}, "a corpus folder of no exercise"


def logsumexp_softmax(x):
    return torch.exp(x - torch.logsumexp(x, dim=-1, keepdim=True))


HUGE = torch.tensor([[1e4, 1e4 - 1, 1e4 - 2.5, 0.0], [-1e4, -1e4 + 2, -1e4 - 1, -1e4], [1e4, -1e4, 0.0, 1e4]])


def test_a_backward_stable_softmax_at_1e4_needs_the_magnitude_term():
    x = HUGE.clone()
    got, want = logsumexp_softmax(x), ref.softmax(x.double())
    rtol, atol = TOLERANCES[torch.float32]
    assert not torch.isclose(got.double(), want, rtol=rtol, atol=atol).all()  # a fixed tolerance rejects it
    check_close(got, want, what="softmax", magnitude=softmax_magnitude(x.double(), want))  # the policy accepts it
    with pytest.raises(Mismatch):  # and still rejects a wrong answer there
        check_close(want.flip(-1).float(), want, what="softmax", magnitude=softmax_magnitude(x.double(), want))


def test_a_wrong_shape_in_a_gradient_check_is_named_not_blamed_on_the_judge(grade):
    result = grade(3, source='''
        import math

        def scale_scores(scores, d_k):
            return scores / math.sqrt(d_k)

        def scaled_scores(q, k):  # the transpose of the right answer
            return k @ q.transpose(-2, -1) / math.sqrt(q.size(-1))
    ''')
    (test,) = [test for test in result.tests if test.name == "test_gradients[cpu]"]
    assert test.status == "failed"
    assert test.message == ("the gradients of scaled_scores(q, k) could not be checked: your output has shape "
                            "(2, 3, 5), expected (2, 5, 3)")


def test_module_gradients_with_a_wrong_shape_are_named_too(grade):
    source = (Path(__file__).resolve().parents[2] / "solutions" / "exercise6_multihead.py").read_text()
    source += "\n\nMultiHeadAttention.forward = lambda self, x, mask=None: self.qkv(x)  # (B, L, 3D)\n"
    result = grade(6, source=source)
    (test,) = [test for test in result.tests if test.name == "test_gradients[cpu]"]
    assert test.message.startswith("the gradients of MultiHeadAttention(12, 3)(x) could not be checked: "
                                   "your output has shape (2, 5, 36), expected (2, 5, 12)")


def test_a_float64_result_computed_through_float32_fails_and_is_told_so():
    """float64's tolerance is far below float32's rounding: a float32 step cannot pass as float64."""
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(8, 16, generator=gen, dtype=torch.float64), torch.randn(16, 8, generator=gen, dtype=torch.float64)
    want = a @ b
    check_close(a.flip(0).flip(0) @ b, want, what="a @ b")  # float64 arithmetic: passes
    with pytest.raises(Mismatch, match="the size of float32 rounding"):
        check_close(want.float().double(), want, what="a @ b")  # rounded once to float32: within 6e-8
    with pytest.raises(Mismatch) as wrong_formula:
        check_close(want * 1.01, want, what="a @ b")
    assert "float32" not in wrong_formula.value.message  # a real mistake is not blamed on precision


def test_an_epsilon_in_a_denominator_is_told_apart_from_float32_rounding():
    """An epsilon shrinks each row by its own factor, ε / (sum + ε), largest where the sum is small;
    float32 rounding is about 6e-8 relative on every value, of either sign; an error on a few values
    is neither."""
    gen = torch.Generator().manual_seed(1)
    numerators = torch.rand(4, 6, 5, generator=gen, dtype=torch.float64)
    sums = 1 + 5 * torch.rand(4, 6, 1, generator=gen, dtype=torch.float64)
    want = numerators / sums
    with pytest.raises(Mismatch) as epsilon:
        check_close(numerators / (sums + 1e-8), want, what="o / l")
    assert "an epsilon (about 1e-08) added to a denominator, or a clamp on it" in epsilon.value.message
    assert "a step of yours computes in float32" not in epsilon.value.message
    with pytest.raises(Mismatch) as clamp:
        check_close(numerators / (sums + 5e-10), want, what="o / l")
    assert "an epsilon (about 1e-09)" in clamp.value.message
    with pytest.raises(Mismatch, match="the size of float32 rounding"):
        check_close(want.float().double(), want, what="o / l")
    few = want.clone()
    few[0, 0, :2] *= 1 + 1e-8  # two values off, the rest exact: no cause to name
    with pytest.raises(Mismatch) as neither:
        check_close(few, want, what="o / l")
    assert "epsilon" not in neither.value.message and "float32" not in neither.value.message



def test_one_common_factor_is_one_rounded_number_or_a_constant_in_a_divisor():
    """Every value shrunk by the same factor is no row's epsilon: within float32's rounding of one
    number (2^-24) it is a divisor made in float32 (round 5's wrong_full_without_device); beyond it,
    a small constant added to a divisor."""
    gen = torch.Generator().manual_seed(2)
    scores = torch.rand(3, 5, 7, generator=gen, dtype=torch.float64) + 0.5
    divisor = torch.tensor(130.0, dtype=torch.float64).sqrt()
    rounded = divisor.float().double()
    assert rounded > divisor  # this seed's case: rounding up shrinks every value
    with pytest.raises(Mismatch) as one_number:
        check_close(scores / rounded, scores / divisor, what="scale_scores(scores, 130)")
    assert "one number rounded to float32" in one_number.value.message
    assert "epsilon" not in one_number.value.message
    with pytest.raises(Mismatch) as constant:
        check_close(scores / (divisor + 1e-6), scores / divisor, what="scale_scores(scores, 130)")
    assert "a small constant" in constant.value.message and "float32 rounding" not in constant.value.message


def test_one_common_factor_of_a_round_power_of_ten_is_an_epsilon():
    """Every value times 1 - 1e-8 exactly: what an epsilon of 1e-8 over a sum of 1 gives (lucidrains'
    attention with scores so large that one dominates every row), within float32's rounding of one
    number but a round power of ten, which that rounding would not make."""
    want = torch.linspace(-2.0, 2.0, 42, dtype=torch.float64).reshape(2, 3, 7)
    with pytest.raises(Mismatch) as epsilon:
        check_close(want / (1 + 1e-8), want, what="tiled_attention(q, k, v, block_size=4)")
    assert "an epsilon (1e-08) added to a divisor of about 1" in epsilon.value.message
    assert "one number rounded to float32" not in epsilon.value.message
    assert epsilon.value.details["cause"] == "epsilon-in-divisor"


def test_a_gradient_off_by_a_tiny_amount_is_given_no_cause():
    """A gradient's error has no row structure: an epsilon in the forward pass spreads through it
    unlike float32 rounding or a row factor, so its check names neither (the forward check does)."""
    want = torch.linspace(0.5, 2.0, 24, dtype=torch.float64).reshape(4, 6)
    with pytest.raises(Mismatch) as gradient:
        check_close(want.float().double(), want, what="the gradient of softmax(x) w.r.t. x", tiny_causes=False)
    assert "float32" not in gradient.value.message and "epsilon" not in gradient.value.message
