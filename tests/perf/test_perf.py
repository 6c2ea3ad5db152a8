"""Performance tiers: solutions on par, deliberately slow but correct submissions lower, the KV
cache's growth and memory told apart, and timing that student code can neither fool nor dodge.

Tiers are compared, never times: a tier is a ratio measured against the reference in the same run,
and each slow submission below sits far beyond the boundary it is checked against (its measured
ratios are in docs/instructors.md)."""

import itertools
import json
import math
import os
import re
import textwrap
import threading
import time
import types
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from conftest import SOLUTIONS, unwrapped
from grader import catalog
from grader.perf import judge as perf, rounds
from grader.cli.main import main
from grader.grading.compare import Mismatch
from grader.grading.settings import Settings
from grader.reports.text import speed_of

SLOW = Path(__file__).resolve().parents[1] / "slow_submissions"
RANK = [tier_id for tier_id, *_ in perf.TIERS]
BUSY = "not timed: the machine was too busy to time "  # what a machine too loaded to decide a tier gets


def rank(tier):
    """The tier's rank among TIERS (0: on par), or None for "too busy", which a test on a shared
    machine accepts: whether a machine is busy is no property of the code."""
    if tier["id"] == "not-timed":
        assert tier["message"].startswith(BUSY), tier["message"]
        return None
    return RANK.index(tier["id"])


@pytest.fixture(scope="module")
def measure(launcher, tmp_path_factory):
    """measure(exercise, path=None, source=None) -> the tier of that file, timed on the CPU; each
    file is timed once per module, however many tests look at its tier."""
    folder, tiers = tmp_path_factory.mktemp("perf"), {}

    def run(exercise, path=None, source=None):
        exercise = catalog.find(str(exercise))
        if source is not None:
            path = folder / f"{len(tiers)}" / exercise.file_name
            path.parent.mkdir()
            path.write_text(textwrap.dedent(source))
        if (exercise.id, str(path)) not in tiers:
            tiers[exercise.id, str(path)] = perf.measure(exercise, str(path), launcher, "cpu", str(folder))
        return tiers[exercise.id, str(path)]

    return run


# -- the tiers themselves ---------------------------------------------------------------------


def test_tiers_are_three_times_apart_and_cover_every_ratio():
    bounds = [bound for *_, bound, _ in perf.TIERS]
    assert bounds[-1] == math.inf
    for lower, upper in zip(bounds, bounds[1:-1]):
        assert upper / lower == pytest.approx(3.0)
    assert [perf.tier_for(ratio)[0] for ratio in (0.3, 1.0, 1.7, 1.8, 3.0, 9.0, 27.0, 81.0, 1e6)] == [
        "on-par", "on-par", "on-par", "3x", "3x", "10x", "30x", "100x", "100x"]


def test_ratio_statistics_are_the_median_and_half_the_interquartile_range():
    reference = [1.0] * 8
    student = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 10.0]  # one disturbed round changes nothing
    ratio, spread = rounds.ratio_stats(student, reference)
    assert ratio == pytest.approx(1.35)
    assert spread == pytest.approx((1.55 - 1.15) / 2 / 1.35)  # quartiles: medians of each half


def test_the_median_interval_is_distribution_free_and_the_tier_decided_only_inside_it():
    assert rounds.median_interval([3.0, 1.0, 2.0], 0.85) is None  # three rounds: never 85% sure
    assert rounds.median_interval([4.0, 1.0, 3.0, 2.0], 0.85) == (1.0, 4.0)  # 1 - 2/16 = 87.5%
    assert rounds.median_interval(list(range(9)), 0.95) == (1, 7)  # one round off each end
    bounds = perf.BOUNDS
    assert rounds.decided([0.9, 1.1, 1.0, 1.2], bounds, 0.85) == 0
    assert rounds.decided([1.5, 1.9, 1.6, 1.8], bounds, 0.85) is None  # astride √3: more rounds
    assert rounds.decided([2.0, 4.0, 3.0, 2.5], bounds, 0.85) == 1


def _taken(student, reference, cost=1e-3):
    """Rounds as the judge records them: the child's readings and the judge's [CPU, wall], the
    requests costing `cost` seconds beyond the call (reported, true: the student's, the
    reference's call seconds)."""
    rounds_ = {"student": [], "reference": []}
    for name, (reported, true) in (("student", student), ("reference", reference)):
        for index in range(8):
            noise = 1e-5 * (index % 3)
            rounds_[name].append(([reported, reported, reported, 0.0], [true + cost + noise, true + cost + noise]))
    return rounds_


def test_what_a_child_reports_never_counts_for_less_than_the_judge_measured():
    honest = perf._clocks(_taken((2e-3, 2e-3), (1e-3, 1e-3)))
    assert honest["time"]["student"] == [2e-3] * 8  # its own clock, as it said
    lying = perf._clocks(_taken((0.0, 20e-3), (1e-3, 1e-3)))  # says 0, took 20 ms
    assert min(lying["time"]["student"]) > 19e-3 - 0.5 * 1e-3  # less only the allowance for a fresh child
    assert perf._readings([float("nan"), -1.0, "1", 2.0]) == [0.0] * 4  # no wall time: no call took that
    assert perf._readings(None) == [0.0] * 4
    assert perf._readings([1e-3, 1e-3, 2e-3, 1]) == [1e-3, 1e-3, 2e-3, 1]


