"""Property tests (inputs left unchanged, the device kept, the memory held, one matrix product) pay
only once the function's answer is right: round 9's a14 file, which returns zeros shaped like its
first tensor argument from every function, earned 27 points from them, where the stubs earn 0."""

import importlib
from pathlib import Path

import pytest

from grader import catalog
from grader.grading import runner
from grader.grading.plugin import _withhold
from grader.grading import results
from grader.grading.settings import Settings

DO_NOTHING = Path(__file__).resolve().parents[1] / "attacks" / "round9" / "files" / "a14_do_nothing.py"


def test_code_that_computes_nothing_scores_nothing(launcher, tmp_path):
    for exercise in catalog.EXERCISES:
        (tmp_path / exercise.file_name).write_bytes(DO_NOTHING.read_bytes())
    report = runner.grade(list(catalog.EXERCISES), Settings(submission=tmp_path, device="cpu", perf=False),
                          launcher=launcher)
    assert {exercise.id: exercise.score for exercise in report.exercises} == {
        exercise.id: 0 for exercise in catalog.EXERCISES}
    withheld = [test for exercise in report.exercises for test in exercise.tests if "needs_values" in test.details]
    assert withheld and all(test.message.startswith("not scored yet") for test in withheld)


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda exercise: exercise.id)
def test_each_property_test_waits_on_value_tests_of_its_own_suite(exercise):
    suite = importlib.import_module(f"grader.catalog.{exercise.stem}.{exercise.suite.stem}")
    tests = {name for name in vars(suite) if name.startswith("test_")}
    marked = {name: marker for name, function in vars(suite).items() if name in tests
              for marker in getattr(function, "pytestmark", []) if marker.name == "needs_values"}
    assert marked, f"{exercise.id} has no property test marked needs_values"
    for name, marker in marked.items():
        needs = [*marker.args, *(need for names in marker.kwargs.values()
                                 for need in ((names,) if isinstance(names, str) else names))]
        assert needs and set(needs) <= tests - set(marked), (name, needs)


def result(name, status="passed", visibility="visible"):
    return results.TestResult(name=name, status=status, max_score=1.0, visibility=visibility)


def test_a_property_pays_only_where_a_value_test_passed_on_its_device():
    values_cpu, values_cuda = result("test_values[cpu]", "failed"), result("test_values[cuda]")
    hidden = result("test_huge[cpu]", "failed", visibility="hidden")
    kept_cpu, kept_cuda = result("test_kept[cpu]"), result("test_kept[cuda]")
    needs = ("test_values", "test_huge")
    _withhold([("test_values", "cpu", (), values_cpu), ("test_values", "cuda", (), values_cuda),
               ("test_huge", "cpu", (), hidden), ("test_kept", "cpu", needs, kept_cpu),
               ("test_kept", "cuda", needs, kept_cuda)])
    assert (kept_cpu.status, kept_cuda.status) == ("failed", "passed")
    assert "(test_values)" in kept_cpu.message and "test_huge" not in kept_cpu.message  # a hidden test's name stays hidden
    assert kept_cpu.details["needs_values"] == list(needs)


def test_a_value_test_without_a_device_counts_on_every_device():
    shapes, kept = result("test_shapes"), result("test_kept[cpu]")
    _withhold([("test_shapes", None, (), shapes), ("test_kept", "cpu", ("test_shapes",), kept)])
    assert kept.status == "passed"


ATTACKS = Path(__file__).resolve().parents[1] / "attacks"


@pytest.mark.parametrize("exercise, attempt, earned", [
    (3, "round57/a01_spread_randn", 0), (9, "round57/a02_find_heads_lookup", 0), (2, "round57/a03_napkin_unlocks", 2),
    (6, "round57/a04_merge_identity", 0), (4, "round58/a01_ex4_identity_grad", 0),
    (4, "round58/a02_ex4_blind_causal_mask", 14), (8, "round58/a03_ex8_counter_only_cache", 0)])
