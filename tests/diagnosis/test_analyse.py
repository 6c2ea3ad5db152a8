"""The structural analysers (grader/diagnosis/analysers.py), each on synthetic tensors, and how grader/diagnosis/matcher.py
weighs the evidence: a misconception named only when it explains every failed call, "either ... or"
for two, structural findings only when every failed call of a function agrees."""

import math

import torch

import lumen_ref as ref
from grader.diagnosis import analysers as analyse, matcher as diagnose
from grader.diagnosis.reference import Reference
from grader.grading.testkit import Made

F32 = torch.float32


def g(seed=0):
    return torch.Generator().manual_seed(seed)


def randn(*shape, seed=0):
    return torch.randn(*shape, generator=g(seed), dtype=torch.float64)


def call_of(target, *args, got, **kwargs):
    return {"target": target, "args": args, "kwargs": kwargs, "got": got}


def keys(findings):
    return [finding.key for finding in findings]


def direct(call):
    expected = diagnose.replay(Reference(), call, F32)
    return analyse.direct(call, expected, F32)


# -- a constant factor, named by the call's quantities ------------------------------------------------


def test_a_factor_is_named_by_the_quantity_it_equals():
    q, k = randn(2, 5, 8), randn(2, 7, 8, seed=1)  # d_k = 8, L_q = 5, L_k = 7
    got = (q @ k.transpose(-2, -1) / math.sqrt(7)).float()  # divided by √L_k
    finding, by_position = direct(call_of("scaled_scores", q.float(), k.float(), got=got))
    assert finding.key == "divisor:√L_k" and by_position.key == "divisor:√k.size(1)"
    assert "√L_k = √7" in finding.message and "the number of keys" in finding.message and "√d_k = √8" in finding.message


def test_no_scale_and_a_squared_scale_are_said_in_the_students_words():
    q, k = randn(2, 5, 8), randn(2, 7, 8, seed=1)
    scores = q @ k.transpose(-2, -1)
    assert keys(direct(call_of("scaled_scores", q.float(), k.float(), got=scores.float()))) == ["divisor:1"]
    assert keys(direct(call_of("scaled_scores", q.float(), k.float(), got=(scores / 8).float()))) == ["divisor:d_k"]
    assert keys(direct(call_of("scaled_scores", q.float(), k.float(), got=(scores * 8 ** 0.5).float()))) == \
        ["divisor:1/√d_k"]


