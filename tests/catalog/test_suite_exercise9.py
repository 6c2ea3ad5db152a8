"""The exercise 9 suite (what heads learn) grades right and wrong submissions as it should, on inputs
that keep every score off the thresholds."""

import json
import warnings

import pytest
import torch

import lumen_ref as ref
from conftest import EXERCISES, ROOT, SOLUTIONS, SUBMISSIONS, failed_tests
from grader import oracle
from grader.reports import json_report, text as report
from grader.grading.results import GradeReport
from grader.sandbox import wire
from test_diagnoses import diagnosed, graded
from test_suite_exercise8 import failing, message

with warnings.catch_warnings():  # its marks are the grading plugin's, unknown here
    warnings.simplefilter("ignore")
    from grader.catalog.exercise9_head_patterns import test_exercise9 as suite

ATTACKS = ROOT / "tests" / "attacks"
FOLDER = SUBMISSIONS / "exercise9"
TOKENS = {"test_repeated_tokens_repeat", "test_repeated_tokens_use_the_generator",
          "test_repeated_tokens_cover_the_vocabulary"}
SCORES = {"test_previous_token_score_planted", "test_induction_score_planted", "test_scores_of_the_hand_set_model",
          "test_scores_leave_the_pattern_unchanged", "test_bad_shapes_raise_value_error",
          "test_scores_on_the_inputs_device"}
HEADS = {"test_find_heads_planted", "test_find_heads_of_the_hand_set_model", "test_find_heads_threshold",
         "test_find_heads_float64_on_device"}
HALF = {"test_scores_half_precision"}



def test_solution_scores_full_marks(grade):
    result = graded(grade, 9, SOLUTIONS / "exercise9_head_patterns.py")
    assert failing(result) == set() and result.passed and result.score == result.max_score == 31
    assert {t.name.split("[")[0] for t in result.tests} == TOKENS | SCORES | HEADS | HALF


def test_stub_fails_every_test(grade):
    assert failed_tests(graded(grade, 9, EXERCISES / "exercise9_head_patterns.py")) == sorted(TOKENS | SCORES | HEADS | HALF)


