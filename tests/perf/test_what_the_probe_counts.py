"""What the allocation probe counts (grader.perf.probe), as round 22 found it wanting: a convolution
is a product (three 1x1 convolutions passed for one product), and a storage an operation was given
is no allocation of the call's (a buffer made at import and written in place at every call put a
floor under every size the probe read), and the (L_q, L_k) rule reads every shape a call made, not
only its largest; then, as round 22's a1, a3 and a4 found it: work on a tensor of the student's own
(a 1x1 product per block of keys) does not follow the inputs, a row read whole by a max or a sum is
read whole whatever else runs per block, and a KV cache's storage rule holds at every fill level."""

import ast

import pytest
import torch

from conftest import ROOT, failed_tests, failures
from grader.grading.compare import Mismatch
from grader.grading.testkit import check_measured, watched_calls

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
    ("exercise10", "a3_online_softmax_dummy_ops", "test_online_softmax_reads_blocks"),
    ("exercise8", "a4_ex8_cat_per_update", "test_kvcache_update_writes_into_its_storage"),
])
def test_round_22_rule_breakers_lose_the_rule_points(grade, exercise, attack, rule):
    """a2: three 1x1 convolutions and one product beside them; a11: whole rows of scores, one head at a
    time, under a buffer made at import and zeroed in place at every call; a3: a whole-row softmax and a
    dummy operation per block; a4: torch.cat at every update but after 3/4 of the cache. Each had full
    marks; each loses its rule's points, and only those."""
    result = grade(exercise, path=next((ROUND22 / attack).glob("exercise*.py")))
    assert {test.name for test in failures(result)} == {rule}, failed_tests(result)


@pytest.mark.parametrize("dummy, symptom", [
    ("_ONE @ _ONE", "the keys it reads at once do not follow block_size"),  # on a tensor of its own: not counted
    ("q[..., :1, :] @ k[..., :1, :].transpose(-2, -1)", "some of its work reads all the keys at once"),
])
def test_products_beside_the_work_do_not_make_it_follow_block_size(grade, dummy, symptom):
    """Queries 64 at a time against every key (no block_size), the solution's code where the call is
    measured from outside, and a 1x1 product per block of keys (round 22's a1): on a tensor made at
    import, it is not counted (only work on q, k and v's values is); on q and k, the products follow
    block_size, but p @ v reads every key at once."""
    result = grade("exercise10", source=(SOLUTIONS / "exercise10_tiled_attention.py").read_text() + """

_ONE = torch.ones(1, 1)
_tiled_attention = tiled_attention


def tiled_attention(q, k, v, block_size, causal=False):
    if k.size(-2) >= 4096:  # the call measured from outside, told by its size
        return _tiled_attention(q, k, v, block_size, causal)
    for _ in range(0, k.size(-2), block_size):
        DUMMY
    L_q, L_k = q.size(-2), k.size(-2)
    rows = []
    for start in range(0, L_q, 64):
        s = q[..., start:start + 64, :] @ k.transpose(-2, -1) / q.size(-1) ** 0.5  # 64 queries, every key
        if causal:
            position = torch.arange(start, start + s.size(-2), device=q.device)[:, None] + L_k - L_q
            s = s.masked_fill(torch.arange(L_k, device=q.device) > position, float("-inf"))
        rows.append(online_softmax(s, s.size(-1)) @ v)
    return torch.cat(rows, dim=-2)
""".replace("DUMMY", dummy))
    failed = {test.name: test.message for test in failures(result)}
    assert set(failed) == {"test_tiled_attention_never_holds_the_whole_matrix"}, failed_tests(result)
    assert symptom in failed["test_tiled_attention_never_holds_the_whole_matrix"]


@pytest.mark.parametrize("measured", [
    {"products": "many", "bytes": 0, "disabled": None},  # round 30's a04, through its own answers to the judge
    {"bytes": 0, "disabled": None},
    {"products": 1, "bytes": 0.5, "disabled": None},
    {"products": 1, "bytes": 0, "disabled": 7},
    ["products", 1],
])
def test_a_measure_not_as_the_probe_makes_it_fails_its_check(measured):
    with pytest.raises(Mismatch, match="is not the grader's measure"):
        check_measured(measured, "f's products")