def test_a_calls_clocks_run_from_before_its_function_is_looked_up(launcher, tmp_path):
    """Code a module runs when the child looks the function up is the call's (round 6's a01 did
    its work there, before the clocks started): the readings hold the 50 ms of CPU it spins (CPU time, not
    the wall's: a loaded machine gave a 50 ms spin 34 ms of CPU)."""
    import time as clock
    from grader.sandbox.judge import Child, load_request

    path = tmp_path / "exercise2_scoring.py"
    path.write_text(textwrap.dedent("""
        import sys, time, types

        class _Module(types.ModuleType):
            def __getattribute__(self, name):
                if name == "attention_scores":
                    until = time.thread_time() + 0.05  # 50 ms of CPU, however busy the machine
                    while time.thread_time() < until:
                        pass
                return types.ModuleType.__getattribute__(self, name)

        sys.modules[__name__].__class__ = _Module

        def attention_scores(q, k):
            return q @ k.transpose(-2, -1)
    """))
    child = Child(launcher, str(tmp_path / "child.log"), clock.monotonic() + 60, None, (str(path),))
    try:
        child.request(load_request(str(path), "exercise2_scoring"))
        timed = perf._Timed(child, "cpu")
        import torch
        _, readings, outside = timed.call("attention_scores", (torch.ones(2, 3), torch.ones(2, 3)))
    finally:
        child.stop()
    assert readings[2] >= 0.045 and readings[1] >= 0.045, (readings, outside)  # wall, and the CPU it spun


def test_waiting_is_charged_the_longer_of_cpu_and_wall_time():
    """A call that waits (for a thread doing its work, say) is judged on its wall time or its
    process's CPU time, whichever is longer: waiting for work done in parallel is no cheaper."""
    taken = {"student": [([1e-3, 4e-3, 2e-3, 3], [4.2e-3, 2.2e-3])] * 8,  # 4 ms of CPU in 2 ms: two threads
             "reference": [([2e-3, 2e-3, 5e-3, 0], [2.2e-3, 5.2e-3])] * 8}  # preempted: 5 ms of wall
    timing = perf._clocks(taken)
    key, name = perf._clock_for(timing, "cpu")
    assert (key, name) == ("busy", "wall")
    assert timing[key]["student"] == [4e-3] * 8
    assert timing[key]["reference"] == [2e-3] * 8  # its CPU time: its wall holds what else ran there (round 8's a02)


class _Script:
    """A child's stand-in for `_Timed`: replies at once, and a CPU clock that reads as scripted."""

    deadline, pid = math.inf, 0

    def __init__(self, reply):
        self.reply = reply

    def request(self, message):
        return {"value": self.reply, "clock": [1e-3, 1e-3, 1e-3, 0]}


def _scripted(reply, readings):
    timed = perf._Timed.__new__(perf._Timed)
    timed.child, timed.device, timed.trusted, timed.clock, timed.replied = _Script(reply), "cpu", False, 1, None
    clock = itertools.chain(readings, itertools.repeat(readings[-1] if readings else 0.0))
    timed._cpu = lambda: next(clock)
    return timed


def test_what_a_process_spends_between_its_requests_is_its_next_calls():
    """A thread of the student's that works while the reference is timed (round 8's a02, a01) is
    charged to the student's next call: the CPU its process spent since its last reply."""
    timed = _scripted(None, [0.0, 2e-3, 10e-3, 12e-3])  # 2 ms of call, 8 ms meanwhile, 2 ms of call
    first, second = (timed.call("f", ())[2][0] for _ in range(2))
    assert first == pytest.approx(2e-3) and second == pytest.approx(10e-3)


def test_a_measurement_the_students_process_sends_must_be_one():
    """Round 8's a03 crashed the grader with strings for byte counts: a reply that is not a
    measurement leaves the exercise untimed, with a message."""
    from grader.perf.cases import Allocations

    case = Allocations("tiled_attention", (1, 4, 32), (128, 256), 64)
    good = {"bytes": [1, 2], "shapes": [[4, 128, 64], [4, 256, 64]], "disabled": None}
    reference = _scripted(good, [])
    assert perf._time(case, {}, _scripted(good, []), reference)["allocations"]["student"] == good
    for bad in ({**good, "bytes": ["many", 2]}, {**good, "bytes": [1]}, {**good, "shapes": [["x"], []]},
                {**good, "disabled": 3}, [1, 2], None):
        with pytest.raises(perf._Malformed):
            perf._time(case, {}, _scripted(bad, []), reference)
    with pytest.raises(perf._Malformed):
        perf._storages(_scripted({"1": "big"}, []), perf.wire.Handle(1, "KVCache"))


def test_a_slower_tier_stands_only_where_it_survives_a_re_time(monkeypatch):
    """A tier slower than on par is timed again; where the two series disagree a third decides
    (the median ratio's): one disturbed series makes no code slower, and slow code stays slow."""
    monkeypatch.setattr(perf, "summarize", lambda case, ratio, device, ref: {"ratio": ratio})
    cases = ["the case"]

    def timings(*ratios):
        left = list(ratios)
        return lambda index: left.pop(0)

    assert perf._confirmed(cases, [1.2], timings(), "cpu", None) == [1.2]  # on par: never timed again
    assert perf._confirmed(cases, [2.5], timings(2.4), "cpu", None) == [2.5]  # confirmed by the second
    assert perf._confirmed(cases, [2.5], timings(1.0, 1.1), "cpu", None) == [1.1]  # disturbed once
    assert perf._confirmed(cases * 2, [1.0, 2.5], timings(2.6), "cpu", None) == [1.0, 2.5]  # the slowest case
    assert perf._confirmed(cases * 2, [4.0, 2.5], timings(1.0, 1.1, 2.4), "cpu", None) == [1.1, 2.5]


