"""Crashes diagnosed like wrong numbers: a call that raised in the student's code is recorded with its
error (testkit.Raised), a mutant or a structural variant that raises the same error on the same inputs
explains it, and what the error and its line show is named (grader/diagnosis/analysers.py's
crash_findings). Also: the diagnosis blames the function that holds the mistake (a KV cache's own
calls, not the forward that uses it)."""

from pathlib import Path

import pytest
import torch

import lumen_ref as ref
from conftest import SOLUTIONS
from grader.diagnosis import analysers as analyse, matcher as diagnose
from grader.grading.testkit import Made, Raised, crash_evidence
from grader.sandbox.judge import StudentError
from test_diagnoses import graded

F32 = torch.float32


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def raised_by(function, *args, frames=()):
    """The Raised a student's call of `function(*args)` gives, as the child describes it."""
    with pytest.raises(Exception) as caught:
        function(*args)
    return Raised(type(caught.value).__name__, str(caught.value), tuple(frames))


def crash(target, *args, got, **kwargs):
    return {"target": target, "args": args, "kwargs": kwargs, "got": got}


FRAME = "exercise2_scoring.py, line 28, in attention_scores: return q @ k.T  # (..., L_q, L_k)"


def test_a_crash_is_recorded_with_its_call_once():
    error = StudentError("RuntimeError", "The size of tensor a (3) must match", [FRAME])
    crash_evidence(error, {"target": "attention_scores", "args": (), "kwargs": {}})
    crash_evidence(error, {"target": "other", "args": (), "kwargs": {}})  # the innermost record stays
    assert error.call["target"] == "attention_scores"
    assert error.call["got"] == Raised("RuntimeError", "The size of tensor a (3) must match", (FRAME,))
    stub = StudentError("NotImplementedError", "Exercise 2: ...", [])
    crash_evidence(stub, {"target": "attention_scores", "args": (), "kwargs": {}})
    assert getattr(stub, "call", None) is None  # a stub is not a mistake to replay


@pytest.mark.filterwarnings("ignore:The use of `x.T` on tensors of dimension other than 2")  # the student's very mistake
def test_a_mutant_that_raises_the_same_error_explains_the_crash():
    """k.T on (B, H, L, d) tensors: the catalogue's scores-transpose-all-dims raises just as the student's did."""
    q, k = randn(2, 3, 5, 4), randn(2, 3, 6, 4, seed=1)
    got = raised_by(lambda: q.float() @ k.float().T, frames=[FRAME])
    assert diagnose.diagnose(2, crash("attention_scores", q.float(), k.float(), got=got)) == "scores-transpose-all-dims"


def test_the_same_error_type_with_another_message_explains_nothing():
    q, k = randn(2, 3, 5, 4).float(), randn(2, 3, 6, 4, seed=1).float()
    got = Raised("RuntimeError", "The size of tensor a (7) must match the size of tensor b (9) at non-singleton "
                 "dimension 1", ("exercise2_scoring.py, line 28, in attention_scores: return torch.matmul(q, kt)",))
    assert diagnose.diagnose(2, crash("attention_scores", q, k, got=got)) is None
    assert diagnose.conclude(2, [crash("attention_scores", q, k, got=got)]) == []


def test_a_crash_on_inputs_the_reference_refuses_too_is_no_evidence():
    q, k = randn(2, 5, 4).float(), randn(2, 6, 3, seed=1).float()  # d_k differs: no right answer either
    got = raised_by(lambda: q @ k.transpose(-2, -1))
    assert diagnose.conclude(2, [crash("attention_scores", q, k, got=got)]) == []


def test_a_view_of_a_tensor_that_is_not_contiguous_is_named_where_it_raised():
    x = randn(2, 3, 5, 4).float()
    frames = ["exercise6_multihead.py, line 80, in forward: y = merge_heads(y)",
              "exercise6_multihead.py, line 67, in merge_heads: return x.view(B, L, H * d_head)  # (B, L, D)"]
    got = raised_by(lambda: x.transpose(1, 2).view(2, 5, 12), frames=frames)
    [finding] = analyse.crash_findings(crash("merge_heads", x, got=got))
    assert finding.key == "crash:view-not-contiguous"
    assert finding.message.startswith("your code raised at line 67, in merge_heads, `return x.view(B, L, H * d_head)` "
                                      "(called from line 80, in forward): .view needs a tensor")
    assert ".contiguous() before .view, or use .reshape" in finding.message


