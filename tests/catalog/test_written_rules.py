"""Rules the stubs' docstrings state that no value of a single call shows, graded: files of the
independent corpora (tests/unseen/round5, round6) that broke only such a rule scored full marks
before these tests, and each must now fail exactly the test for its rule."""

from pathlib import Path

import pytest

from conftest import failed_tests
from test_diagnoses import graded

UNSEEN = Path(__file__).resolve().parents[1] / "unseen"
ROUND5 = UNSEEN / "round5"

# corpus file -> (exercise, the one test it must fail)
BROKEN_RULES = {
    "exercise1/wrong_fused_three_products.py": (1, "test_fused_project_is_one_matrix_product"),
    "exercise6/wrong_caches_first_mask.py": (6, "test_one_module_at_several_lengths"),
    "exercise8/wrong_reset_reallocates.py": (8, "test_kvcache_reset_keeps_its_storage"),
    "exercise9/wrong_previous_no_length_check.py": (9, "test_bad_shapes_raise_value_error"),
    # round 6: devices in exercises 1-3 (no tensor made there, so none was checked), an unbatched input
    "../round6/exercise1/wrong_zero_bias_cpu.py": (1, "test_projections_stay_on_the_inputs_device"),
    "../round6/exercise2/wrong_loop_cpu_buffer.py": (2, "test_scores_stay_on_the_inputs_device"),
    "../round6/exercise1/wrong_unsqueeze_inplace.py": (1, "test_project_inputs_not_modified"),
}


@pytest.mark.parametrize("name", sorted(BROKEN_RULES))
def test_a_broken_written_rule_fails_its_test(grade, name):
    exercise, test = BROKEN_RULES[name]
    assert failed_tests(graded(grade, exercise, ROUND5 / name)) == [test]


def test_repeat_kv_may_return_its_input_when_there_is_nothing_to_repeat(grade):
    """The docstring allows x itself for n_rep = 1 (as Hugging Face's repeat_kv does)."""
    result = graded(grade, 7, ROUND5 / "exercise7/honest_repeat_returns_input.py")
    assert result.score == result.max_score