def test_a_slower_tier_that_the_total_decides_stands_only_in_three_series(monkeypatch):
    """Work paid in bursts (the rounds' total judges) is slow in every series; a busy machine's odd
    slow rounds tip a total rarely, and seldom three times in a row."""
    monkeypatch.setattr(perf, "summarize", lambda case, ratio, device, ref: {"ratio": ratio, "bursts": True})
    cases = ["the case"]

    def timings(*ratios):
        left = list(ratios)
        return lambda index: left.pop(0)

    assert perf._confirmed(cases, [2.5], timings(2.4, 2.6), "cpu", None) == [2.5]  # three series agree
    assert perf._confirmed(cases, [1.8], timings(1.9, 1.2), "cpu", None) == [1.2]  # tipped twice: the fastest
    assert perf._confirmed(cases, [1.8], timings(1.1, 1.9), "cpu", None) == [1.1]


def test_work_paid_in_bursts_is_judged_by_the_total():
    """One call in four doing the others' share (round 10's a03): the median ratio is 1, the
    total 3; an honest series with one round twice as slow keeps its median, and so does one whose
    total, slowed by a busy machine, is in the median's tier all the same."""
    case = catalog.find("exercise3").perf_cases("cpu")[0]

    def timing(student):
        reference = [1e-3] * len(student)
        clocks = {"time": student, "process": student, "waits": [0] * len(student)}
        return {clock: {"student": values, "reference": reference if clock != "waits" else values}
                for clock, values in clocks.items()}

    bursts = perf._ratios(case, timing([1e-3, 1e-3, 1e-3, 9e-3] * 5), "cpu")
    assert bursts["bursts"] and bursts["ratio"] == 3.0 and perf.tier_for(bursts["ratio"])[0] == "3x"
    honest = perf._ratios(case, timing([1e-3] * 19 + [2e-3]), "cpu")
    assert not honest["bursts"] and honest["ratio"] == 1.0
    busy = perf._ratios(case, timing([1e-3] * 16 + [4e-3] * 4), "cpu")  # a total of 1.6: on par either way
    assert not busy["bursts"] and busy["ratio"] == 1.0  # the median, and no word of calls taking the rest's time


def test_a_case_whose_only_input_is_a_length_draws_it_afresh_each_round():
    """causal_mask(L) timed on one L could be answered from a cache (round 7's a03)."""
    from grader.perf.cases import generator, make_args

    case, = (case for case in catalog.find("exercise4").perf_cases("cpu") if case.target == "causal_mask")
    lengths = {make_args(case, generator(seed), "cpu")[0] for seed in range(20)}
    assert len(lengths) >= 15 and all(isinstance(length, int) for length in lengths), lengths
    low, high = case.args[0]
    assert high - low >= 1024  # too many masks to make ahead of the timing and look up (round 10's a06, a14)


def test_readings_no_call_can_produce_are_not_believed():
    possible = [1e-3, 1.5e-3, 2e-3, 0]
    assert perf._readings(possible, outside=[3e-3, 4e-3]) == possible
    for impossible in ([0.0, 0.0, 0.0, 0], [3e-3, 3e-3, 2e-3, 0], [2e-3, 1e-3, 3e-3, 0]):  # no wall; thread past
        assert perf._readings(impossible, outside=[5e-3, 5e-3]) == [0.0] * 4, impossible  # the wall; the process
    assert perf._readings(possible, outside=[1e-3, 4e-3]) == [0.0] * 4  # more CPU than the judge saw
    assert perf._readings(possible, outside=[3e-3, 1e-3]) == [0.0] * 4  # longer than the request
    assert perf._readings(possible, outside=[1e-3, 4e-3], device="cuda") == possible  # a GPU's is wall time


def test_what_a_child_leaves_out_of_its_readings_is_charged_in_full():
    """A child that reports 1 µs for calls that took 2 ms (round 7's a02: possible readings, so
    not refused) is charged what the judge saw beyond the reference's requests: all 2 ms, whatever
    the share of the request the call is."""
    for cost in (1e-3, 5e-3):  # the request around the call: 1 and 5 ms
        shy = perf._clocks(_taken((1e-6, 2e-3), (1e-3, 1e-3), cost))
        assert min(shy["time"]["student"]) > 2e-3 - 1e-5, cost
    assert perf._readings([10 ** 400] * 3 + [0]) == [0.0] * 4  # round 7's a01: an int no float holds
    assert perf._readings([1e-3, 1e-3, 2e-3, True]) == [1e-3, 1e-3, 2e-3, 0.0]


def test_a_timed_answer_agrees_only_within_float32_tolerance():
    import torch

    reference = torch.randn(4, 8)
    assert perf._agrees(reference * (1 + 1e-6), reference)
    assert not perf._agrees(torch.zeros(4, 8), reference)
    assert not perf._agrees(reference.double(), reference)  # dtype kept
    assert not perf._agrees(reference.tolist(), reference)
    mask = torch.ones(3, 3, dtype=torch.bool).tril()
    assert perf._agrees((reference, mask.clone()), (reference, mask)) and not perf._agrees((reference, ~mask), (reference, mask))
    inf = torch.tensor([float("-inf"), 1.0])
    assert perf._agrees(inf.clone(), inf) and not perf._agrees(torch.tensor([0.0, 1.0]), inf)


