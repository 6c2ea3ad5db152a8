"""The hint ladder's level 2: the smallest example of a diagnosed mistake (grader.diagnosis.examples).

A wrong file's diagnosis carries an example far smaller than the failing test's sizes, whose values
really differ, that reproduces when the file is run again on it as the report holds it (JSON); a
file whose code loops or crashes on small sizes gets its diagnosis and grade, and no example; a
correct file gets none.
"""

import functools
import json
import math
from pathlib import Path

import pytest

from conftest import CORPUS_TIME_LIMIT, EXAMPLE_SECONDS, SOLUTIONS, SUBMISSIONS
from test_diagnoses import graded
from grader import catalog
from grader.diagnosis import examples, misconceptions
from grader.grading.settings import DEFAULTS
from grader.grading.student import Student


@pytest.fixture
def grade(grade):
    """The corpora's files graded with their own time limit (conftest.CORPUS_TIME_LIMIT): the search for
    a small example shares the exercise's deadline."""
    graded_here = functools.partial(grade, time_limit=CORPUS_TIME_LIMIT)
    graded_here.across_workers = grade.across_workers  # where test_diagnoses.graded finds the run's gradings
    return graded_here


@pytest.fixture
def roomy(monkeypatch):
    """The examples' time (examples.SECONDS, a guard against slow code) far above what they take."""
    monkeypatch.setattr(examples, "SECONDS", EXAMPLE_SECONDS)


KNOWN = {  # a mistake -> the function its example calls
    "exercise3/wrong_divide_by_dk.py": "scale_scores",
    "exercise4/wrong_triu.py": "causal_mask",
    "exercise5/wrong_naive_exp.py": "softmax",
    "exercise6/wrong_split_no_transpose.py": "split_heads",
    "exercise6/wrong_qkv_order.py": "MultiHeadAttention",
    "exercise8/wrong_cache_ignores_past.py": "CachedGroupedQueryAttention",
    "exercise8/wrong_reset_keeps_length.py": "KVCache",
    "exercise4/wrong_causal_on_cpu.py": "causal_mask",  # its own check redone: the stand-in for a GPU
    "exercise6/wrong_mask_on_cpu.py": "MultiHeadAttention",
    "exercise4/wrong_in_place.py": "apply_mask",  # and its inputs kept
    "exercise5/wrong_clamp_tiny.py": "softmax",  # right forward, NaN backward: its (visible) gradient check redone
    "exercise5/wrong_where_after_division.py": "softmax",
    "exercise10/wrong_where_after_division.py": "tiled_attention",
    "exercise7/wrong_kv_proj_full_size.py": "GroupedQueryAttention",  # its parameters: the constructor alone
    "exercise8/wrong_len_counts_nonzero_keys.py": "KVCache",  # a token of zeros
    "exercise8/wrong_storage_ignores_dtype.py": "KVCache",  # a cache made in float64: values that print alike
    "exercise10/wrong_cost_one_product.py": "attention_cost",  # a count
    "../unseen/round9/exercise10/wrong_crossover_returns_float.py": "crossover_length",  # 6.0 for 6
    "../unseen/round9/exercise9/wrong_prev_no_short_check.py": "previous_token_score",  # no ValueError where due
    "../unseen/round9/exercise9/wrong_repeat_interleave_tokens.py": "repeated_tokens",  # random: a rule it breaks
    "../unseen/round9/exercise9/wrong_randint_inclusive_high.py": "repeated_tokens",  # vocab_size 1: it raises
    "../unseen/round5/exercise1/wrong_fused_three_products.py": "fused_project",  # products counted by the probe
    "exercise3/wrong_returns_scores_at_width_one.py": "scale_scores",  # a new tensor due: its input returned
    "exercise10/wrong_bool_mask_before_the_loop.py": "tiled_attention",  # an (L_q, L_k) tensor, by the probe
    "../unseen/round11/exercise10/wrong_full_score_matrix.py": "tiled_attention",
    "../unseen/round11/exercise9/wrong_prev_no_square_check.py": "previous_token_score",  # a refusal no cut shows
    "../unseen/round10/exercise9/wrong_induction_no_shape_check.py": "induction_score",
    "exercise8/wrong_cache_ignores_device.py": "CachedGroupedQueryAttention",  # a scenario on the stand-in
    "exercise8/wrong_decode_mask_on_cpu.py": "CachedGroupedQueryAttention",
    "exercise8/wrong_update_concatenates.py": "KVCache",  # what its update allocates, by the probe
    "../unseen/round11/exercise8/wrong_no_grad_write.py": "CachedGroupedQueryAttention",  # backwards through a cache
    "../unseen/round11/exercise7/wrong_additive_mask_nan_grad.py": "GroupedQueryAttention",  # a module's gradient
    "../unseen/round11/exercise9/wrong_generator_ignored.py": "repeated_tokens",  # generators seeded alike
    "../unseen/round11/exercise3/wrong_scale_via_data.py": "scaled_scores",  # gradients one factor off
    "exercise6/wrong_mask_buffer_in_state_dict.py": "MultiHeadAttention",  # a buffer its state dict saves
    "../unseen/round12/exercise10/wrong_inplace_mask_probs.py": "tiled_attention",  # it raises backwards
}


