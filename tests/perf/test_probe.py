"""The allocation probe (grader.perf.probe) cannot be switched off unnoticed: each way student code
can blind a TorchDispatchMode makes the measurement `disabled`, never small; an honest call is
measured exactly and never reads as disabled. Then exercise 10's memory rule end to end: the
solution keeps its points, the full (L, L) matrix loses them with the sizes in the message, and a
file that switches the probe off loses them as "the grader's probe was disabled"."""

import re
import sys
import textwrap
import threading
import types

import pytest
import torch
from torch.utils._python_dispatch import _disable_current_modes

from conftest import SOLUTIONS
from test_diagnoses import graded
from grader import catalog
from grader.perf import probe
from grader.sandbox import rules

SLOW = SOLUTIONS.parent / "tests" / "slow_submissions"
B, H, D, BLOCK = 1, 4, 32, 64


def full_matrix(q, k, v):
    """Every score at once: the (L, L) matrix of each head."""
    return (q @ k.transpose(-2, -1)).exp() @ v


def tiled(q, k, v):
    """One block of keys at a time (no softmax: only the allocations matter here)."""
    return sum((q @ k[..., start:start + BLOCK, :].transpose(-2, -1)).exp() @ v[..., start:start + BLOCK, :]
               for start in range(0, k.size(-2), BLOCK))


def inputs(L):
    gen = torch.Generator().manual_seed(L)
    return [torch.randn(B, H, L, D, generator=gen) for _ in "qkv"]