def test_a_timed_answer_in_another_dtype_is_refused_whatever_its_tolerance():
    """Round 67's a07: an answer in bfloat16 to float32 inputs was judged at bfloat16's tolerance, and passed."""
    import torch

    reference = torch.randn(64, 32)
    case = types.SimpleNamespace(label="(64, 32)")
    for answer in (reference.bfloat16(), (reference.bfloat16(), reference)):
        with pytest.raises(Mismatch, match="bfloat16, expected float32"):
            perf._check_timed(case, answer, reference if isinstance(answer, torch.Tensor) else (reference, reference),
                              first=True)
    perf._check_timed(case, reference.clone(), reference, first=True)  # the same dtype: agrees


@pytest.mark.parametrize("student, verdict", [
    ([1.0, 1.1, 1.3, 1.7], "linear"),  # a little more per cached token than the reference's 1 + T/3000 ms
    ([5.0, 9.0, 17.0, 33.0], "recomputes"),  # 1 ms + 31 µs per cached token: 94× the reference's
    ([2.0, 5.0, 17.0, 65.0], "super-linear"),  # T² on top: the whole sequence again at every step
    # steep only once the extra time is already small beside the reference's (1.5% at 256 tokens): a
    # cache that outgrows the CPU's caches, as a copied one does on some machines, never super-linear
    ([1.05, 1.1, 1.3, 3.0], "recomputes"),
])
def test_complexity_verdicts(student, verdict):
    lengths = [128, 256, 512, 1024]
    reference = [1.0 + length / 3000 for length in lengths]
    assert perf.complexity(lengths, student, reference)["verdict"] == verdict


def test_a_step_no_slower_than_the_references_is_linear_however_flat_the_references_slope():
    """A reference whose step hardly grows with the cache (a small model: projections dominate)
    makes any ratio of slopes noise: the solution's own steps, 10% slower at the longest cache,
    once read as 'recomputes'."""
    lengths = [128, 256, 512, 1024]
    verdict = perf.complexity(lengths, [0.90, 0.92, 0.98, 1.10], [1.0, 1.0, 1.01, 1.0])
    assert verdict["per_token_ratio"] > perf.RECOMPUTES and verdict["verdict"] == "linear", verdict


def test_a_cache_copied_at_every_step_is_told_so_not_that_it_recomputes():
    lengths = [128, 256, 512, 1024]
    reference = [1.0 + length / 3000 for length in lengths]
    message = perf.complexity(lengths, [5.0, 9.0, 17.0, 33.0], reference, copies=True)["message"]
    assert "the whole cache is copied at every step" in message and "recomputed" not in message


# -- solutions and slow submissions, timed for real -------------------------------------------


@pytest.mark.parametrize("exercise", [exercise.id for exercise in catalog.EXERCISES if exercise.timed])
def test_solutions_are_on_par_with_the_reference(measure, exercise):
    """The solution is the reference's own code: its tier is within one band of on par, on the CPU
    clock. One band of slack because a shared machine's noise can cross the √3 boundary (a ratio
    of 1.74 ±20% was seen); the exact tier is `benchmarks/tiers.py`'s to check, never a test's."""
    tier = measure(exercise, path=SOLUTIONS / catalog.find(exercise).file_name)
    if rank(tier) is None:
        return
    assert rank(tier) <= RANK.index("3x"), tier["message"]
    assert {"id", "name", "ratio", "device", "rounds", "spread", "clock"} <= set(tier)
    assert tier["device"] == "cpu" and tier["clock"] == "cpu", tier  # neither waits nor offloads


@pytest.mark.parametrize("exercise, name, lowest", [
    ("exercise1", "loop_over_rows", "3x"),
    ("exercise2", "loop_over_rows", "3x"),
    ("exercise4", "loop_over_entries", "30x"),
    ("exercise5", "softmax_loop_over_rows", "3x"),
    ("exercise8", "recompute_past_kv", "3x"),
    ("exercise8", "rerun_sequence", "10x"),
])
def test_slower_correct_submissions_land_in_lower_tiers(measure, exercise, name, lowest):
    """Only files five times or more past the boundary they are checked against; the closer ones
    (exercise 6's, about 2×) and the KV cache's growth verdicts, which a machine's caches and memory
    bandwidth move, are `benchmarks/tiers.py`'s to check."""
    tier = measure(exercise, path=SLOW / exercise / f"{name}.py")
    if rank(tier) is None:
        return
    assert rank(tier) >= RANK.index(lowest), tier["message"]
    assert tier["ratio"] > math.sqrt(3)


def test_kv_cache_memory_report(measure):
    """The storage verdicts count bytes and replaced buffers, never time: the same on every machine."""
    solution = measure("exercise8", path=SOLUTIONS / "exercise8_kv_cache.py")
    memory = solution["memory"]
    assert memory["verdict"] == "preallocated" and memory["reallocations"] == 0
    assert memory["bytes"] == memory["expected_bytes"]  # exactly kv_cache_bytes for max_len tokens
    concat = measure("exercise8", path=SLOW / "exercise8" / "concat_cache.py")
    assert concat["memory"]["verdict"] == "reallocates", concat["notes"]
    assert concat["memory"]["reallocations"] == concat["memory"]["steps"] > 0