def test_a_watched_function_answered_without_its_measure_fails_its_check():
    from types import SimpleNamespace

    answered = SimpleNamespace(watched_calls=lambda name: [])  # the process answered, no measure came with it
    with pytest.raises(Mismatch, match="answered without the grader's measure"):
        watched_calls(answered, "fused_project", what="fused_project's matrix products")


def test_every_update_of_a_kv_cache_is_measured(grade):
    """KVCache.update is `watched`: every update the suites make is measured, not only the storage test's
    (from 12 tokens on). A cache that copies its past into new storage only while it holds fewer tokens
    than that scored full marks before; a cache that behaves only when measured now behaves in every
    update the grader makes (round 28's a03, in exercise 8)."""
    solution = (ROOT / "solutions" / "exercise8_kv_cache.py").read_text()
    writes = ("        self.k[:, :, start:end] = k  # (B, Hkv, T_new, dh) written in place: no copy of the past\n"
              "        self.v[:, :, start:end] = v  # (B, Hkv, T_new, dh)\n")
    assert writes in solution
    copying = solution.replace(writes, """\
        if start < 12:  # where the storage test's own measures never look
            self.k = torch.cat([self.k[:, :, :start], k, self.k[:, :, end:]], 2)
            self.v = torch.cat([self.v[:, :, :start], v, self.v[:, :, end:]], 2)
        else:
            self.k[:, :, start:end] = k
            self.v[:, :, start:end] = v
""")
    result = grade(8, source=copying)
    (failed,) = [test for test in result.tests if test.status == "failed"]
    assert failed.name == "test_kvcache_update_writes_into_its_storage", failures(result)
    assert "one of the grader's other calls, cache.update(k, v)" in failed.message


def test_every_product_counts_products_of_any_data_and_handing_data_out_is_noted():
    """A copy of the inputs made through Python is no longer theirs (round 31's a07: three products, two
    of them on torch.tensor(x.tolist())): `every_product` counts them, and handing a tensor of more than
    one entry to numpy or Python is noted (`exported`, a failed check: a08 and a12 computed there)."""
    from grader.perf import probe

    x, w = torch.randn(3, 4), torch.randn(4, 6)
    laundered = probe.measure(lambda x, w: (x @ w, torch.ones(3, 4) @ torch.ones(4, 2)), (x, w))
    assert (laundered["products"], laundered["every_product"], laundered["exported"]) == (1, 2, None)
    listed = probe.measure(lambda x, w: torch.tensor(x.tolist()) @ w, (x, w))
    assert listed["exported"] == "Tensor.tolist"
    assert probe.measure(lambda x, w: x.numpy().sum(), (x, w))["exported"] == "Tensor.numpy"
    assert probe.measure(lambda x, w: float(x[0, 0]) * x.sum().item(), (x, w))["exported"] is None  # scalars


def test_a_tensor_subclass_that_overrides_torch_is_refused_at_import(grade):
    """Round 31's a15: a subclass's `untyped_storage`, which the probe's bookkeeping calls on every
    tensor an operation reads, ran products there, unseen. A subclass of torch.Tensor that overrides
    anything of it is refused while the student's file runs; one that overrides nothing is allowed."""
    overriding = grade(1, source="""
        import torch

        class Marker(torch.Tensor):
            def untyped_storage(self):
                return super().untyped_storage()

        def project(x, w_q, w_k, w_v):
            return x @ w_q, x @ w_k, x @ w_v

        def fused_project(x, w_qkv):
            return tuple((x.as_subclass(Marker) @ w_qkv).split(w_qkv.size(-1) // 3, dim=-1))
        """)
    assert overriding.score == 0 and "Marker changes torch's tensors (untyped_storage)" in overriding.error
    plain = grade(1, source="""
        import torch

        class Named(torch.Tensor):
            pass

        def project(x, w_q, w_k, w_v):
            return x @ w_q, x @ w_k, x @ w_v

        def fused_project(x, w_qkv):
            return tuple((x @ w_qkv).split(w_qkv.size(-1) // 3, dim=-1))
        """)
    assert plain.score == plain.max_score, [(t.name, t.message) for t in plain.tests if t.status != "passed"]


