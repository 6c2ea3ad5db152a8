"""The exercise 7 suite (grouped-query attention) grades right and wrong submissions as it should."""

from conftest import EXERCISES, SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import diagnosed, graded

FOLDER = SUBMISSIONS / "exercise7"

REPEAT_KV = {"test_repeat_kv_values", "test_repeat_kv_group_sizes", "test_repeat_kv_input_not_modified",
             "test_repeat_kv_gradients"}
GQA = {"test_gqa_parameters", "test_gqa_matches_reference", "test_gqa_float64", "test_gqa_no_peeking",
       "test_gqa_explicit_mask", "test_gqa_single_token", "test_gqa_large_scores", "test_gqa_fully_masked_rows",
       "test_gqa_input_not_modified", "test_gqa_gradients", "test_gqa_gradients_fully_masked_rows",
       "test_gqa_on_the_inputs_device"}
HALF = {"test_repeat_kv_half_precision", "test_gqa_half_precision"}


def failing(result):
    """The full names (parameters included) of the tests that failed on their own (conftest.failures)."""
    return {t.name for t in failures(result)}


def message(result, name):
    return next(t.message for t in result.tests if t.name == name)


def test_solution_scores_full_marks(grade):
    result = graded(grade, 7, SOLUTIONS / "exercise7_gqa.py")
    assert failing(result) == set()
    assert result.passed and result.score == result.max_score
    assert 15 <= result.max_score <= 40
    assert {t.name.split("[")[0] for t in result.tests} == REPEAT_KV | GQA | HALF
    assert len(result.tests) < 40 + 18  # the CUDA cases are collected (and skipped) on a CPU run too


def test_stub_fails_every_test(grade):
    assert failed_tests(graded(grade, 7, EXERCISES / "exercise7_gqa.py")) == sorted(REPEAT_KV | GQA | HALF)


def test_repeat_instead_of_repeat_interleave(grade):
    result = graded(grade, 7, FOLDER / "wrong_repeat_not_interleave.py")
    # MQA (one KV head) and MHA (n_rep = 1) cannot tell repeat from repeat_interleave; causality holds
    assert failing(result) == {
        "test_repeat_kv_values[cpu-float32]", "test_repeat_kv_values[cpu-float64]",
        "test_repeat_kv_group_sizes[4kv-x2]", "test_repeat_kv_gradients[cpu]",
        "test_gqa_matches_reference[cpu-GQA-6q-2kv]", "test_gqa_matches_reference[cpu-GQA-6q-3kv]",
        "test_gqa_float64[cpu]", "test_gqa_explicit_mask[cpu]", "test_gqa_single_token[cpu]",
        "test_gqa_large_scores", "test_gqa_fully_masked_rows", "test_gqa_gradients[cpu]",
        "test_gqa_gradients_fully_masked_rows[cpu]", "test_repeat_kv_half_precision[cpu]",
        "test_gqa_half_precision[cpu]",
    }
    # head 1 of 6 is KV head 1 (tiled), not KV head 0 (interleaved)
    assert message(result, "test_repeat_kv_values[cpu-float32]").startswith(
        "repeat_kv(x, 3) with 2 KV heads is wrong at [0, 1, 0, 0]")
    assert " is wrong at " in message(result, "test_gqa_matches_reference[cpu-GQA-6q-3kv]")
    # wrong values explain the wrong gradients
    assert message(result, "test_gqa_gradients[cpu]").startswith("GroupedQueryAttention(18, 6, 2)(x) is wrong at")


def test_repeat_along_the_sequence_dim(grade):
    result = graded(grade, 7, FOLDER / "wrong_repeat_sequence_dim.py")
    assert failing(result) == {
        "test_repeat_kv_values[cpu-float32]", "test_repeat_kv_values[cpu-float64]",
        "test_repeat_kv_group_sizes[MQA]", "test_repeat_kv_group_sizes[4kv-x2]", "test_repeat_kv_gradients[cpu]",
        "test_gqa_matches_reference[cpu-GQA-6q-2kv]", "test_gqa_matches_reference[cpu-GQA-6q-3kv]",
        "test_gqa_matches_reference[cpu-MQA-4q-1kv]", "test_gqa_float64[cpu]", "test_gqa_no_peeking[cpu]",
        "test_gqa_explicit_mask[cpu]", "test_gqa_single_token[cpu]", "test_gqa_large_scores",
        "test_gqa_fully_masked_rows", "test_gqa_input_not_modified[cpu]", "test_gqa_gradients[cpu]",
        "test_gqa_gradients_fully_masked_rows[cpu]",
        "test_gqa_on_the_inputs_device[cpu]", "test_repeat_kv_half_precision[cpu]", "test_gqa_half_precision[cpu]",
    }
    text = message(result, "test_repeat_kv_values[cpu-float64]")
    assert "(4, 2, 15, 7), expected (4, 6, 5, 7) (axis -3 is 2 not 6, axis -2 is 15 not 5)" in text
    assert "has shape (4, 2, 15, 7), expected (4, 6, 5, 7)" in message(result, "test_repeat_kv_gradients[cpu]")
    # the module's own crash is reported as the student's error, with their line
    crash = next(t for t in result.tests if t.name == "test_gqa_float64[cpu]")
    assert crash.status == "error" and crash.message.startswith("your code raised RuntimeError")