def rerun(launcher, tmp_path, exercise, path, example):
    """Does the file, run again in a fresh sandboxed process on `example`, still differ from lumen_ref?"""
    student = Student(exercise, str(path), launcher, str(tmp_path), 20.0, DEFAULTS.memory_limit)
    try:
        return examples.reproduces(student, exercise, example)
    finally:
        student.close()


@pytest.mark.parametrize("name", KNOWN)
def test_a_known_mistake_gets_a_small_example_that_differs_and_reproduces(grade, launcher, tmp_path, name, roomy):
    path = SUBMISSIONS / name
    exercise = catalog.find(path.parent.name)
    result = graded(grade, exercise.id, path)  # the corpus's files: their grading shared with test_diagnoses.py
    [diagnosis] = result.diagnoses
    example = json.loads(json.dumps(diagnosis["example"], allow_nan=False))  # JSON as it is, no NaN literal
    assert example["function"] == KNOWN[name]
    assert all(size <= 4 for size in example["sizes"].values()), example["sizes"]
    assert example["got"] != example["expected"] or _printed_apart(example["text"]), example["text"]
    assert rerun(launcher, tmp_path, exercise, path, example)


def _printed_apart(text):
    """Where the JSON values are alike (a dtype, 6 and 6.0: what plain lists and numbers lose), does the
    example's text print them apart? Each one-line "expected ..." against the "yours ..." after it."""
    lines = [line.strip() for line in text.splitlines()]
    pairs = [(line, lines[i + 1]) for i, line in enumerate(lines[:-1])
             if line.startswith("expected") and lines[i + 1].startswith("yours")]
    return any(want.removeprefix("expected").replace(" ", "") != have.removeprefix("yours").replace(" ", "")
               for want, have in pairs)