@pytest.fixture(autouse=True)
def one_thread():
    """The child runs torch on one thread; so does this process while it measures (torch's pool,
    started on a first parallel call, would be a thread started during the call)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    torch.randn(64, 64) @ torch.randn(64, 64)
    yield
    torch.set_num_threads(threads)


def test_an_honest_call_is_measured_exactly_and_never_reads_as_disabled():
    for L in (256, 512):
        measured = probe.measure(full_matrix, inputs(L))
        assert measured["disabled"] is None and measured["bytes"] == B * H * L * L * 4
        measured = probe.measure(tiled, inputs(L))
        assert measured["disabled"] is None and measured["bytes"] == B * H * L * BLOCK * 4


def _modes_disabled(q, k, v):
    with _disable_current_modes():
        return full_matrix(q, k, v)


def _dispatch_disabled(q, k, v):
    with torch._C._DisableTorchDispatch():
        return full_matrix(q, k, v)


def _key_excluded(q, k, v):
    with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(torch._C.DispatchKey.Python)):
        return full_matrix(q, k, v)


def _mode_popped(q, k, v):
    torch._C._pop_torch_dispatch_stack(None)
    return full_matrix(q, k, v)


def _in_a_thread(q, k, v):
    out = []
    worker = threading.Thread(target=lambda: out.append(full_matrix(q, k, v)))
    worker.start()
    worker.join()
    return out[0]


def _profile_removed(q, k, v):
    sys.setprofile(None)
    with _disable_current_modes():
        return full_matrix(q, k, v)


def _profile_removed_and_restored(q, k, v):
    watch = sys.getprofile()
    sys.setprofile(None)
    with _disable_current_modes():
        out = full_matrix(q, k, v)
    sys.setprofile(watch)
    return out


def _own_dispatch_on_the_instance(q, k, v):
    mode = torch._C._get_dispatch_stack_at(torch._C._len_torch_dispatch_stack() - 1)
    mode.__torch_dispatch__ = types.MethodType(lambda self, func, kinds, args=(), kwargs=None:
                                               func(*args, **(kwargs or {})), mode)
    return full_matrix(q, k, v)


DISABLING = {"modes-disabled": _modes_disabled, "dispatch-disabled": _dispatch_disabled,
             "python-key-excluded": _key_excluded, "mode-popped": _mode_popped, "thread": _in_a_thread,
             "profile-removed": _profile_removed, "profile-removed-and-restored": _profile_removed_and_restored,
             "instance-patched": _own_dispatch_on_the_instance}


def test_only_work_on_the_inputs_data_is_counted_and_the_widest_reduction_is_read():
    """Operations count where they read the call's inputs or what was computed from them (a 1x1 product
    on a tensor of the caller's own is no block of keys read: round 22's a1), and `widest` is the most
    entries of a row one reduction or product read (a whole-row max beside a dummy per block: a3)."""
    own = torch.ones(1, 1)
    x = torch.randn(2, 3, 12)

    def whole_rows_and_a_dummy_per_block(x, block):
        for _ in range(0, x.size(-1), block):
            own @ own
        e = (x.double() - x.amax(dim=-1, keepdim=True)).exp()
        return e / (e @ torch.ones(x.size(-1), 1, dtype=e.dtype))

    def every_block_at_once(x, block):  # the max of each block of 4, then of the 3 blocks' maxima
        m = x.view(*x.shape[:-1], -1, block).amax(-1).amax(-1, keepdim=True)
        return (x - m).exp()

    measured, whole = (probe.measure(whole_rows_and_a_dummy_per_block, (x, block)) for block in (4, 12))
    assert (measured["products"], measured["widest"]) == (1, 12) and measured["ops"] == whole["ops"], measured
    measured = probe.measure(every_block_at_once, (x, 4))
    assert (measured["products"], measured["widest"]) == (0, 4), measured
    assert probe.measure(lambda x: (x == float("-inf")).sum(-1), (x,))["widest"] == 0  # counts, not values


def test_scores_written_into_a_buffer_made_before_the_call_weigh_all_the_buffer_holds():
    """Round 60's a01 wrote each block of scores into its own place of a buffer made at import, through
    `as_strided` of a one-entry view: weighed per write, the buffer read as one block while it held the whole
    (L, L) matrix. Weighed by the bytes of the buffers written so far (round 64's a01: a block in each of
    several), they hold the whole; a block buffer written again at each block holds one block, and a slice
    of a cache's storage its own runs, not the span between its first byte and its last (round 64's h01)."""
    L, block = 64, 16
    q, k = torch.randn(L, 8), torch.randn(L, 8)
    buffer = torch.empty(L * L)[:1]  # made before the call

    def kept_in_place(q, k):
        for start in range(0, L, block):
            buffer.as_strided((L, block), (L, 1), start).copy_(q @ k[start:start + block].T)  # (L, block)
        return buffer.as_strided((L, L), (L, 1)).sum()

    def block_reused(q, k):
        total = q.new_zeros(())
        for start in range(0, L, block):
            scores = buffer.as_strided((L, block), (block, 1))
            total = total + scores.copy_(q @ k[start:start + block].T).sum()
        return total

    pool = [torch.empty(L * block) for _ in range(L // block)]  # round 64's a01: a block in each of several

    def kept_in_a_pool(q, k):
        for index, start in enumerate(range(0, L, block)):
            pool[index].view(L, block).copy_(q @ k[start:start + block].T)
        return sum(buffer.sum() for buffer in pool)

    cache = torch.zeros(2, 3, L, 8)  # round 64's h01: keys and values stacked into a slice of a cache's storage

    def stacked_into_a_slice(k, v):
        cache[:, :, 5:7].copy_(torch.stack((k, v)))
        return cache[:, :, :7]

    assert probe.measure(kept_in_place, (q, k))["bytes"] == L * L * 4
    assert probe.measure(kept_in_a_pool, (q, k))["bytes"] == L * L * 4
    assert probe.measure(block_reused, (q, k))["bytes"] == L * block * 4
    assert probe.measure(stacked_into_a_slice, (torch.randn(3, 2, 8), torch.randn(3, 2, 8)))["bytes"] == 2 * 3 * 2 * 8 * 4


@pytest.mark.parametrize("attack", DISABLING)
def test_a_disabled_probe_reads_as_disabled(attack):
    depth = torch._C._len_torch_dispatch_stack()
    measured = probe.measure(DISABLING[attack], inputs(256))
    assert measured["disabled"] and measured["disabled"].startswith(probe.DISABLED), measured
    assert torch._C._len_torch_dispatch_stack() == depth and sys.getprofile() is None  # left as found


def test_a_patched_probe_class_reads_as_disabled(monkeypatch):
    def patch(q, k, v):
        monkeypatch.setattr(probe.LargestAllocation, "__torch_dispatch__",
                            lambda self, func, types, args=(), kwargs=None: func(*args, **(kwargs or {})))
        return full_matrix(q, k, v)

    measured = probe.measure(patch, inputs(256))
    assert measured["disabled"] == f"{probe.DISABLED}: the probe's class was changed", measured


def test_torch_functions_replaced_by_the_student_do_not_blind_the_canary(monkeypatch):
    """The canaries are allocated through torch's function captured at import: a submission that
    replaces torch.empty changes nothing (and its own allocations are still seen)."""
    def patch(q, k, v):
        monkeypatch.setattr(torch, "empty", lambda *args, **kwargs: None)
        return full_matrix(q, k, v)

    measured = probe.measure(patch, inputs(256))
    assert measured["disabled"] is None and measured["bytes"] == B * H * 256 * 256 * 4


def _numpy_full_matrix(q, k, v):
    """A whole (L, L) matrix of every head, in numpy: torch never allocates it (round 10's a07).
    No matrix product: numpy's would start BLAS threads, which the probe reads as disabled."""
    import numpy

    scores = numpy.full((*q.shape[:-1], k.shape[-2]), 0.5, dtype=numpy.float32)  # (B, H, L, L)
    return v * float(scores.mean())


def test_memory_outside_torch_is_counted():
    measured = probe.measure(_numpy_full_matrix, inputs(1024))
    assert measured["disabled"] is None and measured["bytes"] >= B * H * 1024 * 1024 * 4 and measured["shape"] == []


def test_stopping_tracemalloc_reads_as_disabled():
    import tracemalloc

    def stop(q, k, v):
        tracemalloc.stop()
        return _numpy_full_matrix(q, k, v)

    measured = probe.measure(stop, inputs(256))
    assert measured["disabled"] and "tracemalloc" in measured["disabled"], measured


def test_memory_traced_before_the_call_and_freed_in_it_offsets_nothing():
    """Round 11's a04: tracemalloc started by the student's code, a ballast freed during the call."""
    import tracemalloc

    tracemalloc.start()
    ballast = [bytearray(64 << 20)]
    try:
        def freed_then_allocated(q, k, v):
            ballast.clear()
            return _numpy_full_matrix(q, k, v)

        measured = probe.measure(freed_then_allocated, inputs(1024))
    finally:
        tracemalloc.stop()
    assert measured["disabled"] is None and measured["bytes"] >= B * H * 1024 * 1024 * 4, measured


def test_a_module_torch_imports_lazily_in_a_measured_call_is_imported_unwatched(tmp_path, monkeypatch):
    """Round 60's h09: torch.utils.checkpoint imports torch._dynamo (some 800 modules) at its first call; under
    the watch's profile function that took 20 s, and an honest answer ran out of time. An import torch starts
    runs with no profile function and the collector off; one the student's code starts stays watched."""
    import gc
    import os

    (tmp_path / "lazy_from_torch.py").write_text("import gc, sys\nSEEN = (sys.getprofile(), gc.isenabled())\n")
    (tmp_path / "lazy_from_student.py").write_text("import sys\nSEEN = sys.getprofile()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    as_torch = compile("import lazy_from_torch", os.path.join(os.path.dirname(torch.__file__), "lazily.py"), "exec")

    def call(x):
        exec(as_torch, {})  # a frame of torch's own file
        import lazy_from_student  # noqa: F401
        return x * 2

    measured = probe.measure(call, (torch.ones(3),))
    assert measured["disabled"] is None and measured["bytes"] == 12
    assert sys.modules["lazy_from_torch"].SEEN == (None, False) and gc.isenabled()
    assert isinstance(sys.modules["lazy_from_student"].SEEN, probe._Watch)
    assert sys.modules["_frozen_importlib"]._find_and_load is probe._bootstrap._find_and_load
    assert not isinstance(getattr(probe._bootstrap._find_and_load, "__self__", None), probe._LazyImports)


def test_a_caches_storage_is_found_without_running_its_code():
    """Its attributes and containers are never asked (a `__dict__` property, a list's `__iter__`:
    round 10's a01, a02 and a15 did slow work or showed other tensors there)."""
    from grader.perf.child import storages

    class Hides(list):
        def __iter__(self):
            raise AssertionError("the student's __iter__ ran")

    class Key(str):  # hashed as "__builtins__": a lookup of that name would call its __eq__ (round 11's a02)
        def __hash__(self):
            return hash("__builtins__")

        def __eq__(self, other):
            raise AssertionError("the student's __eq__ ran")

    class Cache:
        def __init__(self):
            self.k, self.kv = torch.zeros(4), {"v": (torch.zeros(8),), "more": Hides([torch.zeros(16)])}
            self.kv[Key("k")] = None

        @property
        def __dict__(self):
            raise AssertionError("the student's __dict__ ran")

    cache = Cache()
    assert sorted(storages(cache).values()) == [16, 32, 64]


def test_the_tensors_an_object_holds_are_found_at_any_depth_or_it_is_not_read():
    """Round 56's a02 and a03 kept a cache's storage five lists down, below the four levels the walk read; an
    object holding more than the walk reads is refused, not read in part."""
    from grader.perf.child import MAX_HELD_OBJECTS, HeldTooMuch, storages

    class Cache:
        def __init__(self, held):
            self.k = held

    deep = torch.zeros(6)
    for _ in range(12):
        deep = [deep]
    assert list(storages(Cache(deep)).values()) == [24]
    with pytest.raises(HeldTooMuch, match="more than"):
        storages(Cache([list(range(MAX_HELD_OBJECTS)), torch.zeros(6)]))


def test_the_tensors_held_in_whatever_holds_them_are_found():
    """Round 63's h08, an honest cache keeping its two buffers in a deque, read as holding nothing (the
    storage tests told it that it made its storage again, which it never did); round 64's a04 hid a copy of
    the past in a `slice`. Everything the object refers to is read, but classes, modules, code and frames."""
    import collections
    import functools
    import types

    from grader.perf.child import storages

    def suspended():
        held = torch.zeros(256)
        yield held.sum()

    class Cache:
        def __init__(self):
            self.kv = collections.deque([torch.zeros(4), torch.zeros(8)])
            self.more = types.SimpleNamespace(k=torch.zeros(16))
            self.hidden = slice(torch.zeros(32), ValueError(torch.zeros(64)))
            closed = torch.zeros(128)
            self.reads = [lambda: closed, functools.partial(print, torch.zeros(512))]
            self.running = suspended()
            next(self.running)
            self.bare = torch.zeros(1024).untyped_storage()
            self.cls, self.module = torch.nn.Linear, torch  # leads to every tensor: not read

    assert sorted(storages(Cache()).values()) == [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]


# -- exercise 10's rule, graded ---------------------------------------------------------------------

MEMORY_TEST = "test_tiled_attention_never_holds_the_whole_matrix"


def _memory_test(result):
    (test,) = [test for test in result.tests if test.name == MEMORY_TEST]
    return test


def _graded_attack(grade, attack):
    """An attack file graded, or None where it uses ctypes or mmap: ctypes is refused at import (round
    20), so that it scores nothing at all, and mmap where it is used (round 22), the memory rule's
    test with it, which this asserts."""
    path = ATTACKS / attack / "exercise10_tiled_attention.py"
    result = grade("exercise10", path=path)
    source = path.read_text(encoding="utf-8")
    if re.search(r"^import\b.*\bctypes\b", source, re.MULTILINE):
        assert result.score == 0 and rules.FOREIGN.name in result.error, result.error
        return None
    if re.search(r"^import\b.*\bmmap\b", source, re.MULTILINE):
        assert rules.MAPPED.name in _memory_test(result).message, _memory_test(result).message
        return None
    return result


@pytest.mark.privileges
def test_the_solution_keeps_the_memory_points_and_the_full_matrix_loses_them(grade):
    solution = graded(grade, 10, SOLUTIONS / "exercise10_tiled_attention.py")  # shared with the corpus tests
    assert solution.score == solution.max_score and _memory_test(solution).status == "passed"
    full = grade("exercise10", path=SLOW / "exercise10" / "full_matrix.py")
    test = _memory_test(full)
    assert test.status == "failed" and full.score == full.max_score - test.max_score > 0
    assert "grows like L^2.0" in test.message and "16.00 MiB at L = 1024" in test.message, test.message


ATTACKS = SOLUTIONS.parent / "tests" / "attacks"


WHOLE_MATRIX_ATTACKS = {  # files that hold the whole (L, L) matrix where the in-process probe does not see it
    "round13/a03_probe_reply_forge/cheat": "patches the probe's reply from its own stack",
    "round11/a13/trick": "writes the matrix into numpy buffers made at import",
    "round14/a1_probe_detect/cheat": "uses blocks only while the probe watches, and when an allocation fails",
    "round14/a4_numpy_buffer/cheat": "a numpy buffer made at import",
    "round14/a5_patch_probe/frames": "zeroes the probe's counts, found from its own stack",
    "round14/a6_mprotect_ballast/cheat": "read-only private mappings, which RLIMIT_DATA does not count",
    "round14/x1_clear_refs/cheat": "resets its peak through /proc/self/clear_refs",
    "round14/x2_file_pages/cheat": "maps a library to offset its peak with file pages",
    "round19/a2_mmap_numpy": "computes in NumPy, in a private anonymous mmap, wherever the probe could watch",
    "round22/a1_mmap_numpy_whole_matrix": "a NumPy matrix in an anonymous mmap; query chunks where measured outside",
}
# what the torch operations of a call computed outside torch show: they do not follow block_size
NOT_IN_BLOCKS = "its work does not follow block_size"
# files that dodged the measured call otherwise (rounds 15 and 16): a message each may lose its points with
DODGES = {
    "round15/a03_rowblock_list/v1": ("holds the whole matrix in pieces",),  # row blocks; blocks at L >= 4096
    "round15/a04_fp16_spill_scratch/v4_fp16_plus_2bits": (  # half precision, part of it in the scratch folder
        "holds the whole matrix in pieces", "No space left on device"),
    "round15/a08_wrong_when_long/v2_zeros": ("not scored yet",),  # zeros beyond L = 64, right at the value tests'
    "round16/a2_wrong_bound/zeros": ("not scored yet",),  # and wrong on purpose where the test once forgave it
    "round16/a3_drop_pages/fp16": ("made its process's memory grow by",),  # drops its file pages first
}


@pytest.mark.privileges
@pytest.mark.parametrize("attack", sorted(WHOLE_MATRIX_ATTACKS))
def test_a_whole_matrix_the_probe_does_not_see_still_loses_the_memory_points(grade, attack):
    """Whole-matrix files the in-process probe reads as tiled (WHOLE_MATRIX_ATTACKS says how): the call
    whose memory the judge reads from the kernel shows the matrix (or, where a forged probe left it, the
    storages' total does), or its torch operations do not follow block_size where it computes outside
    torch, so the points are lost all the same."""
    result = _graded_attack(grade, attack)
    if result is None:
        return
    test = _memory_test(result)
    lost = {t.name for t in result.tests if t.status != "passed" and t.status != "skipped"}
    assert test.status == "failed" and lost <= {MEMORY_TEST, "test_online_softmax_reads_blocks"}, test.message
    assert result.score == result.max_score - sum(t.max_score for t in result.tests if t.name in lost), lost
    handed_out = "handed a tensor's data to numpy or Python"  # computed outside torch, where no probe sees (round 31)
    if not any(said in test.message for said in ("holds the whole matrix in pieces", NOT_IN_BLOCKS, handed_out)):
        # a forged probe that left the storages' total
        assert "made its process's memory grow by" in test.message, test.message
        assert float(test.message.split("grow by ")[1].split(" MiB")[0]) >= 200, test.message


@pytest.mark.privileges
@pytest.mark.parametrize("attack", sorted(DODGES))
def test_a_whole_matrix_that_dodges_the_measured_call_loses_the_memory_points(grade, attack):
    result = _graded_attack(grade, attack)
    if result is None:
        return
    test = _memory_test(result)
    assert test.status != "passed" and any(phrase in test.message for phrase in DODGES[attack]), test.message
    assert result.score == result.max_score - test.max_score, test.message


@pytest.mark.privileges
def test_an_honest_from_numpy_loop_keeps_the_memory_points(grade):
    """Positions made with torch.from_numpy: the rules' torch function mode runs while the probe's own
    handler has the probe off the stack, which is the grader's code, not the student's (round 14's
    false failure: "the grader's probe was disabled")."""
    path = ATTACKS / "round14" / "false_failure" / "from_numpy" / "exercise10_tiled_attention.py"
    result = grade("exercise10", path=path)
    assert _memory_test(result).status == "passed" and result.score == result.max_score, _memory_test(result).message


@pytest.mark.privileges
def test_switching_the_probe_off_loses_the_memory_points(grade):
    exercise = catalog.find("exercise10")
    source = (SLOW / "exercise10" / "full_matrix.py").read_text() + textwrap.dedent("""
        from torch.utils._python_dispatch import _disable_current_modes

        _full = tiled_attention

        def tiled_attention(q, k, v, block_size, causal=False):
            with _disable_current_modes():
                return _full(q, k, v, block_size, causal)
    """)
    result = grade(exercise.id, source)
    test = _memory_test(result)
    assert test.status == "failed" and probe.DISABLED in test.message, test.message
    # the same move switches off the stand-in device of the device test, which then cannot pass either
    device = [t for t in result.tests if t.name == "test_stays_on_the_inputs_device[cpu-tiled_attention]"]
    assert [t.status for t in device] == ["failed"] and "switched off the grader's stand-in device" in device[0].message
    assert result.score == result.max_score - test.max_score - device[0].max_score


def test_the_performance_phase_says_disabled_rather_than_a_size():
    from grader.perf import judge as perf
    from grader.perf.cases import Allocations

    case = Allocations("tiled_attention", (B, H, D), (256, 512, 1024), BLOCK)
    reason = f"{probe.DISABLED}: torch's dispatch-mode stack was changed (a mode popped or the modes disabled)"
    measured = {"student": {"bytes": [0, 0, 0], "shapes": [[]] * 3, "disabled": reason},
                "reference": {"bytes": [262144, 524288, 1048576]}}
    report = perf.largest_tensor(case, measured)
    assert report["verdict"] == "disabled" and report["message"] == f"memory: not measured — {reason}"