@pytest.mark.parametrize("seed", range(6))
def test_the_suites_scores_stay_off_the_thresholds(seed):
    """Planted heads score >= 0.55 for their job, every other head <= 0.25, whatever the seed (a head planted
    for both jobs, >= 0.45 for each: its weight is shared, and NOISE only adds to it); the hand-set model has
    exactly its two heads, and the mixed heads of the threshold test score 0.5, 0.25, 0.875 exactly, in
    float32 too."""
    rng = torch.Generator().manual_seed(seed)
    for case, kinds in (("previous", suite.PLANTED["previous"]), ("induction", suite.PLANTED["induction"]),
                        *((f"find[{n}]", layer) for n, layer in enumerate(suite.PLANTED["find"]))):
        size = suite.SIZES[case.split("[")[0]]
        assert size["n_heads"] == len(kinds)
        pattern = suite.planted(rng, size["B"], kinds, size["seq_len"], torch.float64)
        for kind, score in (("previous", oracle.previous_token_score(pattern)),
                            ("induction", oracle.induction_score(pattern, size["seq_len"]))):
            planted, both = torch.tensor([k == kind for k in kinds]), torch.tensor([k == "both" for k in kinds])
            assert (score[planted] >= 0.55).all() and (score[both] >= 0.45).all(), (case, kind, score)
            assert (score[~planted & ~both] <= 0.25).all(), (case, kind, score)
    _, patterns = suite.model_patterns(rng, torch.float64)
    assert oracle.find_heads(patterns) == {"previous_token": [(0, 1)], "induction": [(1, 2)]}
    for layer, pattern in enumerate(patterns):
        scores = [oracle.previous_token_score(pattern), oracle.induction_score(pattern, pattern.shape[-1] // 2)]
        assert all(abs(s - 0.4) > 0.15 for score in scores for s in score), (layer, scores)
    seq_len = suite.SIZES["threshold"]["seq_len"]
    for kind in ("previous", "induction"):
        mixed = suite.mixed(suite.SHARES, kind, 2 * seq_len, seq_len)[None].float()
        score = ref.previous_token_score(mixed) if kind == "previous" else ref.induction_score(mixed, seq_len)
        assert score.tolist() == list(suite.SHARES)


def test_a_generator_crosses_the_wire_in_its_state():
    generator = torch.Generator().manual_seed(4)
    torch.randn(3, generator=generator)  # not at its seed any more
    (copy,) = wire.decode(wire.encode([generator]))
    assert torch.equal(torch.randint(9, (5,), generator=copy), torch.randint(9, (5,), generator=generator))


@pytest.mark.parametrize("attack", ["round77/a03_find_heads_table", "round81/a02_find_heads_table"])
def test_a_table_of_the_answers_the_reports_print_scores_no_find_heads_test(grade, attack):
    """Round 77's a03: honest scores, and find_heads a table of the answers the reports printed, keyed by the
    suite's layouts (31/31): each layout is given again, its layers and heads in an order drawn anew at each
    grading; round 81's a02 found each head of that call in the one before it (torch.equal) and moved its
    answer along: the weight no score reads is spread anew too. Which tests a draw leaves the table right on
    varies; that it is right on all of them, about once in ten billion."""
    (path,) = (ATTACKS / attack / "sub").glob("*.py")
    result = grade(9, path=path)
    assert result.score < result.max_score and set(failed_tests(result)) <= HEADS, failed_tests(result)


def test_previous_token_off_by_one_draws_the_head(grade):
    result = graded(grade, 9, FOLDER / "wrong_previous_next_key.py")
    assert failed_tests(result) == sorted({"test_previous_token_score_planted", "test_scores_of_the_hand_set_model"}
                                          | HEADS | HALF)
    assert diagnosed(result) == ["previous-token-reads-next"]
    text = report.render_text(GradeReport([result], "cpu", 0))
    assert "      head 0's pattern   key i-1 from query i\n      █···········       ············\n" in text
    assert "      █░··········       █···········\n" in text  # query 1 on key 0, counted


def test_a_missed_head_is_named_and_drawn(grade):
    result = graded(grade, 9, FOLDER / "wrong_find_heads_head_layer.py")
    assert failed_tests(result) == sorted(HEADS) and diagnosed(result) == ["find-heads-head-layer-swapped"]
    text = message(result, "test_find_heads_of_the_hand_set_model")
    assert ("its 'previous_token' list is [(1, 0)], expected [(0, 1)]: (layer 0, head 1) is a previous-token head you missed "
            "(its previous-token score is 0.99") in text
    test = next(t for t in json.loads(json_report.render(GradeReport([result], "cpu", 0)))["exercises"][0]["tests"]
                if t["name"] == "test_find_heads_of_the_hand_set_model")
    picture = test["picture"]
    assert picture["titles"] == ["layer 0, head 1", "key i-1 from query i"] and picture["shape"] == [14, 14]
    assert picture["got"][5][4] == picture["expected"][5][4] > 0.9 and picture["got"][5][5] == 0


def test_a_head_on_the_threshold_is_not_kept(grade):
    result = graded(grade, 9, FOLDER / "wrong_find_heads_at_threshold.py")
    assert failed_tests(result) == ["test_find_heads_threshold"]
    assert [t.name for t in result.tests if t.status == "failed"] == ["test_find_heads_threshold[0.5-equal-to-a-score]"]
    assert ("(its previous-token score is 0.5, threshold 0.5): a head counts only when its score is strictly above "
            "the threshold, score > threshold") in message(result, "test_find_heads_threshold[0.5-equal-to-a-score]")


def test_heads_in_another_order_are_told_so(grade):
    source = (SOLUTIONS / "exercise9_head_patterns.py").read_text()
    by_score = source.replace("    return found\n", "    return {kind: found[kind][::-1] for kind in found}\n")
    assert by_score != source
    result = grade(9, by_score)
    assert failed_tests(result) == ["test_find_heads_float64_on_device", "test_find_heads_planted",
                                    "test_find_heads_threshold"]
    assert "the right heads, in another order; list them in (layer, head) order" in \
        message(result, "test_find_heads_planted")


def test_tokens_that_never_reach_the_last_id(grade):
    source = (SOLUTIONS / "exercise9_head_patterns.py").read_text()
    wrong = source.replace("torch.randint(vocab_size, (batch, seq_len)", "torch.randint(vocab_size - 1, (batch, seq_len)")
    assert wrong != source
    result = grade(9, wrong)
    assert failed_tests(result) == ["test_repeated_tokens_cover_the_vocabulary"]
    assert "expected every id 0 .. 3" in message(result, "test_repeated_tokens_cover_the_vocabulary")


def test_the_reference_passes_its_own_suite_inputs():
    """The expected values the suite compares with are the oracle's; the reference agrees on them."""
    rng = torch.Generator().manual_seed(0)
    _, patterns = suite.model_patterns(rng)
    assert ref.find_heads(patterns) == oracle.find_heads(patterns)


def test_a_heads_picture_keeps_its_titles_in_the_feedback_page():
    from grader.reports import html as feedback

    pattern = suite.planted(torch.Generator().manual_seed(0), 1, ("previous", "uniform"), 4)
    picture = suite.head_picture(pattern, 0, "previous_token", "head 0's pattern")
    html = "\n".join(feedback.heatmaps(picture))
    assert "<figcaption>head 0&#x27;s pattern</figcaption>" in html
    assert "<figcaption>key i-1 from query i</figcaption>" in html and "where yours differs" not in html
    assert "expected" not in report.picture_lines(picture)[1]