def test_a_T_is_named_only_where_the_line_shows_it_and_the_tensors_are_batched():
    q, k = randn(2, 3, 5, 4).float(), randn(2, 3, 6, 4, seed=1).float()
    got = raised_by(lambda: q @ k.T, frames=["f.py, line 9, in scaled_scores: s = q @ k.T / d ** 0.5"])
    assert analyse.crash_findings(crash("scaled_scores", q, k, got=got))[0].key == "crash:T-reverses-all-dims"
    unseen = Raised(got.type, got.message, ("f.py, line 9, in scaled_scores: s = torch.matmul(q, kt)",))
    assert analyse.crash_findings(crash("scaled_scores", q, k, got=unseen)) == []  # no .T on the line: not claimed


def test_mixed_dtypes_are_named_only_when_the_inputs_are_not_float32():
    frames = ["f.py, line 5, in tiled_attention: o = o + p @ v"]
    x64, made = randn(3, 4), torch.zeros(4, 2)
    got = raised_by(lambda: x64 @ made, frames=frames)
    [finding] = analyse.crash_findings(crash("tiled_attention", x64, got=got))
    assert finding.key == "crash:dtype-made-float32" and "inputs are float64" in finding.message
    assert analyse.crash_findings(crash("tiled_attention", x64.float(), got=got)) == []  # float32 inputs: not that


def test_an_error_nothing_recognises_says_nothing():
    got = Raised("ValueError", "pattern has L = 10, not 2 * seq_len = 20",
                 ("f.py, line 57, in induction_score: raise ValueError(...)",))
    assert analyse.crash_findings(crash("find_heads", [randn(1, 2, 10, 10)], got=got)) == []
    assert diagnose.conclude(9, [crash("find_heads", [randn(1, 2, 10, 10).float()], got=got)]) == []


def test_a_crash_in_a_helper_names_the_line_that_called_it():
    error = StudentError("RuntimeError", "The size of tensor a (6) must match the size of tensor b (2)",
                         ["exercise7_gqa.py, line 120, in forward: y, _ = scaled_dot_product_attention(q, k, v, mask)",
                          "exercise7_gqa.py, line 48, in scaled_dot_product_attention: return weights @ v, weights"])
    assert error.summary.endswith("(exercise7_gqa.py, line 48, in scaled_dot_product_attention, called from line "
                                  "120, in forward)")
    alone = StudentError("RuntimeError", "boom", ["exercise7_gqa.py, line 48, in forward: x = y"])
    assert alone.summary == "your code raised RuntimeError: boom (exercise7_gqa.py, line 48, in forward)"


# -- blame the function that holds the mistake ---------------------------------------------------------