def test_the_largest_allocation_counts_what_a_call_makes_not_its_inputs():
    import torch

    from grader.perf.probe import LargestAllocation

    q = torch.randn(2, 40, 8)
    with torch.no_grad(), LargestAllocation([q]) as largest:
        q[:, :10].transpose(-2, -1)  # views of the input: nothing allocated
    assert largest.bytes == 0
    with torch.no_grad(), LargestAllocation([q]) as largest:
        scores = q @ q[:, :16].transpose(-2, -1)  # (2, 40, 16)
        (scores - scores.amax(-1, keepdim=True)).exp().sum()
    assert largest.bytes == 2 * 40 * 16 * 4 and largest.shape == (2, 40, 16)


@pytest.mark.parametrize("sizes, verdict", [
    ([262144, 524288, 1048576], "tiled"),  # L·block_size
    ([1048576, 4194304, 16777216], "quadratic"),  # L²
    ([1048576, 2097152, 6291456], "tiled"),  # L·block_size, then the output (L·d) overtakes: L^1.3
    ([524288, 2097152, 16777216], "quadratic"),  # one (L, L) matrix of a head at a time, and more: L^2.5
])
def test_memory_verdicts(sizes, verdict):
    from grader.perf.cases import Allocations

    case = Allocations("tiled_attention", (1, 4, 32), (256, 512, 1024), 64)
    measured = {"student": {"bytes": sizes, "shapes": [[]] * 3}, "reference": {"bytes": [262144, 524288, 1048576]}}
    report = perf.largest_tensor(case, measured)
    assert report["verdict"] == verdict and report["full_matrix_bytes"][-1] == 16 * 2 ** 20
    assert report["message"].startswith(f"memory: {verdict}")


def test_tiled_attention_memory_verdict(measure):
    """The largest tensor a tiled submission allocates grows like L; one that builds the (L, L) scores
    and passes every test is told apart by it (the figures are in docs/instructors.md)."""
    solution = measure("exercise10", path=SOLUTIONS / "exercise10_tiled_attention.py")
    memory = solution["memory"]
    assert memory["verdict"] == "tiled", solution["notes"]
    assert memory["bytes"] == memory["reference_bytes"] and memory["exponent"] == pytest.approx(1.0, abs=0.05)
    full = measure("exercise10", path=SLOW / "exercise10" / "full_matrix.py")
    assert full["id"] != "not-timed" and full["memory"]["verdict"] == "quadratic", full["notes"]
    assert full["memory"]["bytes"] == full["memory"]["full_matrix_bytes"]
    assert full["memory"]["exponent"] == pytest.approx(2.0, abs=0.05)


# -- what the timing cannot be fooled by --------------------------------------------------------

SCORES = """
    import torch

    def attention_scores(q, k):
        {body}
"""


def test_wrong_output_on_the_performance_case_is_never_timed(measure):
    tier = measure("exercise2", source=SCORES.format(
        body="return q @ k.transpose(-2, -1) * (1.0 if q.size(-2) < 100 else 1.01)  # wrong when long"))
    assert tier["id"] == "not-timed" and tier["ratio"] is None
    assert "your output on the performance case attention_scores on (4, 8, 128, 32)" in tier["message"]


def test_an_error_on_the_performance_case_is_reported(measure):
    tier = measure("exercise2", source=SCORES.format(
        body="assert q.size(-2) < 100, 'too long'\n        return q @ k.transpose(-2, -1)"))
    assert tier["id"] == "not-timed"
    assert "your code raised AssertionError: too long" in tier["message"]


def test_patched_clocks_do_not_change_the_tier(measure):
    tier = measure("exercise2", source="""
        import time

        time.thread_time = time.process_time = time.perf_counter = lambda: 0.0

        def attention_scores(q, k):
            return q @ k.transpose(-2, -1)
    """)
    if rank(tier) is not None:
        assert rank(tier) <= RANK.index("3x"), tier["message"]
        assert tier["ratio"] > 0.5  # its clocks say 0: were they believed, the ratio would be about 0


def test_work_handed_to_another_thread_is_charged(measure):
    tier = measure("exercise2", source="""
        import threading

        def attention_scores(q, k):
            result = []
            worker = threading.Thread(target=lambda: result.append(q @ k.transpose(-2, -1)))
            worker.start()
            worker.join()
            return result[0]
    """)
    if rank(tier) is not None:
        assert tier["clock"] in ("process-cpu", "wall"), tier["message"]  # every thread's CPU time, or the wait for it
        assert tier["ratio"] > 0.5  # its CPU time is counted, on whatever thread it ran


def test_waiting_is_charged(measure):
    # 20 ms of waiting per call: many times what the reference's call costs even on a loaded machine
    # (2 ms was rated on par at a load of 9), so the verdict does not hang on the load
    tier = measure("exercise2", source=SCORES.format(
        body="__import__('time').sleep(0.02)\n        return q @ k.transpose(-2, -1)"))
    if rank(tier) is not None:
        assert tier["clock"] == "wall", tier
        assert tier["id"] != "on-par"


# -- forging attempts: a slow file that answers fast, or reports itself fast, when it thinks it is timed.
# Each must either be caught (its answer checked) or get the tier its slow code earns: never a tier
# that earns points. The class of attack, not these examples, is what the design closes: every timed
# call takes the suites' own path on fresh inputs drawn from a secret seed, its answer is checked
# against the reference's, and the judge measures the child's CPU time from outside.

SLOW_SCORES = """
    import math, os, sys, threading, time, types

    import torch

    def _slow(q, k):  # correct, and some 30 to 100 times slower than one matmul: a loop over every row
        rows = [q[b, h, i] @ k[b, h].transpose(-2, -1) for b in range(q.size(0)) for h in range(q.size(1))
                for i in range(q.size(2))]
        return torch.stack(rows).reshape(*q.shape[:-1], k.size(-2))

    def _fast_wrong(q, k):
        return torch.empty(*q.shape[:-1], k.size(-2))

{attack}
"""

