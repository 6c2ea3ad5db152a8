"""What the allocation probe counts (grader.perf.probe), as round 22 found it wanting: a convolution
is a product (three 1x1 convolutions passed for one product), and a storage an operation was given
is no allocation of the call's (a buffer made at import and written in place at every call put a
floor under every size the probe read), and the (L_q, L_k) rule reads every shape a call made, not
only its largest."""

import pytest

from conftest import ROOT, failed_tests, failures

SOLUTIONS = ROOT / "solutions"
ROUND22 = ROOT / "tests" / "attacks" / "round22"


def test_products_written_as_convolutions_are_counted(grade):
    """The three projections as 1x1 convolutions: 0 products counted before, now 3."""
    result = grade("exercise1", source=(SOLUTIONS / "exercise1_projection.py").read_text() + """

import torch.nn.functional as _F


def fused_project(x, w_qkv):
    rows = x.reshape(-1, *x.shape[-2:]).transpose(1, 2)  # (batch, d_model, L)
    return tuple(_F.conv1d(rows, w.T[:, :, None]).transpose(1, 2).reshape(*x.shape[:-1], w.size(-1))
                 for w in w_qkv.chunk(3, dim=-1))
""")
    failed = {test.name: test.message for test in failures(result)}
    assert set(failed) == {"test_fused_project_is_one_matrix_product"}, failed
    assert "ran 3 matrix products" in failed["test_fused_project_is_one_matrix_product"]


@pytest.mark.parametrize("exercise, attack, rule", [
    ("exercise1", "a2_ex1_three_products_one_counted", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "a11_fixed_buffer_whole_matrix", "test_tiled_attention_never_holds_the_whole_matrix"),
])
def test_round_22_rule_breakers_lose_the_rule_points(grade, exercise, attack, rule):
    """a2: three 1x1 convolutions and one product beside them; a11: whole rows of scores, one head at a
    time, under a buffer made at import and zeroed in place at every call. Each had full marks; each
    loses its rule's points, and only those."""
    result = grade(exercise, path=next((ROUND22 / attack).glob("exercise*.py")))
    assert {test.name for test in failures(result)} == {rule}, failed_tests(result)