def cache_calls(update):
    """The calls a suite records on a KV cache filled by `update` (the student's): two direct updates and
    a len, then a module fed through another cache, with the len after it."""
    gqa = ref.GroupedQueryAttention(18, 6, 2).double()
    module = Made("CachedGroupedQueryAttention", (18, 6, 2), {}, gqa.state_dict())
    direct, fed = Made("KVCache", (2, 2, 3, 8), {}), Made("KVCache", (2, 2, 3, 8), {})
    k, v = randn(2, 2, 5, 3), randn(2, 2, 5, 3, seed=1)
    x = randn(2, 4, 18, seed=2)

    def student_cache():
        cache = ref.KVCache(2, 2, 3, 8, dtype=torch.float64)
        cache.update = lambda k_new, v_new: update(cache, k_new, v_new)
        return cache

    mine = student_cache()
    first = mine.update(k[:, :, :3], v[:, :, :3])
    second = mine.update(k[:, :, 3:], v[:, :, 3:])
    steps = [(direct, "update", (k[:, :, :3], v[:, :, :3]), {}, first)]
    calls = [
        {"target": "KVCache", "object": direct, "method": "update", "args": (k[:, :, 3:], v[:, :, 3:]), "kwargs": {},
         "got": tuple(t.float() for t in second), "history": list(steps)},
        {"target": "KVCache", "object": direct, "method": "__len__", "args": (), "kwargs": {}, "got": len(mine),
         "history": [*steps, (direct, "update", (k[:, :, 3:], v[:, :, 3:]), {}, second)]},
    ]
    reference, used = ref.CachedGroupedQueryAttention(18, 6, 2).double(), student_cache()
    reference.load_state_dict(gqa.state_dict())
    outputs = [reference(x[:, :2], used), reference(x[:, 2:], used)]
    calls.append({"target": module.target, "object": module, "method": "__call__", "args": (x[:, 2:], fed),
                  "kwargs": {}, "got": outputs[1].float(), "history": [(module, "__call__", (x[:, :2], fed), {}, None)]})
    calls.append({"target": "KVCache", "object": fed, "method": "__len__", "args": (), "kwargs": {}, "got": len(used),
                  "history": [(module, "__call__", (x[:, :2], fed), {}, None), (module, "__call__", (x[:, 2:], fed), {},
                                                                              None)]})
    return calls


def never_advancing(cache, k, v):
    length = cache.length
    result = ref.KVCache.update(cache, k, v)
    cache.length = length
    return result


def test_a_cache_that_never_advances_is_blamed_not_the_forward_that_uses_it():
    """The forward's calls alone fit "forward never calls cache.update" too; the cache's own calls tell
    the two apart, and they point at update."""
    calls = cache_calls(never_advancing)
    found = diagnose.conclude(8, calls)
    assert [d.id for d in found] == ["kv-cache-length-not-advanced"]
    assert [d.id for d in diagnose.conclude(8, calls[2:])] == ["kv-cache-not-updated"]  # without the cache's own calls


def test_a_cache_mistake_nothing_names_silences_the_forward_diagnosis():
    """The cache's own calls wrong in a way no misconception explains (here its update's values are
    tripled): "forward never calls cache.update", which fits the module's calls, is not named then."""
    calls = cache_calls(never_advancing)
    calls[0] = {**calls[0], "got": tuple(t * 3 for t in calls[0]["got"])}
    assert [d.id for d in diagnose.conclude(8, calls[2:])] == ["kv-cache-not-updated"]
    assert "kv-cache-not-updated" not in {d.id for d in diagnose.conclude(8, calls)}


def test_k_transposed_on_front_dims_is_named_from_its_crash():
    q, k = randn(2, 3, 5, 4).float(), randn(2, 3, 6, 4, seed=1).float()
    got = raised_by(lambda: q @ k.transpose(0, 1), frames=["f.py, line 3, in attention_scores: return q @ k.transpose(0, 1)"])
    [found] = diagnose.conclude(2, [crash("attention_scores", q, k, got=got)])
    assert found.id == "scores:k-transposed-0-1" and "k.transpose(-2, -1)" in found.message


# -- advice that fits the code ------------------------------------------------------------------------


def test_a_forbidden_softmax_beside_the_students_own_names_theirs(grade):
    """torch.softmax in scaled_dot_product_attention, with a softmax of the student's own above it: the
    advice is to call theirs, not to write one; with their softmax still a stub, to write it."""
    solution = (SOLUTIONS / "exercise5_softmax.py").read_text(encoding="utf-8")
    forbidden = solution.replace("    weights = softmax(scores, dim=-1)  #", "    weights = torch.softmax(scores, dim=-1)  #")
    assert forbidden != solution
    messages = [t.message for t in grade(5, source=forbidden).tests if t.message.startswith("forbidden")]
    assert messages and all("your file has a softmax of its own, `softmax` (exercise5_softmax.py, line " in m
                            and m.endswith(": call it here instead of torch's softmax") for m in messages)
    stub = forbidden.replace("def softmax(x, dim=-1):\n", "def softmax(x, dim=-1):\n    raise NotImplementedError\n")
    messages = [t.message for t in grade(5, source=stub).tests if t.message.startswith("forbidden")]
    assert messages and all("write softmax yourself" in m for m in messages)