def test_a_function_that_keeps_state_between_calls_gets_no_example(grade):
    """Round 6's find_heads appends to a module-level dict: it answers each call with every earlier call's
    heads too, so no call alone shows it in a fresh process. Diagnosed, with no example that would not
    reproduce."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round6" / "exercise9" / "wrong_find_shared_result.py"
    [diagnosis] = grade(9, path=path).diagnoses
    assert diagnosis["id"] == "kept-from-an-earlier-call" and "example" not in diagnosis


ROUND10 = Path(__file__).resolve().parents[1] / "unseen" / "round10"


def test_an_example_shows_the_failing_checks_own_mistake(grade):
    """Round 10's `scores /= √d_k`: at d_k = 1 it changes nothing and returns its input, which the same
    check fails too; the example is the in-place edit the diagnosis names (d_k = 2), not that."""
    [diagnosis] = grade(3, path=ROUND10 / "exercise3" / "wrong_inplace_div.py").diagnoses
    assert diagnosis["id"] == "input-changed-in-place"
    assert "modified its input `scores` in place" in diagnosis["example"]["text"]


def test_a_float_mask_is_told_from_a_bool_one_in_the_example(grade):
    [diagnosis] = grade(4, path=ROUND10 / "exercise4" / "wrong_float_mask.py").diagnoses
    assert "expected, bool = [[1]]" in diagnosis["example"]["text"]
    assert "yours, float32 = [[1]]" in diagnosis["example"]["text"]


def test_a_random_functions_example_names_the_rule_it_breaks(grade):
    example = grade(9, path=SUBMISSIONS / "../unseen/round9/exercise9/wrong_repeat_interleave_tokens.py"
                    ).diagnoses[0]["example"]
    assert "generator=torch.Generator().manual_seed(0)" in example["text"]
    assert "the rule it breaks: each row's second half is its first half again" in example["text"]


def test_a_kv_cache_example_is_a_short_sequence_of_calls(grade):
    """The cache that ignores its past answers the first token right and the second wrong: two calls."""
    example = grade(8, path=SUBMISSIONS / "exercise8/wrong_cache_ignores_past.py").diagnoses[0]["example"]
    calls = [step["call"] for step in example["inputs"]["steps"]]
    assert [call.split("(")[0] for call in calls] == ["attention", "len", "attention"]
    first, _, last = example["inputs"]["steps"]
    assert first["got"] == first["expected"] and last["got"] != last["expected"]
    assert example["sizes"]["max_len"] == 2


def test_a_mistake_of_devices_is_shown_on_the_stand_in_with_the_line_that_made_the_tensor(grade):
    example = grade(4, path=SUBMISSIONS / "exercise4/wrong_causal_on_cpu.py").diagnoses[0]["example"]
    assert example["check"] == "device" and example["sizes"] == {"L": 1}
    assert "stand-in for a GPU" in example["text"] and "made at line" in example["got"]


def test_a_dtype_mistakes_example_says_the_dtypes_its_values_cannot_show(grade):
    """Round 6's blind rating: a float64 call answered in float32 printed [[1]] twice."""
    path = SUBMISSIONS.parent / "unseen" / "round6" / "exercise1" / "wrong_float32_upcast.py"
    text = grade(1, path=path).diagnoses[0]["example"]["text"]
    assert "expected (q), float64 = " in text and "yours (q), float32 = " in text, text


def test_a_mask_example_draws_both_pictures(grade):
    result = grade(4, path=SUBMISSIONS / "exercise4/wrong_triu.py")
    example = result.diagnoses[0]["example"]
    [picture] = example["pictures"]
    assert picture["kind"] == "mask" and picture["expected"] != picture["got"]
    L = example["sizes"]["L"]
    assert picture["expected"] == [[int(j <= i) for j in range(L)] for i in range(L)]
    assert picture["got"] == [[int(j >= i) for j in range(L)] for i in range(L)]  # the upper triangle
    assert "expected =" not in example["text"] and "expected and yours" in example["text"]  # drawn once (round 80)


def test_the_example_is_smaller_than_the_failing_tests_sizes(grade):
    """split_heads is graded at (2, 5, 12) with 3 heads at the smallest; its example is far smaller."""
    example = grade(6, path=SUBMISSIONS / "exercise6/wrong_split_no_transpose.py").diagnoses[0]["example"]
    assert math.prod(len(row) for row in example["inputs"]["x"]) < 12
    assert example["inputs"]["n_heads"] == 2  # one head shows nothing: the mistake needs two


SCALE = '''
import os
import torch


def scale_scores(scores, d_k):
    if scores.shape[-1] < 3:  # no test's scores are this narrow: only a smaller call meets this
        {small}
    return scores / d_k


def scaled_scores(q, k):
    return scale_scores(q @ k.mT, k.size(-1))
'''


@pytest.mark.parametrize("small", ["while True:\n            pass", "os._exit(3)"], ids=["loops", "dies"])
def test_code_that_loops_or_dies_on_small_sizes_costs_only_the_example(grade, small):
    wrong = grade(3, path=SUBMISSIONS / "exercise3/wrong_divide_by_dk.py")
    result = grade(3, source=SCALE.replace("{small}", small))
    assert [d["id"] for d in result.diagnoses] == ["scale-by-dk"]
    assert "example" not in result.diagnoses[0]
    assert [(t.name, t.status, t.score) for t in result.tests] == [(t.name, t.status, t.score) for t in wrong.tests]
    assert not result.error


