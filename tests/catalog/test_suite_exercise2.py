"""The exercise 2 suite grades what it should: full marks, zero, and each classic mistake caught."""

import importlib.util
import warnings

import pytest
import torch

import lumen_ref as ref
from grader import catalog
from conftest import SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import diagnosed, graded

HERE = SUBMISSIONS / "exercise2"
FILE = "exercise2_scoring.py"
ALL_TESTS = {
    "test_scores_values", "test_scores_napkin_example", "test_scores_shapes", "test_scores_zero_and_huge",
    "test_inputs_not_modified", "test_gradients", "test_half_precision",
}


def load_suite():
    path = catalog.find("exercise2").suite
    spec = importlib.util.spec_from_file_location("suite_exercise2", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its @pytest.mark.points is registered by the grader's plugin
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    return module


def status(result, name):
    return {test.name: test.status for test in result.tests}[name]


def messages(result, prefix):
    return [test.message for test in failures(result) if test.name.startswith(prefix)]


def test_napkin_numbers_are_the_chapters():
    suite = load_suite()
    scores = ref.attention_scores(torch.tensor(suite.NAPKIN_Q), torch.tensor(suite.NAPKIN_K))
    assert scores.tolist() == [[0, 5, 1, 2]]  # "cat" scores highest
    assert suite.NAPKIN_K[1] == [1, 2, 0]  # "cat"'s key is exactly the query


def test_solution_scores_full_marks(grade):
    result = graded(grade, 2, SOLUTIONS / FILE)
    assert result.passed, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.score == result.max_score
    assert 15 <= result.max_score <= 30
    ran = [t for t in result.tests if t.status != "skipped"]
    assert len(result.tests) < 40 and len(ran) >= 10
    assert any(t.visibility == "hidden" for t in ran)


def test_keys_times_queries_is_told_its_shape_is_transposed(grade):
    result = graded(grade, 2, HERE / "wrong_keys_times_queries.py")
    # only the not-modified check passes: every score matrix is (L_k, L_q)
    assert failed_tests(result) == sorted(ALL_TESTS - {"test_inputs_not_modified"})
    for message in messages(result, "test_"):
        assert "the right sizes in the wrong order, is a transpose missing or on the wrong axes?" in message
    [values32, _] = messages(result, "test_scores_values")
    assert values32.startswith("attention_scores(q, k) has shape (2, 3, 7, 5), expected (2, 3, 5, 7) (axis -2 is 7 "
                               "not 5, axis -1 is 5 not 7)")


def test_k_dot_T_fails_every_batched_input(grade):
    result = graded(grade, 2, HERE / "wrong_dot_T.py")
    assert failed_tests(result) == sorted(ALL_TESTS - {"test_scores_napkin_example"}
                                          | {"test_scores_stay_on_the_inputs_device"})
    assert status(result, "test_scores_shapes[no-batch]") == "passed"  # one (L, d) matrix: .T is fine
    [batch_of_one] = messages(result, "test_scores_shapes[batch-of-one]")
    assert "has shape (4, 3, 1), expected (1, 3, 4)" in batch_of_one
    # elsewhere, every size different, torch itself refuses the shapes, and the student sees where
    assert all("your code raised RuntimeError" in m for m in messages(result, "test_scores_values"))


def test_prescaled_scores_are_sent_to_exercise_3(grade):
    result = graded(grade, 2, HERE / "wrong_prescaled.py")
    assert failed_tests(result) == sorted(ALL_TESTS - {"test_inputs_not_modified"})
    [napkin] = messages(result, "test_scores_napkin_example")
    assert "is wrong at [0, 1]: got 2.88675, expected 5" in napkin  # 5 / √3
    assert "Step 3 (exercise 3)" in result.diagnoses[0]["message"]


def test_output_dtype_must_follow_the_input(grade):
    result = grade(2, source="""
        import torch

        def attention_scores(q, k):
            return q.double() @ k.double().transpose(-2, -1)
    """)
    # float64 inputs (values[float64], gradients) pass; every float32 one fails on the dtype
    assert failed_tests(result) == sorted(ALL_TESTS - {"test_inputs_not_modified", "test_gradients"})
    assert status(result, "test_scores_values[cpu-float64]") == "passed"
    [message] = messages(result, "test_scores_values")
    assert message == "attention_scores(q, k) is float64, expected float32 like its input: don't change the dtype"


def test_transposing_k_in_place_is_caught(grade):
    result = grade(2, source="""
        import torch

        def attention_scores(q, k):
            k.transpose_(-2, -1)  # the caller's k is now (..., d_k, L_k)
            return q @ k
    """)
    assert failed_tests(result) == ["test_gradients", "test_inputs_not_modified", "test_scores_stay_on_the_inputs_device"]
    [message] = messages(result, "test_inputs_not_modified")
    assert message.startswith("attention_scores(...) modified its input `k` in place")


def test_detached_scores_lose_the_gradient_points(grade):
    result = grade(2, source="""
        import torch

        def attention_scores(q, k):
            return (q @ k.transpose(-2, -1)).detach()
    """)
    assert failed_tests(result) == ["test_gradients"]
    [message] = messages(result, "test_gradients")
    assert "no gradient reached" in message and ".detach()" in message
    assert diagnosed(result) == ["no-gradient"]