def test_a_crash_inside_a_function_whose_mistake_is_named_is_not_named_apart(grade):
    """Round 5's split_heads done as one view into (B, H, L, d_head): it is wrong on contiguous x and
    cannot view the module's q, k, v slices at all. The split's mistake is the diagnosis; the crash
    ('call .contiguous()') is its consequence, whose advice would cure the crash and keep the mistake."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round5" / "exercise6" / "wrong_split_without_transpose.py"
    assert [d["id"] for d in graded(grade, 6, path).diagnoses] == ["split:no-transpose"]


def test_bmm_on_other_than_three_dims_is_named_beside_a_transpose_counted_from_the_front(grade):
    """Round 5's torch.bmm(q, k.transpose(1, 2)): on 4-D inputs bmm refuses, on 2-D the transpose does;
    two mistakes, each named by the calls it shows in (once, only the transpose was told)."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round5" / "exercise2" / "wrong_bmm_only_3d.py"
    diagnoses = graded(grade, 2, path).diagnoses
    assert [d["id"] for d in diagnoses] == ["crash:bmm-3d-only", "scores:k-transposed-1-2"]
    assert "torch.bmm takes exactly 3-D tensors" in diagnoses[0]["message"]
    assert "transpose(1, 2)" in diagnoses[0]["message"]  # the student's own line


def test_torch_mm_on_batched_inputs_is_named(grade):
    """Round 10's project with torch.mm, which takes two 2-D matrices only: every batched x raises."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round10" / "exercise1" / "wrong_mm_2d_only.py"
    [diagnosis] = graded(grade, 1, path).diagnoses
    assert diagnosis["id"] == "crash:mm-2d-only" and "torch.mm multiplies exactly two 2-D matrices" in diagnosis["message"]


def test_a_probe_that_cannot_run_where_the_student_returned_a_value_is_not_their_mistake(grade):
    """Round 5's scores squeezed: with one query or one key the element-wise q * k gives the same numbers,
    but with a batch of one it cannot even broadcast, where the student's code returned scores."""
    path = Path(__file__).resolve().parents[1] / "unseen" / "round5" / "exercise2" / "wrong_squeeze_all.py"
    [diagnosis] = graded(grade, 2, path).diagnoses
    assert diagnosis["id"] == "shape:squeezed" and "squeeze()" in diagnosis["message"]


def test_a_finding_that_raises_where_the_student_answered_right_does_not_explain_their_crash(grade):
    """Round 73's a03: a GQA that groups the query heads (no repeat_kv) and unsqueezes the mask for the groups
    crashed on a per-head mask only, with the error a forward without repeat_kv gives; that finding was named,
    though it raises on every call the student's forward answered right."""
    path = Path(__file__).resolve().parents[1] / "attacks" / "round73" / "a03_gqa_perhead_mask" / "sub"
    result = graded(grade, 7, path / "exercise7_gqa.py")
    assert result.diagnoses == [] and result.score == result.max_score - 1


@pytest.mark.parametrize("name, number, keys", [
    ("m25_two_unstable_and_dim", 5, ["softmax-wrong-dim", "softmax-unstable"]),
    ("m60_tiled_two_noscale_norescale_l", 10, ["missing-scale", "online-sum-not-rescaled"]),
])
def test_two_mistakes_of_the_catalogue_made_together_are_both_named(grade, name, number, keys):
    """Round 74's two files with two mistakes each (a softmax without its max beside attention normalised over
    the queries; tiled attention unscaled beside a running sum never rescaled) matched no one mutant and got
    no diagnosis; the one pair of mutants that fits is named as two."""
    (path,) = (Path(__file__).resolve().parents[1] / "unseen" / "round74" / name / "sub").glob("*.py")
    assert [d["id"] for d in graded(grade, number, path).diagnoses] == keys


ROUND6 = Path(__file__).resolve().parents[1] / "unseen" / "round6"