def test_forgotten_causal_mask(grade):
    result = graded(grade, 7, FOLDER / "wrong_no_causal_mask.py")
    # an explicit mask, or a single token, hides the mistake
    assert failing(result) == {
        "test_gqa_matches_reference[cpu-GQA-6q-2kv]", "test_gqa_matches_reference[cpu-GQA-6q-3kv]",
        "test_gqa_matches_reference[cpu-MQA-4q-1kv]", "test_gqa_matches_reference[cpu-MHA-5q-5kv]",
        "test_gqa_float64[cpu]", "test_gqa_no_peeking[cpu]", "test_gqa_large_scores", "test_gqa_gradients[cpu]",
        "test_gqa_half_precision[cpu]",
    }
    assert message(result, "test_gqa_matches_reference[cpu-MHA-5q-5kv]").startswith(
        "GroupedQueryAttention(15, 5, 5)(x) with x (2, 7, 15) is wrong at [0, 0, 0]")
    peek = message(result, "test_gqa_no_peeking[cpu]")
    assert "changing tokens 5..7 changed the output of token 0" in peek and "causal_mask(L)" in peek


def test_kv_projections_sized_like_q_proj(grade):
    result = graded(grade, 7, FOLDER / "wrong_kv_proj_full_size.py")
    # plain multi-head attention (n_kv_heads == n_heads) is all it gets right
    assert failing(result) == (
        {"test_gqa_parameters[GQA-6q-2kv]", "test_gqa_parameters[MQA-4q-1kv]",
         "test_gqa_matches_reference[cpu-GQA-6q-2kv]", "test_gqa_matches_reference[cpu-GQA-6q-3kv]",
         "test_gqa_matches_reference[cpu-MQA-4q-1kv]", "test_gqa_float64[cpu]", "test_gqa_no_peeking[cpu]",
         "test_gqa_explicit_mask[cpu]", "test_gqa_single_token[cpu]", "test_gqa_large_scores",
         "test_gqa_fully_masked_rows", "test_gqa_input_not_modified[cpu]", "test_gqa_gradients[cpu]",
         "test_gqa_gradients_fully_masked_rows[cpu]",
         "test_gqa_on_the_inputs_device[cpu]", "test_gqa_half_precision[cpu]"}
    )
    text = message(result, "test_gqa_parameters[GQA-6q-2kv]")
    assert "`k_proj.weight` has shape (18, 18), expected (6, 18)" in text
    assert "so k_proj is smaller than q_proj" in text
    # the loading helper checks shapes before load_state_dict, so no test shows torch's own error
    assert all("size mismatch" not in t.message for t in result.tests)
    assert all(t.status == "failed" for t in result.tests if t.status not in ("passed", "skipped"))


def test_misnamed_and_biased_layers(grade):
    source = (SOLUTIONS / "exercise7_gqa.py").read_text()
    renamed = source.replace("self.o_proj", "self.out")
    result = grade(7, renamed)
    assert failed_tests(result) == sorted(GQA | {"test_gqa_half_precision"})
    assert "has no parameter `o_proj.weight` (it has k_proj.weight, out.weight, q_proj.weight, v_proj.weight)" in (
        message(result, "test_gqa_parameters[MHA-5q-5kv]"))
    biased = source.replace("self.q_proj = nn.Linear(d_model, n_heads * self.d_head, bias=False)",
                            "self.q_proj = nn.Linear(d_model, n_heads * self.d_head)")
    assert biased != source
    result = grade(7, biased)
    assert failed_tests(result) == sorted(GQA | {"test_gqa_half_precision"})
    assert "`q_proj.bias`" in message(result, "test_gqa_gradients[cpu]")
    assert "bias=False" in message(result, "test_gqa_gradients[cpu]")


def test_nan_for_a_fully_masked_query_is_explained(grade):
    source = (SOLUTIONS / "exercise7_gqa.py").read_text()
    careless = source.replace("        weights = weights.masked_fill(~mask, 0.0)", "        pass")
    assert careless != source
    result = grade(7, careless)
    assert failing(result) == {"test_gqa_fully_masked_rows", "test_gqa_gradients_fully_masked_rows[cpu]"}
    assert "must get zeros, not NaN" in message(result, "test_gqa_fully_masked_rows")
    assert diagnosed(result) == ["softmax-nan-on-masked-row"]


def test_nan_gradient_through_an_added_mask_is_explained(grade):
    """Right values, but torch.softmax's NaN on a fully masked row patched with nan_to_num: only the
    gradients show it, and their message names it."""
    result = graded(grade, 7, FOLDER / "wrong_additive_mask_nan_to_num.py")
    assert failing(result) == {"test_gqa_gradients_fully_masked_rows[cpu]"}
    text = message(result, "test_gqa_gradients_fully_masked_rows[cpu]")
    assert " has NaN " in text and "with finite gradients" in text and "masked_fill stops it" in text
    assert diagnosed(result) == ["nan-gradient-on-masked-row"]