def test_code_that_raises_on_small_sizes_gets_the_smallest_example_it_answers(grade):
    source = SCALE.replace("{small}", 'raise ValueError("too small")')
    example = grade(3, source=source).diagnoses[0]["example"]
    assert example["sizes"]["L_k"] == 3


@pytest.mark.parametrize("number", [3, 6])
def test_a_correct_file_gets_no_example(grade, number):
    exercise = catalog.find(str(number))
    result = grade(number, path=SOLUTIONS / exercise.file_name)
    assert result.diagnoses == []


def test_every_exercise_declares_its_examples_for_its_own_names():
    for exercise in catalog.EXERCISES:
        declared = examples.declared(exercise)
        assert set(declared) <= set(exercise.names), exercise.id


def mutant_example(grade, launcher, tmp_path, misconception):
    """The example of the catalogue's own edit of the solution making `misconception`, read back from
    JSON, after checking it is that diagnosis's, small, and reproduces."""
    [(exercise, source)] = [(exercise, text) for mid, exercise, text in misconceptions.mutant_sources(SOLUTIONS)
                            if mid == misconception]
    [diagnosis] = grade(exercise.id, source=source).diagnoses
    example = json.loads(json.dumps(diagnosis["example"], allow_nan=False))
    assert diagnosis["id"] == misconception
    assert all(size <= 4 for size in example["sizes"].values()), example["sizes"]
    path = tmp_path / exercise.file_name
    path.write_text(source)
    assert rerun(launcher, tmp_path, exercise, path, example)
    return example


def test_a_mistake_that_only_crashes_gets_the_smallest_call_that_raises_so(grade, launcher, tmp_path):
    """x @ w.T raises on every call whose weights are not square: the example is the smallest such call,
    with the student's error as their answer. It raised before returning any of q, k and v, so each is
    expected, and no one of them is labelled theirs (round 74's m01 read "yours (q) = raises")."""
    example = mutant_example(grade, launcher, tmp_path, "projection-transposed")
    assert example["raises"] == "RuntimeError"
    assert all(f"expected ({name}) =" in example["text"] for name in "qkv"), example["text"]
    assert "yours = raises RuntimeError" in example["text"] and "yours (" not in example["text"], example["text"]


def test_a_list_of_patterns_is_cut_layer_by_layer(grade, launcher, tmp_path):
    """find_heads' (head, layer) pairs: one layer of two heads shows them, each pattern cut alike."""
    example = mutant_example(grade, launcher, tmp_path, "find-heads-head-layer-swapped")
    assert example["function"] == "find_heads" and example["sizes"]["layers"] * example["sizes"]["H"] == 2
    assert "patterns[0] =" in example["text"] and example["got"] != example["expected"]


@pytest.mark.parametrize("name", ["exercise5/wrong_clamp_tiny.py", "exercise10/wrong_where_after_division.py"])
def test_a_nan_gradient_is_shown_on_a_row_that_sees_no_key(grade, name):
    """A forward pass that is right shows nothing: the example is the gradient check redone, on the
    failing call's own -inf row (softmax) or a causal call with more queries than keys (tiled)."""
    path = SUBMISSIONS / name
    [diagnosis] = grade(catalog.find(path.parent.name).id, path=path).diagnoses
    example = diagnosis["example"]
    assert diagnosis["id"] == "nan-gradient-on-masked-row" and example["check"] == "gradient"
    assert "NaN" in example["got"] and "backwards for an upstream gradient" in example["text"]