def test_an_einsum_without_dots_is_named_for_the_dims_it_fixes(grade):
    """Round 6's einsum('bqd,bkd->bqk'): 2-D and 4-D inputs raise; the finding says what '...' is for."""
    [diagnosis] = graded(grade, 2, ROUND6 / "exercise2" / "wrong_einsum_3d_only.py").diagnoses
    assert diagnosis["id"] == "crash:einsum-fixed-dims" and "'...'" in diagnosis["message"]


def test_kv_heads_repeated_by_their_own_count_are_named_not_a_transpose(grade):
    """Round 6's repeat_kv(k, self.n_kv_heads): its shape errors once coincided with a transposed k's."""
    [diagnosis] = graded(grade, 7, ROUND6 / "exercise7" / "wrong_rep_by_kv_heads.py").diagnoses
    assert diagnosis["id"] == "gqa:n-rep-is-n-kv-heads" and "n_rep = n_heads // n_kv_heads" in diagnosis["message"]


@pytest.mark.parametrize("name, number, key", [
    ("round6/exercise1/wrong_split_size_three.py", 1, "crash:split-size-as-count"),
    ("round5/exercise1/wrong_split_size_as_count.py", 1, "crash:split-size-as-count"),
    ("round6/exercise10/wrong_inplace_running_state.py", 10, "crash:in-place-needed-by-autograd"),
    ("round6/exercise3/wrong_int_sqrt.py", 3, "divisor:⌊√d_k⌋"),
    ("round5/exercise3/wrong_integer_sqrt.py", 3, "divisor:⌊√d_k⌋"),
    ("round6/exercise5/wrong_default_causal.py", 5, "mask:causal-by-default"),
    ("round6/exercise5/wrong_global_max.py", 5, "softmax:global-max"),
    ("round7/exercise3/wrong_k_t_on_batched.py", 3, "crash:t-on-batched"),
    ("round7/exercise6/wrong_split_true_division.py", 6, "crash:size-not-int"),
    ("round7/exercise7/wrong_kv_view_with_n_heads.py", 7, "crash:view-size-mismatch"),
    ("round7/exercise4/wrong_bool_index_no_broadcast.py", 4, "crash:bool-index-no-broadcast"),
    ("round7/exercise1/wrong_matmul_out_buffer.py", 1, "crash:out-argument"),
    ("round7/exercise1/wrong_view_flattens_tokens.py", 1, "crash:view-not-contiguous"),
    ("round7/exercise8/wrong_update_detaches.py", 8, "no-gradient"),
    ("round7/exercise7/wrong_repeat_by_n_heads.py", 7, "gqa:n-rep-is-n-heads"),
    ("round7/exercise2/wrong_tensordot_outer_batch.py", 2, "scores:outer-over-batch"),
    ("round7/exercise1/wrong_einsum_fixed_batch.py", 1, "crash:einsum-fixed-dims"),
    ("round8/exercise1/wrong_nanogpt_split_dim2.py", 1, "crash:dim-from-the-front"),
    ("round8/exercise7/wrong_repeat_interleave_no_dim.py", 7, "shape:flattened-to-1d"),
    ("round8/exercise5/wrong_large_negative_fill.py", 5, "mask-fill-finite"),  # the catalogue's, since round 65
    ("round8/exercise5/wrong_clamp_max_at_zero.py", 5, "softmax:max-clamped-at-zero"),
    ("round8/exercise9/wrong_tensor_head_indices.py", 9, "heads-not-ints"),
])
def test_independent_files_once_told_only_their_crash_or_their_numbers_are_named(grade, name, number, key):
    """A split given a count, an edit the backward pass needed, a root rounded down, a causal mask where
    none was given, a softmax shifted by the whole tensor's max; round 7's .t() on a batch, a size made
    by `/`, a view of another tensor's sizes, a bool mask as an index, out=, a view of a transposed x,
    cached keys detached, KV heads repeated n_heads times, tensordot's product over every pair of
    sequences, and an einsum of fixed dims (told with its own equation); round 8's split(dim=2) of a
    4-D tensor, a repeat_interleave without dim=, a -1e9 fill, a maximum clamped at 0, head numbers
    left as tensors."""
    path = Path(__file__).resolve().parents[1] / "unseen" / name
    assert [d["id"] for d in graded(grade, number, path).diagnoses] == [key]