ATTACKS = {
    "call_counting": """
    _calls = [0]

    def attention_scores(q, k):  # the first call (the check at the timing size) right, then fast
        _calls[0] += 1
        return _slow(q, k) if _calls[0] == 1 else _fast_wrong(q, k)
    """,
    "right_once_per_size": """
    _seen = set()

    def attention_scores(q, k):  # each size answered right once, torch.empty after
        if tuple(q.shape) in _seen:
            return _fast_wrong(q, k)
        _seen.add(tuple(q.shape))
        return _slow(q, k)
    """,
    "memo_by_fingerprint": """
    _memo = {}

    def attention_scores(q, k):  # a small fingerprint of the inputs: a timing that repeats them is fast
        key = (tuple(q.shape), float(q.flatten()[0]), float(k.flatten()[-1]))
        if key not in _memo:
            _memo[key] = _slow(q, k)
        return _memo[key].clone()
    """,
    "memo_by_shape": """
    _memo = {}

    def attention_scores(q, k):  # the fingerprint too small: other inputs get a stale answer
        if tuple(q.shape) not in _memo:
            _memo[tuple(q.shape)] = _slow(q, k)
        return _memo[tuple(q.shape)].clone()
    """,
    "repeated_input": """
    _last = []

    def attention_scores(q, k):  # the same inputs as the call before: the same answer, at once
        if _last and _last[0][0].shape == q.shape and torch.equal(_last[0][0], q) and torch.equal(_last[0][1], k):
            return _last[0][2].clone()
        _last[:] = [(q.clone(), k.clone(), _slow(q, k))]
        return _last[0][2].clone()
    """,
    "stack_inspection": """
    _first = []
    SUSPECT = ("clock", "bench", "round", "step", "time", "perf", "warm")

    def _stack():
        frame, seen = sys._getframe(2), []
        while frame is not None:
            code = frame.f_code
            seen.append((code.co_filename, code.co_name, frame.f_lineno, tuple(sorted(frame.f_locals))))
            frame = frame.f_back
        return seen

    def attention_scores(q, k):  # any caller unlike the first call's, or named like a timing loop: fast
        stack = _stack()
        _first[:] = _first or [stack]
        named = any(word in name.lower() for _, name, _, _ in stack[:6] for word in SUSPECT)
        return _fast_wrong(q, k) if stack != _first[0] or named else _slow(q, k)
    """,
    "clocks_zeroed_from_the_stack": """
    def _zero(*args, **kwargs):
        return (0.0, 0.0, 0.0, 0.0)

    def _silence():  # every clock reachable from the callers' globals, and their modules', says 0
        frame = sys._getframe(1)
        while frame is not None:
            spaces = [frame.f_globals] + [vars(v) for v in frame.f_globals.values() if isinstance(v, types.ModuleType)]
            for space in spaces:
                for name in list(space):
                    if name in ("clocks", "since", "_clock"):
                        space[name] = _zero if name != "since" else (lambda start: [0.0, 0.0, 0.0, 0.0])
                    elif name in ("_thread_time", "_process_time", "_perf_counter", "thread_time", "process_time"):
                        space[name] = lambda: 0.0
            frame = frame.f_back

    def attention_scores(q, k):
        _silence()
        return _slow(q, k)
    """,
    "work_while_the_function_is_looked_up": """
    _stash = {}

    class _Module(types.ModuleType):  # round 6's a01: the work done when the child looks the function up
        def __getattribute__(self, name):
            frame = sys._getframe(1)
            if name == "attention_scores" and "request" in frame.f_locals:
                q, k = frame.f_locals["request"]["args"][:2]
                if isinstance(q, torch.Tensor):
                    _stash[id(q)] = _slow(q, k)
            return types.ModuleType.__getattribute__(self, name)

    sys.modules[__name__].__class__ = _Module

    def attention_scores(q, k):
        done = _stash.pop(id(q), None)
        return done if done is not None else _slow(q, k)
    """,
    "process_clock_patched_and_work_on_a_thread": """
    def _patch():  # round 6's a05: the child's clock module says the process ran as long as this thread
        frame = sys._getframe(1)
        while frame is not None:
            clock = frame.f_globals.get("clock")
            if hasattr(clock, "_thread_time") and hasattr(clock, "_process_time"):
                clock._process_time = clock._thread_time
                return
            frame = frame.f_back

    def attention_scores(q, k):
        _patch()
        result = []
        worker = threading.Thread(target=lambda: result.append(_slow(q, k)))
        worker.start()
        worker.join()
        return result[0]
    """,
    "clocks_report_a_microsecond": """
    def _shy():  # round 7's a02: every call said to take 1 µs, readings that could be true
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_globals.get("__name__") == "grader.sandbox.child":
                clock = frame.f_globals["clock"]
                frame.f_globals["clock"] = types.SimpleNamespace(read=clock.read, since=lambda start: [1e-6] * 3 + [0])
                return
            frame = frame.f_back

    def attention_scores(q, k):
        _shy()
        return _slow(q, k)
    """,
    "reference_slowed_by_a_spinning_thread": """
    def _spin():  # shares the CPU the reference's child is pinned to
        while True:
            pass

    threading.Thread(target=_spin, daemon=True).start()

    def attention_scores(q, k):
        return _slow(q, k)
    """,
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_no_forging_attempt_earns_a_tier_with_points(measure, attack):
    tier = measure("exercise2", source=SLOW_SCORES.format(attack=ATTACKS[attack]))
    assert perf.POINTS_SHARE.get(tier["id"], 0.0) == 0.0, tier["message"]  # slow, caught, or busy: no points
    if tier["id"] == "not-timed" and not tier["message"].startswith(BUSY):  # caught
        assert "your code answered differently while it was timed" in tier["message"], tier["message"]


def test_a_timed_call_may_take_a_hundred_times_the_references_not_a_fixed_limit(measure):
    """A call that never returns once timed is stopped after 100 times what the reference's took
    (plus a slack), however long the exercise's time limit (60 s here) still runs: the slowest tier."""
    tier = measure("exercise2", source=SLOW_SCORES.format(attack="""
    _calls = [0]

    def attention_scores(q, k):
        _calls[0] += 1
        while _calls[0] > 1:
            pass
        return q @ k.transpose(-2, -1)
    """))
    assert tier["id"] == "100x" and tier["lower_bound"] and tier["ratio"] == perf.PATIENCE, tier
    assert re.match(r"47× slower than the reference or more — one call on the performance case ran past [\d.]+ s, "
                    r"over 100× what the reference takes for it \(cpu\)", tier["message"]), tier["message"]


def test_the_timed_calls_take_the_tested_calls_path(measure):
    """A file that answers wrong the moment its callers differ from those of its first call (the
    check at the timing size) is never caught out: every timed call's stack is the check's."""
    tier = measure("exercise2", source=SLOW_SCORES.format(attack=ATTACKS["stack_inspection"]))
    assert "answered differently" not in tier["message"], tier["message"]
    assert rank(tier) is None or rank(tier) >= RANK.index("10x"), tier["message"]


@pytest.mark.parametrize("attack", ["call_counting", "right_once_per_size", "memo_by_shape"])
def test_a_wrong_timed_answer_fails_the_tier(measure, attack):
    tier = measure("exercise2", source=SLOW_SCORES.format(attack=ATTACKS[attack]))
    assert tier["id"] == "not-timed", tier["message"]
    assert tier["message"].startswith("not timed: your code answered differently while it was timed: "), tier


def test_a_run_times_its_exercises_beside_one_warm_reference_child(launcher):
    """Each student file in a child of its own (one exercise's code never touches another's verdict),
    the reference in one child for the whole run."""
    exercises = [catalog.find("2"), catalog.find("3")]
    files = {exercise.id: str(SOLUTIONS / exercise.file_name) for exercise in exercises}
    before = launcher.spawned
    with perf.Rating(exercises, files, launcher, ("cpu",), Settings(submission=SOLUTIONS, perf=True)) as rating:
        for exercise in exercises:
            rating.ready(exercise.id, True)
        rated = rating.results()
    assert launcher.spawned - before == len(exercises) + 1
    assert all(rated[exercise.id].tier["device"] == "cpu" for exercise in exercises)


ROOT17_FILE = str(Path(__file__).resolve().parents[1] / "attacks" / "round17" / "a1_storages_hook" / "{variant}"
                  / "exercise8_kv_cache.py")


@pytest.mark.parametrize("variant", ["submission", "thread"])
def test_work_done_while_the_cache_is_looked_at_is_charged(measure, variant):
    """Round 17's a1: a cache that recomputes every cached token's keys and values each step, the work
    started from the untimed look at its storage (by a `__class__` property, or by a thread that
    watches for it), is the 10x tier it is without that, never on par."""
    tier = measure("8", path=ROOT17_FILE.format(variant=variant))
    assert rank(tier) is None or rank(tier) >= RANK.index("3x"), tier["message"]


def test_the_look_at_a_cache_runs_none_of_its_code():
    from grader.perf.child import storages

    ran = []

    class Tag:
        @property
        def __class__(self):
            ran.append("__class__")
            return Tag

    class Cache:
        def __init__(self):
            self.k, self.tags = torch.zeros(2, 3), [Tag(), (Tag(),)]

    assert list(storages(Cache()).values()) == [24] and ran == []


def test_an_exercise_is_timed_while_the_next_ones_suites_run(launcher, monkeypatch):
    """A run's tiers cost it little wall time on a second core: exercise 2 is timed as soon as its
    suites are done, while the suites' thread is held (here) before exercise 3's begin."""
    from grader.grading import runner

    started, waited, kept_for_timing = threading.Event(), [], []
    real_measure, real_ready, real_same_cpu = perf.measure, perf.Rating.ready, perf._same_cpu

    def measure(exercise, *args, **kwargs):
        started.set()
        return real_measure(exercise, *args, **kwargs)

    def same_cpu(cpu, *pids):  # the timing children pinned: what the suites' children must leave them
        kept_for_timing.append((cpu, launcher.reserved))
        return real_same_cpu(cpu, *pids)

    def ready(self, exercise_id, passed):
        real_ready(self, exercise_id, passed)
        if exercise_id == "exercise2":
            waited.append(started.wait(120))

    monkeypatch.setattr(perf, "measure", measure)
    monkeypatch.setattr(perf.Rating, "ready", ready)
    monkeypatch.setattr(perf, "_same_cpu", same_cpu)
    report = runner.grade([catalog.find("2"), catalog.find("3")],
                          Settings(submission=SOLUTIONS, perf=True, device="cpu"), launcher=launcher)
    assert waited == [True]
    assert [result.tier["device"] for result in report.exercises] == ["cpu", "cpu"]
    if len(os.sched_getaffinity(0)) > 1:  # the timing's CPU kept from the other children while it timed
        assert kept_for_timing and all(cpu is not None and reserved == cpu for cpu, reserved in kept_for_timing)
    assert launcher.reserved is None  # and given back after the run


def test_an_exercise_whose_suites_never_end_is_not_timed_and_a_stopped_run_ends(launcher):
    files = {"exercise2": str(SOLUTIONS / "exercise2_scoring.py")}
    options = Settings(submission=SOLUTIONS, perf=True, perf_points=2)
    with perf.Rating([catalog.find("2")], files, launcher, ("cpu",), options) as rating:
        rated = rating.results()  # its suites never said they were done
    assert rated["exercise2"].tier is None and [test.earned for test in rated["exercise2"].tests] == [0.0]
    with pytest.raises(KeyboardInterrupt):
        with perf.Rating([catalog.find("2")], files, launcher, ("cpu",), options) as rating:
            rating.ready("exercise2", True)
            raise KeyboardInterrupt  # the with block must end (the timing stopped), not hang
    assert launcher.reserved is None


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: nothing to keep apart")
def test_while_a_run_times_on_one_cpu_no_other_child_is_put_there(launcher, tmp_path):
    from grader.sandbox.judge import Child

    cpu = sorted(os.sched_getaffinity(0))[0]
    launcher.reserved = cpu
    try:
        children = [Child(launcher, str(tmp_path / f"{index}.log"), time.monotonic() + 60, None) for index in range(4)]
    finally:
        launcher.reserved = None
    try:
        assert all(len(os.sched_getaffinity(child.pid)) == 1 and cpu not in os.sched_getaffinity(child.pid)
                   for child in children)
    finally:
        for child in children:
            child.stop()


# -- the command line ---------------------------------------------------------------------------


def invoke(*args):
    """`lumen-grade ARGS`, its report at the width of an output that is no terminal (80), whatever
    COLUMNS the tests were started with."""
    return CliRunner(env={"COLUMNS": None}).invoke(main, [str(arg) for arg in args], catch_exceptions=False)


def test_tier_in_the_json_and_text_reports_and_no_perf_skips_it(tmp_path):
    out = tmp_path / "report.json"
    result = invoke("exercise2", "--submission", SOLUTIONS, "--device", "cpu", "--format", "json", "--output", out)
    assert result.exit_code == 0
    (exercise,) = json.loads(out.read_text())["exercises"]
    # each run is timed afresh: which tier a run lands in is noise near a boundary, how it is reported is not
    names = {tier_id: name for tier_id, name, *_ in perf.TIERS}
    assert exercise["tier"]["name"] == names[exercise["tier"]["id"]] and exercise["tier"]["device"] == "cpu"
    assert exercise["tier"]["ratio"] > 0
    text = invoke("exercise2", "--submission", SOLUTIONS, "--device", "cpu").output
    speeds = "|".join(re.escape(speed_of({"name": name})) for name in names.values())
    points = exercise["max_score"]
    assert re.search(rf"✓ exercise2  Score every key  {points:g}/{points:g}  ({speeds})\n", text), text  # short: in the exercise's line
    verbose = invoke("exercise2", "--submission", SOLUTIONS, "--device", "cpu", "-v").output
    assert re.search(rf"performance: ({'|'.join(map(re.escape, names.values()))}) — ", verbose), verbose
    skipped = invoke("exercise2", "--submission", SOLUTIONS, "--device", "cpu", "--format", "json", "--no-perf")
    assert json.loads(skipped.output)["exercises"][0]["tier"] is None


@pytest.mark.parametrize("tier_id, score, status", [
    ("on-par", 4, "passed"), ("3x", 2, "failed"), ("10x", 0, "failed"), ("100x", 0, "failed"), (None, 0, "failed"),
])
def test_perf_points_per_tier(tier_id, score, status):
    tier = {"id": tier_id, "message": "performance: ..."} if tier_id else None
    test = perf.points_test(tier, 4)
    assert (test.name, test.max_score, test.score, test.status) == ("performance tier", 4, score, status)


def test_perf_points_make_the_tier_a_scored_test(tmp_path):
    """The tier reaches the report as a test worth --perf-points. Which tier a run measures is the
    machine's (`test_perf_points_per_tier` holds the shares): a file far past on par is used, and
    the test's points must be those of the tier the same run reports."""
    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "exercise2_scoring.py").write_bytes((SLOW / "exercise2" / "loop_over_rows.py").read_bytes())
    result = invoke("exercise2", "--submission", folder, "--device", "cpu", "--format", "json", "--perf-points", 4)
    (exercise,) = json.loads(result.output)["exercises"]
    (points,) = [test for test in exercise["tests"] if test["name"] == "performance tier"]
    share = perf.POINTS_SHARE.get(exercise["tier"]["id"], 0.0)
    assert points["max_score"] == 4 and points["score"] == 4 * share and points["message"] == exercise["tier"]["message"]
    assert (points["status"] == "passed") == (share == 1.0) and result.exit_code == (0 if share == 1.0 else 1)
    assert exercise["score"] == exercise["max_score"] - 4 + points["score"]


def test_perf_points_without_perf_is_a_usage_error():
    result = CliRunner().invoke(main, ["exercise2", "--submission", str(SOLUTIONS), "--no-perf", "--perf-points", "1"])
    assert result.exit_code == 2
    assert "--perf-points needs the performance tiers" in unwrapped(result.output)