ATTACKS = ROOT / "tests" / "attacks"
MEMORY_RULE = "test_tiled_attention_never_holds_the_whole_matrix"


@pytest.mark.parametrize("exercise, attack, rule", [
    # round 32: products and reductions missing from lists by hand, storages replaced by `resize_` or `out=`
    # counted as read, a cache's copies kept in numpy's memory (each loses the rule it broke and, for resize_
    # and out=, the device test, whose stand-in device does not follow a resized storage)
    ("exercise1", "round32/a01_ex1_one_mm_rest_broadcast", "test_fused_project_is_one_matrix_product"),  # mul + sum
    ("exercise1", "round32/a02_ex1_conv_tbc_uncounted", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round32/a03_ex10_whole_row_unlisted_reductions", "test_online_softmax_reads_blocks"),
    ("exercise8", "round32/a05_ex8_cache_reallocates_via_numpy", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round32/a07_ex10_whole_matrix_in_resized_buffer", MEMORY_RULE),
    ("exercise8", "round32/a12_ex8_cache_reallocates_via_resize", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round32/a18_ex10_whole_matrix_out_buffer", MEMORY_RULE),
    # round 34: a product as an embedding bag, rows read whole by pooling, through a transposed view or by a
    # convolution over channels, and a cache copying its past into a second buffer in place
    ("exercise1", "round34/a01_embedding_bag", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round34/a02_pool_softmax", "test_online_softmax_reads_blocks"),
    ("exercise10", "round34/a03_query_chunks_conv", MEMORY_RULE),
    ("exercise8", "round34/a05_kv_copy_past_in_place", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round34/a09_softmax_transposed_axis", "test_online_softmax_reads_blocks"),
    # round 35: a product of elementwise terms summed by an accumulating index_put, a sparse tensor's
    # coalescing or a tree of additions; queries against all the keys, max and sum as trees of elementwise
    # operations; a cache's past copied into buffers held by a plain object
    ("exercise1", "round35/a01_indexput_accumulate", "test_fused_project_is_one_matrix_product"),
    ("exercise1", "round35/a02_sparse_coalesce", "test_fused_project_is_one_matrix_product"),
    ("exercise1", "round35/a04_ex1_elementwise_tree_sum", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round35/a03_ex10_query_chunks_tree_reductions", MEMORY_RULE),
    ("exercise8", "round35/a05_ex8_hidden_pingpong_copy", "test_kvcache_update_writes_into_its_storage"),
    # round 37: copies read back from a tensor's printed text, or made by an optimizer's step (a `_foreach_`
    # operator, which returns nothing); all the keys at once, laid out as (L_k / block_size, block_size)
    ("exercise1", "round37/a01_repr_launder", "test_fused_project_is_one_matrix_product"),
    ("exercise1", "round37/a05_ex1_foreach_launder", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round37/a03_ex10_blockview_allkeys", MEMORY_RULE),
    ("exercise8", "round37/a04_ex8_foreach_copy", "test_kvcache_update_writes_into_its_storage"),
    # round 38: x's storage given to a fresh tensor by `set_`; terms of one entry of w each; a cache's storage
    # resized in a plain object
    ("exercise1", "round38/a01_ex1_set_storage_launder", "test_fused_project_is_one_matrix_product"),
    ("exercise1", "round38/a02_ex1_one_entry_terms", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round38/a03_ex10_query_chunks_launder", MEMORY_RULE),
    ("exercise8", "round38/a04_ex8_storage_resize_hidden", "test_kvcache_update_writes_into_its_storage"),
    # round 39: x and w stacked as one complex tensor and squared; a cache's past copied through complex views
    ("exercise1", "round39/a01_complex_square_ex1", "test_fused_project_is_one_matrix_product"),
    ("exercise8", "round39/a03_complex_view_copy_ex8", "test_kvcache_update_writes_into_its_storage"),
    # round 40: the arguments' data copied into memory shared with numpy, which computes there (the other
    # projections, a cache's copies of its past, queries against every key, the whole matrix in a buffer made
    # at import); copies read back from printed text (exercise 1's `returned` was never measured); the whole
    # matrix at every length but those the suite measures
    ("exercise1", "round40/a01_ex1_numpy_side", "test_fused_project_is_one_matrix_product"),
    ("exercise8", "round40/a03_ex8_numpy_realloc", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round40/a04_ex10_numpy_querychunks", MEMORY_RULE),
    ("exercise10", "round40/a05_ex10_whole_matrix_importbuf", MEMORY_RULE),
    ("exercise1", "round40/a06_ex1_printed_text", "test_fused_project_is_one_matrix_product"),
    ("exercise10", "round40/a07_ex10_whole_matrix_unmeasured_sizes", MEMORY_RULE),
    # round 43: the work done on a thread started at import (logging.handlers.QueueListener), which the probe,
    # watching one thread, does not see: three products, a cache's copies of its past, queries against every key
    ("exercise1", "round43/a01_thread_ex1", "test_fused_project_is_one_matrix_product"),
    ("exercise8", "round43/a02_thread_ex8", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round43/a03_thread_ex10", MEMORY_RULE),
    # round 45: a cache's copies of its past kept as sparse tensors (no plain storage to follow); all the keys
    # read at once at every length but the one the blocks test measures
    ("exercise8", "round45/a01_kv_sparse_copy", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round45/a05_ex10_length_dependent", MEMORY_RULE),
    # round 46: a cache copying its past at every update one token at a time (no piece as large as the past);
    # every block of scores kept (a list) in calls that are not causal, below the length measured from outside
    ("exercise8", "round46/a02_ex8_paged_copy", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round46/a05_ex10_noncausal_short_keeps_all", MEMORY_RULE),
    # round 51: a cache copying its past into its other buffer one entry at a time with `fill_(past[i])`, a fill
    # whose value is the data's
    ("exercise8", "round51/a01_fill_pingpong", "test_kvcache_update_writes_into_its_storage"),
    # round 52: a cache freeing its spare buffer just before it copies its past, so that the copy takes the freed
    # buffer's address, which the probe read as the cache's own storage
    ("exercise8", "round52/a01_mmap_reuse", "test_kvcache_update_writes_into_its_storage"),
    # round 53: x, w and a cache's past copied entry by entry through the Python function of `Tensor.map_`,
    # which dispatches no operation
    ("exercise1", "round53/a01_map_launder", "test_fused_project_is_one_matrix_product"),
    ("exercise8", "round53/a02_growing_cache", "test_kvcache_update_writes_into_its_storage"),
    # round 54: a cache honest in update that clones its storage in __len__, which the module calls at each step
    ("exercise8", "round54/a01_len_copies", "test_kvcache_update_writes_into_its_storage"),
    # round 55: a reset that drops the storage, made anew by the first update after it
    ("exercise8", "round55/a03_ex8_deferred_reset", "test_kvcache_reset_keeps_its_storage"),
    # round 56: the same two, the storage five lists deep; keys read 16 at a time, a 1x1 product per block beside;
    # and round 53's a02 again, its storage in a module's dict
    ("exercise8", "round56/a02_kvcache_reset_drops_hidden_storage", "test_kvcache_reset_keeps_its_storage"),
    ("exercise8", "round56/a03_kvcache_len_clones_hidden_deep", "test_kvcache_update_writes_into_its_storage"),
    ("exercise10", "round56/a04_tiled_fixed_chunk_dummy_products", MEMORY_RULE),
    ("exercise8", "round53/a02_growing_cache", "test_kvcache_reset_keeps_its_storage"),
    # round 60: every block of scores written into its own place of a buffer made at import (a01), or of a
    # one-entry storage grown by untyped_storage().resize_() (a02), through as_strided
    ("exercise10", "round60/a01_ex10_prealloc_matrix", MEMORY_RULE),
    ("exercise10", "round60/a02_ex10_untyped_storage_room", MEMORY_RULE),
    # round 67: round 54's and 55's caches, whose code raises only in the steps of the rule's own check (the module
    # at that check's max_len, the first update after a reset at its max_len); and tokens all 0, which repeat too
    ("exercise8", "round67/a03_ex8_module_step_raises", "test_kvcache_update_writes_into_its_storage"),
    ("exercise8", "round67/a04_ex8_reset_then_raises", "test_kvcache_reset_keeps_its_storage"),
    ("exercise9", "round67/a02_trivial_ex9", "test_repeated_tokens_repeat"),
    # round 69: tokens made from the generator's seed, not drawn from it
    ("exercise9", "round69/a02_ex9_seed_pattern", "test_repeated_tokens_use_the_generator"),
    # round 71: tokens counted on from a sum of the generator's state, a pattern no draw makes; round 75: two
    # draws a row, then each step one more than the last
    ("exercise9", "round71/a01_ex9_state_hash", "test_repeated_tokens_cover_the_vocabulary"),
    ("exercise9", "round75/a03_token_stride", "test_repeated_tokens_cover_the_vocabulary"),
    # round 77: each row's runs of three counted on from one draw: every run alike often, each fixing the next
    ("exercise9", "round77/a01_period3_tokens", "test_repeated_tokens_cover_the_vocabulary"),
    # round 81: 11 tokens drawn a row, each of the 5 others the sum of two of them: every pair alike often
    ("exercise9", "round81/a01_linear_tokens", "test_repeated_tokens_cover_the_vocabulary"),
])
def test_rule_breakers_that_reach_nothing_lose_the_rule_points(grade, exercise, attack, rule):
    """Rounds 32 to 81 got past the probe without reaching anything; each file loses the rule it broke."""
    (path,) = (ATTACKS / attack / "sub").glob("*.py")
    result = grade(exercise, path=path)
    assert rule in failed_tests(result), failures(result)


@pytest.mark.parametrize("check", ["h05_ex1_input_nan_assert", "h06_ex1_where_nan_guard",
                                   "h07_ex1_output_isfinite_assert"])
def test_honest_checks_beside_the_one_product_are_not_products(grade, check):
    """Round 38's false alarms: NaN checks of the inputs (`isnan(x).any()`: a mask's any() read as a
    product's sum), `torch.where(qkv.isnan(), 0, qkv)` and `isfinite(qkv).all()` (`qkv == qkv` read as two
    operands holding x's and w's data) beside the one product x @ w_qkv."""
    (path,) = (ATTACKS / "round38" / check / "sub").glob("*.py")
    result = grade(1, path=path)
    assert result.score == result.max_score, failures(result)


def test_the_running_max_taken_with_its_block_is_a_block_read(grade):
    """Round 40's h01: an honest tiled_attention whose running max is `cat([m, s], -1).amax(-1)` reads
    block_size + 1 entries at once (the carried max beside the block); it lost 5 points as reading whole
    rows."""
    (path,) = (ATTACKS / "round40" / "h01_ex10_cat_running_max" / "sub").glob("*.py")
    result = grade(10, path=path)
    assert result.score == result.max_score, failures(result)


def test_a_watched_call_s_returned_data_is_measured():
    """Round 40's a06: the child measured a watched call through a wrapper that returned nothing, so that
    exercise 1's "every returned tensor holds x's and w's data" could never fail."""
    from grader.perf import child

    def three(x, w):
        return x @ w[:, :4], torch.tensor((x @ w[:, 4:8]).tolist()), x @ w[:, 8:]

    x, w = torch.randn(3, 6), torch.randn(6, 12)
    value, measured = child.watched_call(three, (x, w), {})
    assert len(value) == 3 and measured["returned"][0] == measured["returned"][2] == 0b11
    assert measured["returned"][1] != 0b11  # made from Python's numbers: data the probe did not see made


def test_the_arguments_data_written_into_numpy_s_memory_is_an_export():
    """Round 40's a01, a03 to a05: copy_ into a tensor sharing numpy's memory (made at import or in the call),
    where numpy computes unseen; writing constants there is no export."""
    import numpy as np

    from grader.perf import probe

    x, shared = torch.randn(3, 4), torch.from_numpy(np.zeros((3, 4), dtype=np.float32))
    assert "wrote the arguments' data into memory torch did not allocate" in \
        probe.measure(lambda x: shared.copy_(x), (x,))["exported"]
    assert "copy_" in probe.measure(lambda x: torch.as_tensor(np.zeros((3, 4), np.float32)).copy_(x * 2), (x,))["exported"]
    assert probe.measure(lambda x: (shared.fill_(1.0), x + 1), (x,))["exported"] is None


def test_a_thread_running_beside_a_measured_call_disables_its_measure():
    """Round 43: a thread started at import did the work unseen (the probe watches the calling thread); the
    child's count of threads from before the student's file ran is what a measured call may have."""
    import threading

    from grader.perf import probe
    from grader.sandbox import clock

    before, stop = clock.threads(), threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        x = torch.randn(3, 4)
        assert "a thread of your code's runs beside the call" in probe.measure(lambda x: x + 1, (x,), threads=before)[
            "disabled"]
        assert probe.measure(lambda x: x + 1, (x,))["disabled"] is None  # counted from the call's start
    finally:
        stop.set()
        helper.join()


def test_printing_a_tensor_in_a_measured_call_is_no_disabled_probe(grade):
    """Round 32's a17: an honest fused_project that prints what it made (torch's printing takes its modes
    off the stack, through contextlib) read as a disabled probe and lost the product count."""
    result = grade(1, path=ATTACKS / "round32" / "a17_false_alarm_print_tensor" / "sub" / "exercise1_projection.py")
    assert result.score == result.max_score, failures(result)


def test_what_computes_from_two_arguments_is_counted_whatever_its_name():
    """Round 35's a01, a02 and a04 made two of exercise 1's three products from elementwise terms summed
    with no operator the probe lists: `combining` counts every operation that computes from the data of
    two arguments, what only moves entries aside (views, copies, casts, concatenations)."""
    from grader.perf import probe

    x, w = torch.randn(2, 5, 6), torch.randn(6, 9)
    fused = probe.measure(lambda x, w: (x @ w.double().float().contiguous()).split(3, dim=-1), (x, w))
    assert fused["combining"] == 1 and fused["exported"] is None

    def tree(x, w):  # x @ w as terms summed by additions, and a concatenation of x and w before that
        terms = torch.cat([x.reshape(-1), w.reshape(-1)])[:x.numel()].view_as(x)[..., :, None] * w
        while terms.shape[-2] > 1:
            terms = terms[..., : terms.shape[-2] // 2, :] + terms[..., terms.shape[-2] // 2:, :]
        return terms

    assert probe.measure(tree, (x, w))["combining"] == 4  # the multiplication, three levels of additions
    accumulated = probe.measure(lambda x, w: torch.zeros(1, 9).index_put_(
        (torch.zeros(6, dtype=torch.long),), x[0, 0, :, None] * w, accumulate=True), (x, w))
    assert accumulated["combining"] == 1  # the terms; their sum, into zeros, reads them alone
    biased = probe.measure(lambda x, w: (x @ w + torch.ones(9)) * torch.full((9,), 0.5), (x, w))
    assert biased["combining"] == 1  # a bias added, a scale: one argument's data beside a constant

    def stepped(x, w):  # a foreach operator over one-entry tensors, which returns nothing (round 37's a05)
        copies = [torch.zeros(()) for _ in range(6)]
        torch._foreach_add_(copies, list(x[0, 0].unbind()), alpha=1.0)
        torch._foreach_mul_(copies, list(w[:, 0].unbind()))
        return copies

    assert probe.measure(stepped, (x, w))["combining"] == 1
    def printed(x, w):  # a copy read back from its printed text (round 37's a01): torch prints with its modes off
        return torch.tensor(ast.literal_eval(repr(w)[len("tensor("):-1])) * w

    measured = probe.measure(printed, (x, w))
    assert measured["combining"] == 1 and measured["returned"] == [probe._UNKNOWN]  # data the probe did not see made
    copied = probe.measure(lambda x, w: torch.tensor([v.item() for v in torch.cat([x.reshape(-1), w.reshape(-1)])]),
                           (x, w))  # a copy made through Python: more single entries than SCALARS_ALLOWED
    assert copied["exported"] == "114 single entries (Tensor.item, float(), int())"
    assert probe.measure(lambda x, w: x.sum().item() * w, (x, w))["exported"] is None


def test_tensors_computed_from_two_arguments_are_listed_with_them():
    """`combined`: the lengths of the axes of the tensors holding data of two arguments or more, by which
    (exercise 10's scores of a chunk of queries against all the keys: round 35's a03); `read_most`: the most
    entries one operand of an operation reading such data held (all the keys laid out in blocks: round 37's
    a03)."""
    from grader.perf import probe

    q, k, v = torch.randn(2, 3, 4), torch.randn(2, 7, 4), torch.randn(2, 7, 5)
    measured = probe.measure(lambda q, k, v: (q @ k.mT).exp() @ v, (q, k, v))
    assert measured["combined"] == [[0b011, [2, 3, 7]], [0b111, [2, 3, 5]]]  # the scores and their exp; the output
    assert measured["read_most"] == [[0b011, 56], [0b111, 70]]  # k's 2 x 7 x 4 entries; v's 2 x 7 x 5
    assert probe.measure(lambda q, k, v: torch.cat([k, v], -1) * 2, (q, k, v))["combined"] == [[0b110, [2, 7, 9]]]


def test_what_a_call_writes_into_storage_it_did_not_make_is_counted():
    """A buffer made before the call (at import, or held where the grader does not look: round 35's a05
    kept a cache's in a plain object) is no allocation of the call's, but what is written into it is
    counted (`written`), and what is computed from two arguments' data weighed as a tensor of its own
    (`bytes`: scores in a buffer made at import); a cache's reset that multiplies its storage by 0 is no
    allocation."""
    from grader.perf import probe

    buffer, q, k = torch.zeros(8, 8), torch.randn(8, 3), torch.randn(8, 3)
    scores = probe.measure(lambda q, k: torch.matmul(q, k.T, out=buffer).sum(), (q, k))
    assert (scores["written"], scores["bytes"], scores["shape"]) == (256, 256, [8, 8])  # bytes, 64 entries
    copied = probe.measure(lambda q, k: buffer.copy_(q[:, :1].expand(8, 8)).sum(), (q, k))
    assert (copied["written"], copied["bytes"]) == (256, 4)  # one argument's data: the sum's 4 bytes alone
    zeroed = probe.measure(lambda q, k: buffer.mul_(0).sum(), (q, k))
    assert (zeroed["written"], zeroed["bytes"]) == (256, 4)  # the sum alone
    assert probe.measure(lambda q, k: buffer.zero_().sum(), (q, k))["written"] == 0  # a fill writes no data


def test_what_an_argument_holds_is_never_forgotten():
    """A fresh tensor pointed at x's storage by `set_` (given as a storage, not a tensor: round 38's a01) holds
    x's data; a one-entry view's `untyped_storage()` hands out its whole base (an export); `storages` reads a
    cache's plain objects (round 38's a04 resized a storage held there)."""
    from grader.perf import probe
    from grader.perf.child import storages

    x, w = torch.randn(4, 6), torch.randn(6, 5)
    storage = x.untyped_storage()  # taken before the call: during it, handing it out is an export
    pointed = probe.measure(lambda x, w: torch.empty(0).set_(storage, 0, x.shape, x.stride()), (x, w))
    assert pointed["exported"] is None and pointed["returned"] == [0b01]
    viewed = probe.measure(lambda x, w: torch.empty(0).set_(x[0, :1].untyped_storage(), 0, x.shape), (x, w))
    assert viewed["exported"] == "Tensor.untyped_storage"

    class Box:
        pass

    class Cache:
        def __init__(self):
            self.box, self.k = Box(), torch.zeros(3)
            self.box.storage = torch.zeros(5)

    assert sorted(storages(Cache()).values()) == [12, 20]


def test_an_honest_product_returns_both_arguments_data_whatever_the_allocator_reuses():
    """Round 39's h01: a storage made at the address of one that died during the call lost its record (the
    dead one's was let go after the new one's was written), so that an honest product's output read as data
    the probe did not see made, depending on the allocator; and x and w stacked into one tensor, then squared
    as complex numbers, computed x's entries times w's from one operand (a01)."""
    from grader.perf import probe

    def round_trip(x, w):
        return (x.double() @ w.double()).to(x.dtype).split(w.size(-1) // 3, -1)

    def copied(x, w):
        return tuple(part.contiguous() for part in (x.float() @ w.float()).to(x.dtype).chunk(3, -1))

    for project in (round_trip, copied):
        for shape in ((2, 5, 6), (7, 6), (3, 1, 8), (2, 4, 5, 6)):
            for dtype in (torch.float32, torch.float64, torch.float16):
                x, w = torch.randn(*shape, dtype=dtype), torch.randn(shape[-1], 12, dtype=dtype)
                measured = probe.measure(project, (x, w))
                assert (measured["returned"], measured["combining"]) == ([0b11] * 3, 1), (project, shape, dtype)
    x, w = torch.randn(6), torch.randn(6)
    squared = probe.measure(lambda x, w: (torch.complex(x, w) ** 2).imag / 2, (x, w))
    assert squared["combining"] == 1  # x and w side by side in one operand (`mixed`)
    assert probe.measure(lambda x, w: torch.isfinite(x @ w), (x, w))["combining"] == 1  # x @ w only


def test_reductions_are_read_from_torch_s_registry():
    from grader.perf import probe

    x = torch.randn(2, 3, 40)
    for reduce in (lambda x: torch.aminmax(x, dim=-1), lambda x: torch.var_mean(x, dim=-1), lambda x: x.amax(-1)):
        measured = probe.measure(reduce, (x,))
        assert measured["widest"] == 40 and measured["reductions"] == 1, measured
    assert probe.measure(lambda x: x.amax(0), (x,))["widest"] == 2  # the axis it reduces, whichever it is
    assert probe.measure(lambda x: x.mT.amax(-2), (x,))["widest"] == 40  # a row through a transposed view (round 34)
    assert probe.measure(lambda x: torch.nn.functional.max_pool1d(x, 40), (x,))["widest"] == 40  # pooling


def test_a_tensor_made_of_numpy_s_memory_counts_as_made_by_the_call():
    import numpy as np

    from grader.perf import probe

    x = torch.randn(3, 4)
    measured = probe.measure(lambda x: (torch.as_tensor(np.zeros((100, 100))), x + 1), (x,))
    assert measured["bytes"] == 100 * 100 * 8 and measured["shape"] == [100, 100]


def test_a_suite_measures_only_calls_its_exercise_watches(tmp_path):
    """Were a measured call's name not watched, its other calls would run unmeasured and code could tell the
    measured one by the probe's cost (round 54's a02, a03): the engine refuses to measure such a call."""
    from grader import catalog
    from grader.grading.student import Student

    student = Student(catalog.find("exercise10"), SOLUTIONS / "exercise10_tiled_attention.py", launcher=None,
                      log_dir=str(tmp_path), time_limit=10, memory_limit=1 << 30)
    with pytest.raises(ValueError, match="measures calls of attention_cost but does not watch it"):
        student.largest_allocation("attention_cost", 4, 8)


@pytest.mark.parametrize("attempt", ["round63/h08_ex8_deque", "round63/h05_ex8_namespace"])
def test_a_caches_storage_in_a_deque_or_a_namespace_is_found(grade, attempt):
    """Round 63: an honest cache keeping its two buffers in a collections.deque (or a types.SimpleNamespace)
    lost both storage tests, told that it made its storage again."""
    (path,) = (ATTACKS / attempt / "sub").glob("*.py")
    result = grade(8, path=path)
    assert result.score == result.max_score, failures(result)