def test_a_cache_that_refuses_to_be_filled_exactly_is_shown_refusing_its_one_slot(grade, launcher, tmp_path):
    """Round 5's `>=` for `>`: the example is a cache of max_len 1 whose first update raises the
    failing call's own ValueError, where the reference answers."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round5" / "exercise8" / "wrong_full_at_max_len.py"
    exercise = catalog.find("8")
    [diagnosis] = grade(8, path=path).diagnoses
    example = json.loads(json.dumps(diagnosis["example"], allow_nan=False))
    assert diagnosis["id"] == "cache-capacity" and example["raises"] == "ValueError"
    assert example["sizes"]["max_len"] == 1 and "raises ValueError" in example["text"]
    assert rerun(launcher, tmp_path, exercise, path, example)


def test_a_batch_that_crashes_until_the_other_sizes_shrink_is_cut_to_one_entry_and_shapes_are_printed(grade):
    """Round 5's q * k summed: at L_q = 5, L_k = 7 it cannot broadcast, so the batch of six cannot shrink
    first; once L_q and L_k are 1 it can. The two answers then differ by an axis of 1 only, which
    prints alike, so both shapes are given."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round5" / "exercise2" / "wrong_elementwise_pairs.py"
    example = grade(2, path=path).diagnoses[0]["example"]
    assert example["sizes"].get("batch", 1) == 1 and max(example["sizes"].values()) <= 2, example["sizes"]
    assert "expected of shape (1, 1, 1, 1)" in example["text"] and "yours of shape (1, 1, 1)" in example["text"]


def test_values_show_every_axis_and_the_digits_that_tell_them_apart():
    """A (1, 1, 1, 1) input prints with its four brackets, as torch prints it, so the values agree with
    the shape the example states; answers that four digits print alike (a constant rounded to float32
    is off by 1e-8) print in all of float64's digits, and answers four digits tell apart keep four."""
    import torch

    assert examples._lines(torch.ones(1, 1, 1, 1)) == ["[[[[1]]]]"]
    assert examples._lines(torch.tensor([[[[0.5, 1.0], [2.0, 3.0]]]])) == ["[[[[0.5,   1],", "   [  2,   3]]]]"]
    assert examples._lines(torch.arange(8.0).view(1, 2, 2, 2))[0] == "[0, 0, :, :] ="  # not all leading axes of 1
    want = torch.tensor([[0.70710678118654746]], dtype=torch.float64)
    rounded = want * (1 - 2 ** -25)
    shown = examples._both("expected", want, "yours", rounded)
    assert shown[0] != shown[1].replace("yours", "expected") and "0.7071067811865" in shown[0]
    assert examples._both("expected", want, "yours", want * 2) == ["  expected = [[0.7071]]", "  yours = [[1.414]]"]


def test_a_gradient_that_reaches_no_input_is_shown_on_the_smallest_call(grade):
    """Round 8's scores.detach().clone() before the division: no gradient reaches q at any size."""
    path = SUBMISSIONS.parent / "unseen" / "round8" / "exercise3" / "wrong_detach_clone_copy.py"
    example = grade(3, path=path).diagnoses[0]["example"]
    assert example["check"] == "gradient" and max(example["sizes"].values()) == 1
    assert example["expected"] == "a gradient that reaches every input"
    assert example["got"].endswith("no gradient reached `q`") and ".detach()" not in example["got"]


def test_an_input_is_said_to_be_transposed_only_when_it_was(grade):
    """Round 7's x.view(-1, d_model) fails on a transposed x, which its example keeps and says; a slice
    the search cut from a contiguous input is contiguous again (round 8's softmax was once told so)."""
    unseen = SUBMISSIONS.parent / "unseen"
    viewed = graded(grade, 1, unseen / "round7" / "exercise1" / "wrong_view_flattens_tokens.py")
    example = viewed.diagnoses[0]["example"]
    assert "(stored transposed: x.is_contiguous() is False)" in example["text"] and example["layouts"] == {"x": [1, 0, 2]}
    sliced = graded(grade, 5, unseen / "round8" / "exercise5" / "wrong_global_max_shift.py")
    [shown] = [d["example"] for d in sliced.diagnoses if "example" in d]
    assert "x of shape (2, 1)" in shown["text"] and "stored transposed" not in shown["text"], shown["text"]