def test_noise_tables_identities_and_counters_earn_nothing(grade, exercise, attempt, earned):
    """Round 57: noise of spread 1 for exercise 3's scaled scores, a table of find_heads's answers (its layouts
    are the suite's own, the same at every seed) with the score functions left as stubs, the chapter's napkin
    answer for its input and zeros otherwise, `split_heads` and `merge_heads` as identities. Round 58: an
    identity `apply_mask` (its gradient through the softmax is a masked one's), a causal mask hiding every key
    beside a right `apply_mask` (it peeks at nothing: 14 is what `apply_mask` earns), a KV cache that only
    counts. Each earned points from a property test that computes nothing; now each waits on value tests, or
    says that no query reads anything. The napkin example keeps its own 2 points, the chapter's printed answer
    (credit for the worked example where batched values are wrong), and unlocks nothing."""
    (path,) = (ATTACKS / attempt / "sub").glob("*.py")
    result = grade(exercise, path=path)
    assert result.score == earned, [(test.name, test.status) for test in result.tests if test.status == "passed"]


@pytest.mark.parametrize("exercise, attempt, lost, named", [
    (5, "round61/a12_ex5_clamp_sum", {"test_half_precision"}, []),
    (5, "round61/a25_ex5_eps_add", {"test_half_precision"}, []),
    (5, "round61/a43_ex5_guard_lastdim", {"test_softmax_any_dim"}, []),
    (9, "round61/a41_ex9_elif", {"test_find_heads_planted", "test_find_heads_float64_on_device"}, []),
    (4, "round61/a52_ex4_two_mistakes", {"test_causal_mask", "test_masks_stay_on_the_inputs_device",
                                         "test_padding_mask"}, ["mask-excludes-diagonal", "padding-off-by-one"]),
    (5, "round65/a01_sdpa_finfo_min", {"test_fully_masked_rows", "test_gradients_with_fully_masked_row",
                                       "test_gradients_with_padding"}, ["mask-fill-finite"]),
    (8, "round65/a54_ex8_retnew_reset", {"test_kvcache_full_raises_value_error", "test_kvcache_half_precision",
                                         "test_kvcache_len", "test_kvcache_len_counts_tokens_whatever_their_values",
                                         "test_kvcache_reset", "test_kvcache_reset_keeps_its_storage",
                                         "test_kvcache_update_returns_everything"},  # (its storage rule: an
     ["kv-cache-update-returns-new", "kv-cache-reset-keeps-length"])])  # error, the module raising in its steps)
def test_round_61s_mistakes_lose_the_test_of_their_rule(grade, exercise, attempt, lost, named):
    """Round 61 (a tester of the verdicts): a softmax whose guard is an epsilon (NaN in float16 on a row with
    nothing to attend to), one guarded along the last axis only, a find_heads that puts a head in one list
    only, each at full marks; and two separate mistakes told as one either/or. Each loses its rule's test
    now, and the two mistakes are named apart. Round 65: a masked score filled with finfo.min, wrong in
    float32 too, is not charged again by the half-precision test (a01); a mistake in a cache's update beside
    one in its reset was dropped, the update's value differing on calls the reset's mistake changes nothing
    in (a54)."""
    (path,) = (ATTACKS / attempt / "sub").glob("*.py")
    result = grade(exercise, path=path)
    assert {test.name.split("[")[0] for test in result.tests if test.status == "failed"} == lost
    assert [diagnosis["id"] for diagnosis in result.diagnoses] == named


@pytest.mark.parametrize("exercise, attempt, lost", [
    (9, "round73/a01_induction_seq1", {"test_previous_token_score_planted", "test_induction_score_planted",
                                       "test_find_heads_planted"}),
    (10, "round73/a02_online_softmax_3d", {"test_online_softmax", "test_half_precision",
                                            "test_stays_on_the_inputs_device"}),
    (7, "round73/a03_gqa_perhead_mask", {"test_gqa_explicit_mask"}),
    (6, "round73/a04_mha_perhead_mask", {"test_explicit_mask"}),
    (10, "round75/a06_online_softmax_1d", {"test_online_softmax"}),
])
def test_inputs_the_docstrings_allow_are_graded(grade, exercise, attempt, lost):
    """Rounds 73 and 75: exercise 9's scores refusing seq_len = 1, exercise 10's online_softmax for 3-D (or not
    1-D) input only, attention that crashes on a per-head (B, H, L, L) mask: each at full marks, as no test
    used those inputs; each loses the tests that use them now, and only those."""
    (path,) = (ATTACKS / attempt / "sub").glob("*.py")
    result = grade(exercise, path=path)
    assert {test.name.split("[")[0] for test in result.tests if test.status in ("failed", "error")} == lost
