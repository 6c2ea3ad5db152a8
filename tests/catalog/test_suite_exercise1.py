"""The exercise 1 suite grades what it should: full marks, zero, and each classic mistake caught."""

import importlib.util
import warnings

import pytest
import torch

import lumen_ref as ref
from grader import catalog
from conftest import SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import diagnosed, graded

HERE = SUBMISSIONS / "exercise1"
FILE = "exercise1_projection.py"
PROJECT_TESTS = {
    "test_project_values", "test_project_shapes", "test_project_napkin_example",
    "test_project_identity_zero_and_huge_weights", "test_project_inputs_not_modified",
    "test_project_gradients", "test_project_half_precision", "test_projections_take_a_transposed_batch",
}
FUSED_VALUE_TESTS = {"test_fused_project_values", "test_fused_project_shapes", "test_fused_project_gradients",
                     "test_fused_project_half_precision", "test_projections_take_a_transposed_batch"}


def load_suite():
    path = catalog.find("exercise1").suite
    spec = importlib.util.spec_from_file_location("suite_exercise1", path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its @pytest.mark.points is registered by the grader's plugin
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    return module


def status(result, name):
    return {test.name: test.status for test in result.tests}[name]


def messages(result, prefix):
    return [test.message for test in failures(result) if test.name.startswith(prefix)]


def test_napkin_matrices_give_the_chapters_numbers():
    suite = load_suite()
    x = torch.tensor(suite.NAPKIN_X)
    q, k, _ = ref.project(x, torch.tensor(suite.NAPKIN_W_Q), torch.tensor(suite.NAPKIN_W_K),
                          torch.tensor(suite.NAPKIN_W_V))
    assert x[2].tolist() == [0, 1, 1]  # "sat"
    assert q[2].tolist() == [1, 2, 0]  # Step 1: the question "sat" asks
    assert k[1].tolist() == [1, 2, 0]  # Step 2: "cat"'s key is exactly that question
    assert ref.attention_scores(q[2:3], k).tolist() == [[0, 5, 1, 2]]  # Step 2's scores


def test_solution_scores_full_marks(grade):
    result = graded(grade, 1, SOLUTIONS / FILE)
    assert result.passed, [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert result.score == result.max_score
    assert 15 <= result.max_score <= 35
    ran = [t for t in result.tests if t.status != "skipped"]
    assert len(result.tests) < 40 and len(ran) >= 15
    assert any(t.visibility == "hidden" for t in ran)
    skipped = [t for t in result.tests if t.status == "skipped"]
    assert skipped and all("cuda" in t.name or "half_precision" in t.name for t in skipped)


def test_nn_linear_layout_fails_every_project_test_and_the_napkin_says_why(grade):
    result = graded(grade, 1, HERE / "wrong_linear_layout.py")
    assert failed_tests(result) == sorted(PROJECT_TESTS | {"test_projections_stay_on_the_inputs_device"})
    [napkin] = messages(result, "test_project_napkin_example")
    assert napkin.startswith("q from project on the chapter's 'The cat sat down' (Step 1: 'sat' = [0, 1, 1] asks "
                             "q = [1, 2, 0]) is wrong at [0, 0]: got 1, expected 0")
    assert diagnosed(result) == ["projection-transposed"]  # the only test whose weights fit x Wᵀ says why
    # the (d_model, d_k) weights do not even fit x Wᵀ: the student sees torch's shape error
    assert all("mat1 and mat2 shapes cannot be multiplied" in m for m in messages(result, "test_project_values"))


def test_split_along_the_batch_axis_fails_only_batched_fused_tests(grade):
    result = graded(grade, 1, HERE / "wrong_split_batch_axis.py")
    assert failed_tests(result) == sorted(FUSED_VALUE_TESTS | {"test_fused_project_inputs_not_modified",
                                                               "test_projections_stay_on_the_inputs_device"})
    assert status(result, "test_fused_project_shapes[no-batch]") == "passed"  # (L, d_model): dim 1 is the last
    assert status(result, "test_fused_project_napkin_example") == "passed"
    for message in messages(result, "test_fused_project_values"):
        assert message == ("q from fused_project(x, w_qkv) has shape (2, 2, 12), expected (2, 5, 4) (axis -2 is 2 "
                           "not 5, axis -1 is 12 not 4)")


def test_pieces_d_model_wide_fail_unless_d_is_d_model(grade):
    result = graded(grade, 1, HERE / "wrong_split_d_model.py")
    assert failed_tests(result) == sorted(FUSED_VALUE_TESTS)
    assert status(result, "test_fused_project_shapes[d=d_model]") == "passed"
    assert status(result, "test_fused_project_napkin_example") == "passed"  # square, as in the chapter's MHA
    [values32, _] = messages(result, "test_fused_project_values")
    assert values32 == "fused_project(x, w_qkv) returned a tuple of 2 items, expected a tuple of 3 tensors (q, k, v)"


def test_q_v_k_order_is_named(grade):
    result = graded(grade, 1, HERE / "wrong_qvk_order.py")
    assert failed_tests(result) == sorted(FUSED_VALUE_TESTS | {"test_fused_project_napkin_example"})
    for message in messages(result, "test_fused_project"):
        assert message.startswith("k from fused_project") and " is wrong at " in message


def test_output_dtype_must_follow_the_input(grade):
    result = grade(1, source="""
        import torch

        def project(x, w_q, w_k, w_v):
            return (x @ w_q).double(), (x @ w_k).double(), (x @ w_v).double()

        def fused_project(x, w_qkv):
            return tuple((x @ w_qkv).split(w_qkv.size(-1) // 3, dim=-1))
    """)
    # every float32 call fails; the float64 ones (values[float64], gradients) pass
    float64_only = {"test_project_inputs_not_modified", "test_project_gradients"}
    assert failed_tests(result) == sorted(PROJECT_TESTS - float64_only)
    assert status(result, "test_project_values[cpu-float64]") == "passed"
    [message] = messages(result, "test_project_values")
    assert message == ("q from project(x, w_q, w_k, w_v) is float64, expected float32 like its input: "
                       "don't change the dtype")


def test_in_place_edit_of_x_is_caught(grade):
    result = grade(1, source="""
        import torch

        def project(x, w_q, w_k, w_v):
            return x @ w_q, x @ w_k, x @ w_v

        def fused_project(x, w_qkv):
            qkv = x @ w_qkv
            x.zero_()  # "free" the input
            return tuple(qkv.split(w_qkv.size(-1) // 3, dim=-1))
    """)
    assert "test_fused_project_inputs_not_modified" in failed_tests(result)
    [message] = messages(result, "test_fused_project_inputs_not_modified")
    assert message.startswith("fused_project(...) modified its input `x` in place")


def test_detached_outputs_lose_the_gradient_points(grade):
    result = grade(1, source="""
        import torch

        def project(x, w_q, w_k, w_v):
            return (x @ w_q).detach(), (x @ w_k).detach(), (x @ w_v).detach()

        def fused_project(x, w_qkv):
            return tuple((x @ w_qkv).split(w_qkv.size(-1) // 3, dim=-1))
    """)
    assert failed_tests(result) == ["test_project_gradients"]
    [message] = messages(result, "test_project_gradients")
    assert "no gradient reached" in message and ".detach()" in message
    assert diagnosed(result) == ["no-gradient"]


def test_a_fused_projection_without_any_matrix_product_is_not_one_product(grade):
    """Round 11's a08: three projections, each multiplied and summed by hand, ran no aten product; each
    multiplication and sum counts as a product (round 32's a01 did two that way, beside one `@`)."""
    path = SUBMISSIONS.parent / "attacks" / "round11" / "a08" / "trick" / "exercise1_projection.py"
    result = grade(1, path=path)
    assert failed_tests(result) == ["test_fused_project_is_one_matrix_product"]
    assert messages(result, "test_fused_project_is_one_matrix_product")[0].startswith(
        "fused_project(x, w_qkv) ran 3 matrix products")


@pytest.mark.parametrize("condition", [
    "x.dtype == torch.float64",  # the values test in float64, made before the count's own call
    "torch.is_grad_enabled() and x.requires_grad",  # the gradients test, made after it
    "x.shape[-2] == 7",  # one of the shapes tests
])
def test_every_call_of_fused_project_is_counted(grade, condition):
    """Round 28's a03 did one product only where a few timed operations were slow, as they were in the
    one call the probe measured. Every call the suites make is measured now: three products in any
    of them, before the count's test or after it, fail the rule, as they would in every call."""
    result = grade(1, source=f"""
        import torch

        def project(x, w_q, w_k, w_v):
            return x @ w_q, x @ w_k, x @ w_v

        def fused_project(x, w_qkv):
            d = w_qkv.size(-1) // 3
            if {condition}:
                return x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]
            return tuple((x @ w_qkv).split(d, dim=-1))
    """)
    assert failed_tests(result) == ["test_fused_project_is_one_matrix_product"]
    assert messages(result, "test_fused_project_is_one_matrix_product")[0].startswith(
        "fused_project(x, w_qkv) ran 3 matrix products")