def test_a_factor_of_bytes_names_the_missing_quantity():
    args = (32, 8, 128, 4096)
    kwargs = {"batch_size": 3, "bytes_per_value": 4}
    expected = ref.kv_cache_bytes(*args, **kwargs)
    [finding] = direct(call_of("kv_cache_bytes", *args, got=expected // 32, **kwargs))
    assert finding.key == "factor:/n_layers" and "32 times too small" in finding.message
    assert keys(direct(call_of("kv_cache_bytes", *args, got=expected * 8, **kwargs))) == ["factor:xn_kv_heads",
                                                                                         "factor:x8"]  # n_kv_heads = 8
    [finding] = direct(call_of("kv_cache_bytes", 32, 2, 128, 4096, got=ref.kv_cache_bytes(32, 2, 128, 4096) * 8))
    assert finding.key == "factor:x8" and "bits" in finding.message


def test_a_factor_that_no_quantity_explains_is_not_named():
    q, k = randn(2, 5, 8), randn(2, 7, 8, seed=1)
    got = (q @ k.transpose(-2, -1) / 3.3).float()
    assert direct(call_of("scaled_scores", q.float(), k.float(), got=got)) == []


def test_rounding_is_no_factor():
    w = randn(3, 4)
    assert analyse.constant_factor((w * (1 + 1e-6)).float(), w, F32) is None


# -- axes --------------------------------------------------------------------------------------------


def test_a_transpose_is_named_by_its_axes():
    want = randn(2, 5, 7)
    [finding] = analyse.permutation_findings(want.transpose(-2, -1).float(), want, F32, "scores",
                                             analyse.axis_names("attention_scores", 3))
    assert finding.key == "axes:-3--1--2" and "the queries axis and the keys axis swapped" in finding.message


def test_reshapes_that_mix_heads_and_positions_are_named():
    x = randn(2, 5, 12)  # B, L, D with 3 heads of 4
    [found] = _structural(call_of("split_heads", x.float(), 3, got=x.reshape(2, 3, 5, 4).float()))
    assert found.id == "split:no-transpose" and "transpose(1, 2)" in found.message
    strided = x.view(2, 5, 4, 3).permute(0, 3, 1, 2).float()  # head h gets columns h, h + 3, ...
    [found] = _structural(call_of("split_heads", x.float(), 3, got=strided))
    assert found.id == "split:strided" and "every H-th column" in found.message
    heads = randn(2, 3, 5, 4)
    [found] = _structural(call_of("merge_heads", heads.float(), got=heads.reshape(2, 5, 12).float()))
    assert found.id == "merge:no-transpose"


def test_a_size_read_from_the_wrong_dim_is_named_by_position():
    calls = []
    for shape in ((2, 5, 8), (2, 3, 4, 6)):  # q.size(1) is L_q, then the number of heads
        q, k = randn(*shape), randn(*shape[:-2], 7, shape[-1], seed=1)
        got = (q @ k.transpose(-2, -1) / math.sqrt(shape[1])).float()
        calls.append(call_of("scaled_scores", q.float(), k.float(), got=got))
    [found] = diagnose.conclude(99, calls)
    assert found.id == "divisor:√q.size(1)" and "not its last dim" in found.message


# -- normalisation -------------------------------------------------------------------------------------


def test_weights_normalised_over_the_queries_are_named():
    x = randn(2, 4, 6)
    got = torch.softmax(x, dim=-2).float()
    [finding] = direct(call_of("softmax", x.float(), got=got, dim=-1))
    assert finding.key == "normalised-over:-2" and "(the queries)" in finding.message


def test_weights_not_normalised_are_named():
    x = randn(2, 4, 6)
    got = torch.exp(x - x.amax(-1, keepdim=True)).float()
    [finding] = direct(call_of("softmax", x.float(), got=got, dim=-1))
    assert finding.key == "not-normalised" and "sum" in finding.message


# -- masks ------------------------------------------------------------------------------------------------


def test_mask_patterns_by_diagonal_triangle_and_inversion():
    for got, key in ((torch.ones(5, 5, dtype=torch.bool).tril(1), "mask:diagonal+1"),
                     (torch.ones(5, 5, dtype=torch.bool).tril(-1), "mask:no-diagonal"),
                     (torch.ones(5, 5, dtype=torch.bool).triu(), "mask:upper-triangle"),
                     (~ref.causal_mask(5), "mask:inverted"),
                     (torch.ones(5, 5, dtype=torch.bool), "mask:nothing-masked")):
        assert keys(direct(call_of("causal_mask", 5, got=got))) == [key], key


def test_a_padding_mask_one_key_too_wide():
    lengths = torch.tensor([3, 5, 1, 2])
    got = ref.padding_mask(torch.clamp(lengths + 1, max=6), 6)
    [finding] = direct(call_of("padding_mask", lengths, 6, got=got))
    assert finding.key == "mask:width+1" and "j < lengths[b]" in finding.message


def test_a_mask_in_the_wrong_corner():
    scores = randn(2, 3, 7)  # 3 new queries after 4 cached tokens
    mask = torch.ones(3, 7, dtype=torch.bool).tril(diagonal=4)
    got = scores.masked_fill(~torch.ones(3, 7, dtype=torch.bool).tril(), -math.inf).float()
    [finding] = direct(call_of("apply_mask", scores.float(), mask, got=got))
    assert finding.key == "mask:corner" and "tril(diagonal=4)" in finding.message


def test_masked_scores_filled_with_a_number():
    scores, mask = randn(2, 5, 5), ref.causal_mask(5)
    [finding] = direct(call_of("apply_mask", scores.float(), mask, got=scores.masked_fill(~mask, -1e9).float()))
    assert finding.key == "mask:finite-fill" and "-inf" in finding.message
    [finding] = direct(call_of("apply_mask", scores.float(), mask, got=(scores * mask).float()))
    assert finding.key == "mask:fill-value"


# -- heads, swapped values, other inputs, the output projection, the cache's state ---------------------------


def test_kv_heads_in_another_order_are_reported_as_the_mapping():
    x = randn(2, 2, 4, 3)
    [finding] = direct(call_of("repeat_kv", x.float(), 3, got=x.repeat(1, 3, 1, 1).float()))
    assert finding.key == "heads:tiled" and "[0, 1, 0, 1, 0, 1]" in finding.message
    assert "[0, 0, 0, 1, 1, 1]" in finding.message


def test_two_returned_values_swapped():
    q, k, v = randn(2, 4, 3), randn(2, 5, 3, seed=1), randn(2, 5, 3, seed=2)
    out, weights = ref.scaled_dot_product_attention(q, k, v)
    [finding] = direct(call_of("scaled_dot_product_attention", q.float(), k.float(), v.float(),
                               got=(weights.float(), out.float())))
    assert finding.key == "swapped:weights-output" and "(output, weights)" in finding.message


def test_returned_none():
    [finding] = direct(call_of("attention_scores", randn(2, 3).float(), randn(4, 3).float(), got=None))
    assert finding.key == "returned-none" and "did you forget `return`?" in finding.message


def _structural(call):
    return diagnose.conclude(99, [call])  # an exercise without catalogue entries: structure only


def test_a_value_another_input_gives():
    x, w_q, w_k, w_v = randn(2, 5, 6), randn(6, 4, seed=1), randn(6, 4, seed=2), randn(6, 3, seed=3)
    got = tuple(t.float() for t in (x @ w_q, x @ w_k, x @ w_k))  # v made with W_K
    [found] = _structural(call_of("project", x.float(), w_q.float(), w_k.float(), w_v.float(), got=got))
    assert found.id == "input:w_k-for-w_v" and "w_k where w_v belongs" in found.message


def test_a_missing_output_projection():
    module = ref.MultiHeadAttention(12, 3).double()
    made = Made("MultiHeadAttention", (12, 3), {}, module.state_dict())
    x = randn(2, 5, 12)
    y = ref.merge_heads(ref.scaled_dot_product_attention(*(ref.split_heads(t, 3) for t in module.qkv(x).split(12, -1)),
                                                         ref.causal_mask(5))[0])
    call = {"target": "MultiHeadAttention", "object": made, "method": "__call__", "args": (x.float(),), "kwargs": {},
            "got": y.detach().float()}
    [found] = _structural(call)
    assert found.id == "no-output-projection" and "W_O" in found.message


def test_a_cache_that_does_not_advance():
    cache = Made("KVCache", (2, 2, 3, 8), {})
    k1, v1, k2, v2 = (randn(2, 2, 2, 3, seed=s) for s in range(4))
    call = {"target": "KVCache", "object": cache, "method": "update", "args": (k2.float(), v2.float()), "kwargs": {},
            "got": (k2.float(), v2.float()), "history": [(cache, "update", (k1.float(), v1.float()), {}, None)]}
    # catalogue entries, which this call alone cannot tell apart: the length is not in it
    assert diagnose.conclude(8, [call])[0].ids == ("kv-cache-update-returns-new", "kv-cache-length-not-advanced")
    call["args"] = (k2[:, :, :1].float(), v2[:, :, :1].float())  # 1 token after 2, written over the first
    zero = torch.zeros(2, 2, 1, 3, dtype=torch.float64)
    call["got"] = tuple(torch.cat([new[:, :, :1], old[:, :, 1:], zero], 2).float() for new, old in ((k2, k1), (v2, v1)))
    [found] = _structural(call)
    assert found.id == "cache:overwritten" and "advance" in found.message


# -- weighing the evidence ----------------------------------------------------------------------------------


def test_a_misconception_must_explain_every_failed_call():
    scores = randn(2, 5, 7) * 8
    unscaled = call_of("scale_scores", scores.float(), 64, got=scores.float())  # missing-scale
    by_dk = call_of("scale_scores", scores.float(), 16, got=(scores / 16).float())  # scale-by-dk
    assert [d.id for d in diagnose.conclude(3, [unscaled])] == ["missing-scale"]
    assert [d.id for d in diagnose.conclude(3, [unscaled, by_dk])] == []  # no one mistake explains both


def test_a_passed_call_contradicts_a_mistake_it_would_have_shown():
    scores = randn(2, 5, 7) * 8
    failed = call_of("scale_scores", scores.float(), 64, got=scores.float())
    passed = call_of("scale_scores", scores.float(), 16, got=(scores / 4).float())
    assert [d.ids for d in diagnose.conclude(3, [failed], [passed])] == [()]  # what the call shows, no misconception


def test_two_mistakes_the_calls_cannot_tell_apart_are_named_as_either_or():
    [found] = diagnose.conclude(4, [call_of("causal_mask", 1, got=torch.zeros(1, 1, dtype=torch.bool))])
    assert set(found.ids) == {"mask-inverted", "mask-excludes-diagonal"}
    assert found.message.startswith("causal_mask(...): these tests cannot tell two mistakes apart")
    assert " Or: " in found.message


def test_structural_findings_must_agree_across_a_functions_calls():
    q, k = randn(2, 5, 8), randn(2, 7, 8, seed=1)
    scores = q @ k.transpose(-2, -1)
    by_lk = call_of("scaled_scores", q.float(), k.float(), got=(scores / math.sqrt(7)).float())
    q2, k2 = randn(3, 4, 6), randn(3, 9, 6, seed=2)
    scores2 = q2 @ k2.transpose(-2, -1)
    also_lk = call_of("scaled_scores", q2.float(), k2.float(), got=(scores2 / 3).float())  # √L_k = 3
    by_lq = call_of("scaled_scores", q2.float(), k2.float(), got=(scores2 / 2).float())  # √L_q = 2
    assert [d.id for d in diagnose.conclude(3, [by_lk, also_lk])] == ["divisor:√L_k"]
    assert diagnose.conclude(3, [by_lk, by_lq]) == []


def test_a_correct_answer_gets_nothing():
    q, k = randn(2, 5, 8), randn(2, 7, 8, seed=1)
    right = call_of("scaled_scores", q.float(), k.float(), got=(q @ k.transpose(-2, -1) / math.sqrt(8)).float())
    assert diagnose.conclude(3, [right]) == []


def test_calls_that_cannot_tell_two_misconceptions_apart_are_named_for_check():
    one = call_of("causal_mask", 1, got=ref.causal_mask(1))
    assert ("mask-inverted", "mask-excludes-diagonal") in diagnose.unseparated(4, [one])
    four = call_of("causal_mask", 4, got=ref.causal_mask(4))
    assert ("mask-inverted", "mask-excludes-diagonal") not in diagnose.unseparated(4, [one, four])


def test_a_cause_the_message_names_is_the_diagnosis_only_when_no_value_is_wrong():
    causes = [("input-changed-in-place", "your code modified its input `scores` in place (...)", None)]
    [found] = diagnose.conclude(4, [], [], causes)
    assert found.id == "input-changed-in-place" and found.message.startswith("your code modified")
    scores = randn(2, 5, 7) * 8
    unscaled = call_of("scale_scores", scores.float(), 64, got=scores.float())
    assert [d.id for d in diagnose.conclude(3, [unscaled], [], causes)] == ["missing-scale"]


def test_a_mask_filled_with_a_large_finite_number_is_drawn_as_masked_with_a_note():
    import pytest

    from grader.grading.compare import Mismatch, check_close

    scores, mask = randn(5, 5), ref.causal_mask(5)
    with pytest.raises(Mismatch) as caught:
        check_close(scores.masked_fill(~mask, -1e9).float(), ref.apply_mask(scores, mask), what="apply_mask",
                    picture="mask")
    picture = caught.value.details["picture"]
    assert picture["got"] == picture["expected"] == mask.int().tolist()
    assert picture["note"].startswith("your masked scores are -1e+09, a finite number, drawn as masked")


# -- more analysers, one check each -----------------------------------------------------------------------


def test_fills_of_plus_inf_and_nan_from_zero_times_inf():
    scores, mask = randn(2, 5, 5), ref.causal_mask(5)
    assert keys(direct(call_of("apply_mask", scores.float(), mask, got=scores.masked_fill(~mask, math.inf).float()))) \
        == ["mask:plus-inf"]
    nan_kept = (scores + (~mask) * -math.inf).float()  # 0 * -inf is NaN where the mask keeps the score
    [finding] = direct(call_of("apply_mask", scores.float(), mask, got=nan_kept))
    assert finding.key == "mask:nan-kept" and "0 × -inf is NaN" in finding.message


def test_padding_on_the_wrong_side():
    lengths = torch.tensor([3, 5, 1, 2])
    got = ref.padding_mask(lengths, 5).flip(-1)
    assert keys(direct(call_of("padding_mask", lengths, 5, got=got))) == ["mask:reversed"]


def test_scores_already_softmaxed_or_only_the_diagonal():
    q, k = randn(2, 4, 6), randn(2, 4, 6, seed=1)
    scores = q @ k.transpose(-2, -1)
    assert keys(direct(call_of("attention_scores", q.float(), k.float(), got=torch.softmax(scores, -1).float()))) == \
        ["softmax-applied"]
    assert keys(direct(call_of("attention_scores", q.float(), k.float(), got=(q * k).sum(-1).float()))) == \
        ["diagonal-only"]
    # one key: the element-wise product broadcasts, only a replay sees it; its numbers are also the
    # scores squeezed, which the call alone cannot tell apart, and a call with more keys can
    k1 = randn(2, 1, 6, seed=2)
    one_key = call_of("attention_scores", q.float(), k1.float(), got=(q * k1).sum(-1).float())
    assert diagnose.conclude(99, [one_key]) == []
    both = call_of("attention_scores", q.float(), k.float(), got=(q * k).sum(-1).float())
    [found] = diagnose.conclude(99, [one_key, both])
    assert found.id == "diagonal-only"
    squeezed = call_of("attention_scores", q[:1].float(), k1[:1].float(), got=(q[:1] @ k1[:1].mT).squeeze().float())
    [found] = diagnose.conclude(99, [squeezed, call_of("attention_scores", q[:1].float(), k[:1].float(),
                                                        got=(q[:1] @ k[:1].mT).squeeze().float())])
    assert found.id == "shape:squeezed" and "squeeze()" in found.message


def test_a_divisor_is_named_with_its_multiplier():
    """Round 6's wrong_precedence (scores / d_k ** 1/2) read "2·d_k = 260, the width of q and k"."""
    assert analyse._words("2·d_k") == ", twice the width of q and k," and analyse._words("√d_k") == ", the width of q and k,"


def test_leading_axes_merged_are_not_a_squeeze():
    """Round 6's wrong_flattens_batch (x.reshape(-1, d) @ w, never reshaped back) was told it had
    squeezed: at L = 1 both read the same, the calls with longer sequences tell them apart."""
    x, w = randn(2, 5, 6), randn(6, 4, seed=1)
    merged = (x.reshape(-1, 6) @ w).float()  # (10, 4) for (2, 5, 4)
    assert keys(analyse.squeezed_findings(merged, x @ w, torch.float32, "q")) == []
    assert keys(analyse.merged_findings(merged, x @ w, torch.float32, "q")) == ["shape:batch-merged"]
    one_token = randn(3, 1, 6, seed=2)
    assert keys(analyse.merged_findings((one_token.reshape(-1, 6) @ w).float(), one_token @ w, torch.float32, "q")) == []


def test_weights_normalised_over_everything_or_along_another_dim():
    x = randn(3, 4, 5)
    e = torch.exp(x)
    assert keys(direct(call_of("softmax", x.float(), got=(e / e.sum()).float(), dim=-1))) == ["normalised-over:all"]
    assert keys(direct(call_of("softmax", x.float(), got=torch.softmax(x, 0).float(), dim=1))) == ["normalised-over:-3"]


def test_k_reshaped_instead_of_transposed():
    q, k = randn(2, 4, 6), randn(2, 5, 6, seed=1)
    got = (q @ k.reshape(2, 6, 5)).float()
    [found] = _structural(call_of("attention_scores", q.float(), k.float(), got=got))
    assert found.id == "scores:view-not-transpose" and "k.transpose(-2, -1)" in found.message


def test_fused_columns_read_interleaved():
    x, w = randn(2, 5, 6), randn(6, 12, seed=1)
    got = tuple(t.float() for t in (x @ w).unflatten(-1, (4, 3)).unbind(-1))
    [found] = _structural(call_of("fused_project", x.float(), w.float(), got=got))
    assert found.id == "fused:interleaved" and "side by side" in found.message


def test_attention_scaled_by_another_quantity():
    q, k, v = randn(2, 4, 8), randn(2, 7, 8, seed=1), randn(2, 7, 6, seed=2)
    weights = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(6), -1)  # √d_v
    [found] = _structural(call_of("scaled_dot_product_attention", q.float(), k.float(), v.float(),
                                  got=((weights @ v).float(), weights.float())))
    assert found.id == "divisor:√d_v" and "the width of v" in found.message


def _cached_call(reference, chunks):
    gqa = ref.GroupedQueryAttention(18, 6, 2).double()
    module = Made("CachedGroupedQueryAttention", (18, 6, 2), {}, gqa.state_dict())
    cache = Made("KVCache", (2, 2, 3, 12), {})
    x = randn(2, sum(chunks), 18)
    parts = x.split(chunks, dim=1)
    history = [(module, "__call__", (part.float(), cache), {}, None) for part in parts[:-1]]
    call = {"target": module.target, "object": module, "method": "__call__", "args": (parts[-1].float(), cache),
            "kwargs": {}, "history": history}
    call["got"] = diagnose.replay(reference(), call).float()
    return call


def test_cached_attention_without_a_mask_or_with_one_off_by_one():
    from grader.diagnosis.analysers import _unmasked_with_cache, _variant

    assert [d.id for d in _structural(_cached_call(_variant(cached_attention=_unmasked_with_cache), [2, 3]))] == \
        ["cache:no-mask"]
    plus_one = _variant(decode_mask=lambda self, T, past: torch.ones(T, past + T, dtype=torch.bool).tril(past + 1))
    assert [d.id for d in _structural(_cached_call(plus_one, [2, 3]))] == ["mask:decode+1"]


def test_len_of_a_cache_that_counts_something_else():
    cache = Made("KVCache", (2, 2, 3, 8), {})
    updates = [(cache, "update", (randn(2, 2, 3, 3).float(), randn(2, 2, 3, 3).float()), {}, None),
               (cache, "update", (randn(2, 2, 2, 3).float(), randn(2, 2, 2, 3).float()), {}, None)]
    call = {"target": "KVCache", "object": cache, "method": "__len__", "args": (), "kwargs": {}, "history": updates}
    assert keys(direct({**call, "got": 8})) == ["len:max_len"]
    assert keys(direct({**call, "got": 2})) == ["len:newest-update"]  # the newest update's 2 tokens only


def test_a_cache_that_returns_its_whole_storage():
    cache = Made("KVCache", (2, 2, 3, 8), {})
    k, v = randn(2, 2, 3, 3), randn(2, 2, 3, 3, seed=1)
    pad = torch.zeros(2, 2, 5, 3, dtype=torch.float64)
    call = {"target": "KVCache", "object": cache, "method": "update", "args": (k.float(), v.float()), "kwargs": {},
            "got": (torch.cat([k, pad], 2).float(), torch.cat([v, pad], 2).float())}
    assert keys(direct(call)) == ["cache:whole-storage"]


def test_an_attention_that_uses_its_mask_the_wrong_way_round():
    module = ref.MultiHeadAttention(12, 3).double()
    made = Made("MultiHeadAttention", (12, 3), {}, module.state_dict())
    from grader.diagnosis.analysers import _variant

    inverted = _variant(attention_weights=lambda self, s, m: self.softmax(s if m is None else self.apply_mask(s, ~m)))
    call = {"target": "MultiHeadAttention", "object": made, "method": "__call__", "args": (randn(2, 5, 12).float(),),
            "kwargs": {}}
    call["got"] = diagnose.replay(inverted(), call).float()
    assert [d.id for d in _structural(call)] == ["mask:inverted"]


def test_a_final_reshape_that_is_missing():
    heads = randn(2, 3, 5, 4)
    got = heads.transpose(1, 2).float()  # (B, L, H, d_head), never viewed as (B, L, D)
    [finding] = direct(call_of("merge_heads", heads.float(), got=got))
    assert finding.key == "shape:not-flattened" and "(2, 5, 12)" in finding.message
    q, k = randn(2, 1, 6), randn(2, 4, 6, seed=1)
    dropped = (q @ k.transpose(-2, -1)).squeeze(1).float()  # fewer dims: squeezed, or one query paired element-wise
    assert keys(direct(call_of("attention_scores", q.float(), k.float(), got=dropped))) == ["shape:squeezed"]
    assert _structural(call_of("attention_scores", q.float(), k.float(), got=dropped)) == []  # the call cannot tell


def test_a_named_cause_is_the_diagnosis_where_nothing_explains_the_wrong_values():
    """Wrong values that neither the catalogue nor the analysers explain, beside a check whose message
    names its cause: the cause is the diagnosis (a ladder that teaches), not nothing; where a mistake
    explains the values, the cause stays out of it."""
    scores = randn(2, 5, 7) * 8
    unscaled = call_of("scale_scores", scores.float(), 64, got=scores.float())  # missing-scale
    by_dk = call_of("scale_scores", scores.float(), 16, got=(scores / 16).float())  # scale-by-dk
    cause = [("built-on-cpu", "on a GPU, scale_scores(...) fails", None)]
    assert [d.id for d in diagnose.conclude(3, [unscaled, by_dk], causes=cause)] == ["built-on-cpu"]
    assert [d.id for d in diagnose.conclude(3, [unscaled], causes=cause)] == ["missing-scale"]
