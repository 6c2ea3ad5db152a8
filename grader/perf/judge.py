"""The performance phase, judge's side: time a passed exercise against the reference, name a tier.

It runs after the suites, only for exercises whose correctness tests all passed, in a fresh child
(the reference is loaded there, under a private name, only now that correctness is decided). First
the student's output on every performance case is checked against the reference, computed here in
float64; then `grader.perf.child` times the student's code and the reference in turn in that
child. The tier is the median ratio of their times, student/reference, on the case where the
student is slowest.

Tiers are 3× apart, with boundaries at the geometric midpoints (√3, 3√3, ...) between the ratios
typical mistakes cost (1, 3, 9, 27, 81), far beyond the noise of the median: the same code gets
the same tier every run. Faster than the reference is "on par" too: how much faster depends on
the device, so no boundary is drawn there.
"""

import ctypes
import math
import os
import random
import sys
import tempfile
import time
import types
import zlib
from typing import NamedTuple

import torch

import grader.perf.child  # noqa: F401 (the children's "bench" op: imported before a launcher forks its zygote)
from grader.perf.cases import Allocations, Decode, build, decode_program, generator, make_args, weights
from grader.perf.rounds import CLOCKS, Rounds, calls_per_timing, median, ratio_stats
from grader.grading.compare import Mismatch
from grader.grading.results import TestResult
from grader.sandbox.judge import (DEFAULT_MEMORY_LIMIT, Child, ChildCrashed, ChildTimeout, Deadline, StudentError,
                                  load_request)
from grader.grading.testkit import as64, check_result

BUDGET = {"cpu": 1.2, "cuda": 2.0}  # seconds of timing per exercise, shared by its cases (CPU time; on CUDA wall)

_STEP = math.sqrt(3)
TIERS = (  # (id, name, the largest ratio in the tier, what it often means)
    ("on-par", "on par with the reference", _STEP, ""),
    ("3x", "about 3× slower than the reference", 3 * _STEP,
     "often extra work: something computed twice, a needless copy, a Python loop over a few heads"),
    ("10x", "about 10× slower than the reference", 9 * _STEP,
     "often a Python loop over something torch could batch (heads, rows, tokens)"),
    ("30x", "about 30× slower than the reference", 27 * _STEP, "often a Python loop over many rows or tokens"),
    ("100x", "100× slower than the reference or more", math.inf,
     "often a Python loop over single numbers, or work that grows with the square of the input"),
)
BOUNDS = [bound for _, _, bound, _ in TIERS[:-1]]
POINTS_SHARE = {"on-par": 1.0, "3x": 0.5}  # of --perf-points; slower tiers earn none

SUPER_LINEAR = 1.4  # growth exponent of a decode step's time (midway between 1 and 2) from which
                    # it is not linear
RECOMPUTES = 4.0  # a decode step's cost per cached token over the reference's (midway between
                  # reading the cache, about 1, and recomputing it, about 15) from which the step
                  # is said to redo work for every cached token
SUBSTANTIAL = 0.5  # extra time over the reference's, relative to it, whose growth is measured
GROWS = 1.1  # cache storage over kv_cache_bytes(max_len) beyond which it holds too much
OFFLOADS = 0.25  # CPU time of other threads per CPU second of the timing thread, beyond the
                 # reference's, from which the process's CPU time judges (work handed to threads)
WAITS = 0.5  # waits per call (voluntary context switches) beyond the reference's, from which
             # the wall clock judges
CLOCK_NOTES = {"process-cpu": "; the CPU time of all your code's threads",
               "wall": "; wall-clock time: your code waits",
               "judge": "; the CPU time of your code's process as the grader measured it: the timings it "
                        "reported were far lower"}


def tier_for(ratio):
    """(id, name, hint) of the tier a time ratio student/reference falls in."""
    for tier_id, name, bound, hint in TIERS:
        if ratio <= bound:
            return tier_id, name, hint
    raise ValueError(ratio)  # NaN


def seed_for(seed, exercise):
    return zlib.crc32(f"{seed}:perf:{exercise.id}".encode())


class Rated(NamedTuple):
    """What the performance phase adds to one exercise's result."""

    tier: dict  # None: not timed (its tests did not all pass)
    tests: list  # the tier as a test worth --perf-points, or nothing


def rate(exercises, passed, files, launcher, devices, options, run=None):
    """{exercise id: Rated} for every timed exercise (one whose declaration has performance cases),
    before the whole run's Deadline `run`: the tier of those in `passed` (ids whose tests all
    passed) that have a file; with `options.perf_points`, a test worth that many points for each,
    file or no file (none earned without a tier), so that the maximum is the same for every
    submission. An untimed exercise is left out: no tier, no points."""
    device = "cuda" if "cuda" in devices else "cpu"
    rated = {}
    with tempfile.TemporaryDirectory(prefix="lumen-perf-") as log_dir:
        for exercise in (exercise for exercise in exercises if exercise.timed):
            tier = None
            if exercise.id in passed and exercise.id in files and run is not None and time.monotonic() >= run.at:
                tier = untimed(device, f"not timed: {run.limit} ran out before its turn")
            elif exercise.id in passed and exercise.id in files:
                tier = measure(exercise, files[exercise.id], launcher, device, log_dir, seed=options.seed,
                               time_limit=options.time_limit, memory_limit=options.memory_limit, run=run)
            rated[exercise.id] = Rated(tier, [points_test(tier, options.perf_points)] if options.perf_points else [])
    return rated


def points_test(tier, points):
    """The performance tier as a test worth `points`: all for on par, half for about 3× slower,
    none for slower or untimed."""
    share = POINTS_SHARE.get(tier["id"], 0.0) if tier else 0.0
    message = tier["message"] if tier else "not timed: the exercise's tests must all pass first"
    return TestResult("performance tier", "passed" if share == 1.0 else "failed", float(points),
                      message=message, earned=share * points)


def measure(exercise, path, launcher, device, log_dir, *, seed=0, time_limit=60.0,
            memory_limit=DEFAULT_MEMORY_LIMIT, run=None):
    """The tier of one student file: verify, then time every case of the exercise's declaration.
    The student's code runs in a fresh confined child, under the exercise's rules as everywhere;
    the reference in a child of its own that never holds student code; the judge interleaves their
    timings and measures both children's CPU time itself (a number the student's process reports
    is never trusted). None for an exercise that declares no performance cases (untimed)."""
    cases = exercise.perf_cases(device)
    if not cases:
        return None
    ref = reference_of(exercise)
    seed = seed_for(seed, exercise)
    log = os.path.join(log_dir, f"{exercise.id}.log")
    limit = Deadline.earliest(time_limit, run)  # the exercise's limit, or the whole run's if sooner
    student = reference = None
    try:
        load = load_request(path, exercise.stem, exercise.forbidden)
        student = _Timed(Child(launcher, log, limit.at, memory_limit, (path,)), device)
        student.child.request(load)
        request = {"op": "bench", "exercise": exercise.id, "device": device, "seed": seed}
        requests = [{**request, "case": index, "state": weights(case, ref, seed) if case.init else None}
                    for index, case in enumerate(cases)]
        for case, asked in zip(cases, requests):
            got = student.child.request({**asked, "action": "verify"})["value"]
            check_result(got, expected(case, ref, seed), what=f"your output on the performance case {case.label}")
        grace = Deadline.earliest(time_limit + REFERENCE_GRACE, run)
        reference = _Timed(Child(launcher, log + ".reference", grace.at, None, trusted=True), device, trusted=True)
        _same_cpu(student.child.pid, reference.child.pid)
        budget = BUDGET[device] / len(cases)
        raw = [_time(case, asked, student, reference, device, seed, budget) for case, asked in zip(cases, requests)]
    except Mismatch as mismatch:
        return untimed(device, f"not timed: {mismatch.message}")
    except _ReferenceFailed as failure:
        if run is not None and time.monotonic() >= run.at:
            return untimed(device, f"not timed: {run.limit} ran out while timing the reference")
        return untimed(device, f"not timed: the grader could not time the reference ({failure})")
    except StudentError as error:
        return untimed(device, f"not timed: on the performance case, {error.summary}")
    except ChildTimeout:
        if limit.whole_run:
            return untimed(device, f"not timed: {limit.limit} ran out while timing your code")
        return untimed(device, f"not timed: one call on the performance case ran past the time limit "
                               f"({time_limit:g} s), far slower than the reference")
    except ChildCrashed as error:
        return untimed(device, f"not timed: {error}")
    finally:
        for timed in (student, reference):
            if timed is not None:
                timed.child.stop()
    return verdict(cases, raw, device, ref)


REFERENCE_GRACE = 60.0  # seconds the reference's child may take beyond the exercise's time limit


class _ReferenceFailed(Exception):
    """The reference's child failed: the grader's fault, never the student's."""


class _Timed:
    """A child whose timing requests the judge also measures from outside: the CPU time of the
    whole process (through its CPU clock, Linux; on CUDA the wall time) around each request, per
    call, as the "outside" clock. The child's own clocks stay the precise ones; `_ratios` stops
    believing them where they make the student's code look much faster than the judge saw it."""

    def __init__(self, child, device, trusted=False):
        self.child, self.device, self.trusted = child, device, trusted
        self.clock = _cpu_clock(child.pid)

    def ask(self, request):
        try:
            return self.child.request(request)["value"]
        except Exception as error:
            if self.trusted:
                raise _ReferenceFailed(str(error)) from None
            raise

    def time(self, request, calls):
        """{name: [time, process, wall, waits] per call} for the request's names, as measured here."""
        wall, cpu = time.perf_counter(), self._cpu()
        readings = self.ask(request)
        wall, cpu = time.perf_counter() - wall, self._cpu() - cpu
        name, = request["names"]
        reported = readings[name]
        if self.clock is None:  # no way to look from outside (not Linux): what the child says
            return {name: [float(value) for value in reported]}
        per_call = calls + 1 if request["action"] == "round" else 1  # the untimed call before the timed ones
        outside = (wall if self.device == "cuda" else cpu) / per_call
        return {name: [*(float(value) for value in reported[:4]), outside]}

    def _cpu(self):
        try:
            return time.clock_gettime(self.clock) if self.clock is not None else 0.0
        except OSError:  # the child has gone: the request itself will say how
            return 0.0


def _same_cpu(*pids):
    """Pin the children timed against each other to one CPU (Linux): then neither runs on a core
    that another process on the machine slows down more than the other's (timed in turns in one
    process, as they were before, they always shared one)."""
    if not hasattr(os, "sched_setaffinity"):
        return
    cpu = {min(os.sched_getaffinity(0))}
    for pid in pids:
        try:
            os.sched_setaffinity(pid, cpu)
        except OSError:
            pass


def _cpu_clock(pid):
    """The CPU-time clock of process `pid` (Linux), or None."""
    if sys.platform != "linux":
        return None
    clock = ctypes.c_int()
    if ctypes.CDLL(None).clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return None
    return clock.value


def _time(case, request, student, reference, device, seed, budget):
    """The timings of one case, as Bench's rounds and steps shape them: the student's
    child and the reference's asked in turn, in a random order each round."""
    if isinstance(case, Allocations):  # measured, not timed
        return {"allocations": {name: timed.ask({**request, "action": "allocations"})
                                for name, timed in (("student", student), ("reference", reference))}}
    owners = {"student": student, "reference": reference, **({"fused": reference} if case.fused else {})}
    warm = {}
    for timed in (student, reference):
        warm.update(timed.ask({**request, "action": "prepare"}) or {})
    order, names = random.Random(seed), list(owners)
    if isinstance(case, Decode):
        per_length = []
        for length in case.lengths:
            for timed in (student, reference):
                timed.ask({**request, "action": "grow", "length": length})
            rounds = _rounds(names, budget * length / sum(case.lengths), device)
            while not rounds.done(rounds.clocks["time"]["student"], rounds.clocks["time"]["reference"]):
                index = len(rounds.clocks["time"]["student"])
                for name in order.sample(names, len(names)):
                    step = {**request, "action": "step", "names": [name], "length": length, "index": index}
                    _add(rounds, name, owners[name].time(step, 1)[name], 1)
            per_length.append(rounds.clocks)
        timings = {clock: {name: [clocks[clock][name] for clocks in per_length] for name in names}
                   for clock in CLOCKS}
        return {**timings, "lengths": list(case.lengths), "memory": student.ask({**request, "action": "memory"})}
    calls = calls_per_timing(warm, budget, device)
    rounds = _rounds(names, budget, device)
    while not rounds.done(rounds.clocks["time"]["student"], rounds.clocks["time"]["reference"]):
        index = len(rounds.clocks["time"]["student"])
        for name in order.sample(names, len(names)):
            timing = {**request, "action": "round", "names": [name], "index": index, "calls": calls}
            _add(rounds, name, owners[name].time(timing, calls)[name], calls)
    return {**rounds.clocks, "calls": calls}


def _rounds(names, budget, device):
    """Rounds whose budget is the time the timings themselves took (see _add)."""
    spent = [0.0]
    rounds = Rounds(names, budget, BOUNDS, device, now=lambda: spent[0])
    rounds.spent = spent
    return rounds


def _add(rounds, name, readings, calls):
    """One timing (readings per call, of `calls` calls) into the rounds, and its time into the budget."""
    rounds.add(name, readings)
    rounds.spent[0] += readings[0] * calls


def untimed(device, message):
    return {"id": "not-timed", "name": "not timed", "ratio": None, "device": device, "message": message}


def reference_of(exercise):
    """The exercise's reference (the lumen_ref objects its declaration names), as a namespace."""
    return types.SimpleNamespace(**{name: exercise.reference_object(name) for name in exercise.names})


def expected(case, ref, seed):
    """The reference's output on a case's verification inputs, in float64 (`ref`: see `reference_of`)."""
    state = weights(case, ref, seed) if case.init else None
    fn = build(case, ref, state, "cpu", torch.float64)
    with torch.no_grad():
        if isinstance(case, Decode):
            return decode_program(case, fn, ref.KVCache, generator(seed), "cpu", torch.float64)
        if isinstance(case, Allocations):
            return getattr(ref, case.target)(*as64(case.args(case.lengths[0], generator(seed), "cpu")))
        return fn(*as64(make_args(case, generator(seed), "cpu")))


# -- from timings to a verdict ----------------------------------------------------------------


def verdict(cases, raw, device, ref):
    """The tier dict: id, name, ratio and device, and how it was measured (`ref`: the exercise's
    reference, see `reference_of`)."""
    summaries = [summarize(case, timing, device, ref) for case, timing in zip(cases, raw)]
    worst = max((summary for summary in summaries if "ratio" in summary), key=lambda summary: summary["ratio"])
    tier_id, name, hint = tier_for(worst["ratio"])
    tier = {"id": tier_id, "name": name, "ratio": worst["ratio"], "device": device,
            "rounds": worst["rounds"], "spread": worst["spread"], "clock": worst["clock"],
            "case": worst["label"], "cases": summaries}
    fused = next((summary["fused_ratio"] for summary in summaries if "fused_ratio" in summary), None)
    if fused is not None:
        tier["fused_ratio"] = fused
    notes = []
    decode = next((summary for summary in summaries if "complexity" in summary), None)
    if decode:
        tier["complexity"], tier["memory"] = decode["complexity"], decode["memory"]
        notes = [decode["complexity"]["message"], decode["memory"]["message"]]
    measured = next((summary for summary in summaries if "ratio" not in summary), None)
    if measured:  # an Allocations case
        tier["memory"] = measured["memory"]
        notes.append(measured["memory"]["message"])
    tier["message"] = _message(tier, hint)
    tier["notes"] = notes
    return tier


def _message(tier, hint):
    fused = tier.get("fused_ratio")
    production = f"; {fused:.2f}× torch's fused attention" if fused else ""
    clock = CLOCK_NOTES.get(tier["clock"], "")
    advice = f" — {hint}" if hint else ""
    return (f"{tier['name']} — {tier['ratio']:.2f}× its time on {tier['case']}{production} ({tier['device']}, "
            f"median of {tier['rounds']} rounds, ±{100 * tier['spread']:.1f}%{clock}){advice}")


def summarize(case, timing, device, ref):
    """One case's median ratios, and how they were measured."""
    if isinstance(case, Allocations):
        return {"label": case.label, "memory": largest_tensor(case, timing["allocations"])}
    if isinstance(case, Decode):
        last = {clock: {name: per_length[-1] for name, per_length in timing[clock].items()}
                for clock in CLOCKS}
        summary = _ratios(case, last, device)
        summary.update(_decode(case, timing, ref))
        return summary
    return {**_ratios(case, timing, device), "calls": timing["calls"]}


TRUSTED_SHARE = 0.7  # a ratio from the child's own clocks below this share of the judge's is not believed


def _ratios(case, timing, device):
    key, clock = _clock_for(timing, device)
    times = timing[key]
    ratio, spread = ratio_stats(times["student"], times["reference"])
    outside = timing.get("outside", {})
    if outside.get("student") and outside.get("reference"):
        # the judge's own measure of each child's whole request (the same work around the calls in
        # both): if the student's process reports itself much faster than that, its report is not
        # believed, and the judge's measure decides
        judged, judged_spread = ratio_stats(outside["student"], outside["reference"])
        if ratio < TRUSTED_SHARE * judged:
            key, clock, times, ratio, spread = "outside", "judge", outside, judged, judged_spread
    summary = {"label": case.label, "ratio": round(ratio, 3), "spread": round(spread, 4),
               "rounds": len(times["student"]), "clock": clock,
               "reference_ms": _ms(median(times["reference"])), "student_ms": _ms(median(times["student"]))}
    if "fused" in times:
        summary["fused_ratio"] = round(ratio_stats(times["student"], times["fused"])[0], 3)
    return summary


def _clock_for(timing, device):
    """(key, name) of the clock that judges a case: CUDA events on CUDA; on the CPU this thread's
    CPU time, unless the student's code hands work to other threads (then the whole process's CPU
    time) or waits for something, a sleep or another process (then the wall clock), which the
    reference does not."""
    if device == "cuda":
        return "time", "cuda-events"
    thread, process, waits = timing["time"], timing["process"], timing["waits"]

    def elsewhere(name):  # CPU time spent by other threads, relative to this thread's
        return median([(p - t) / max(t, 1e-9) for p, t in zip(process[name], thread[name])])

    if elsewhere("student") - elsewhere("reference") > OFFLOADS:
        return "process", "process-cpu"
    if median(waits["student"]) - median(waits["reference"]) > WAITS:
        return "wall", "wall"
    return "time", "thread-cpu"


def _ms(seconds):
    return round(1e3 * seconds, 4)


def _decode(case, timing, ref):
    """The growth verdict and memory report of a Decode case, from its median step times."""
    steps = {name: [median(at_length) for at_length in per_length]
             for name, per_length in timing["time"].items()}
    return {"lengths": timing["lengths"],
            "reference_step_ms": [_ms(t) for t in steps["reference"]],
            "student_step_ms": [_ms(t) for t in steps["student"]],
            "complexity": complexity(timing["lengths"], steps["student"], steps["reference"]),
            "memory": memory_report(case, timing["memory"], ref)}


def complexity(lengths, student, reference):
    """How a decode step's time grows with the tokens cached, from the median step times at each
    length: the growth exponent of the student's extra time over the reference's (over the three
    longest lengths, once that extra time is substantial), and the student's cost per cached
    token (slope of a line through all lengths) over the reference's."""
    excess = [s - r for s, r in zip(student, reference)]
    exponent = None
    if excess[-1] > SUBSTANTIAL * reference[-1] and excess[-3] > 0:
        exponent = math.log(excess[-1] / excess[-3]) / math.log(lengths[-1] / lengths[-3])
    per_token = _slope(lengths, student) / max(_slope(lengths, reference), 1e-12)
    result = {"excess_exponent": None if exponent is None else round(exponent, 3),
              "per_token_ratio": round(per_token, 2)}
    if exponent is not None and exponent >= SUPER_LINEAR:
        result.update(verdict="super-linear", message=(
            f"KV cache: super-linear — what a decode step takes beyond the reference's time grows like "
            f"T^{exponent:.1f} with the T tokens cached: each step re-runs the whole sequence; project "
            "only the new tokens and attend to the cache"))
    elif per_token >= RECOMPUTES:
        result.update(verdict="recomputes", message=(
            f"KV cache: linear, but each cached token costs {per_token:.0f}× what it costs the reference "
            "per step: the past keys and values are recomputed instead of read from the cache"))
    else:
        result.update(verdict="linear", message=(
            f"KV cache: linear, like the reference ({per_token:.1f}× its cost per cached token per step)"))
    return result


def _slope(xs, ys):
    """Least-squares slope of ys over xs."""
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
            / sum((x - mean_x) ** 2 for x in xs))


def memory_report(case, memory, ref):
    """The student's cache storage against kv_cache_bytes, and whether it reallocates as it grows."""
    d_model, n_heads, n_kv_heads = case.init
    expected_bytes = ref.kv_cache_bytes(1, n_kv_heads, d_model // n_heads, case.max_len, case.batch, 4)
    report = {"bytes": memory["end_bytes"], "start_bytes": memory["start_bytes"], "expected_bytes": expected_bytes,
              "max_len": case.max_len, "tokens": memory["tokens"],
              "reallocations": memory["reallocations"], "steps": memory["steps"]}
    held = f"{_mib(memory['end_bytes'])} for {memory['tokens']} tokens"
    formula = f"kv_cache_bytes for max_len={case.max_len} float32 tokens is {_mib(expected_bytes)}"
    if memory["reallocations"] > memory["steps"] // 2:
        report["verdict"] = "reallocates"
        report["message"] = (f"memory: the cache is reallocated and copied as it grows ({memory['reallocations']} "
                             f"of {memory['steps']} steps): allocate max_len once and write into it; "
                             f"it holds {held} ({formula})")
    elif memory["end_bytes"] > GROWS * expected_bytes:
        report["verdict"] = "oversized"
        report["message"] = (f"memory: the cache holds {held}, {memory['end_bytes'] / expected_bytes:.1f}× "
                             f"what {formula} says")
    else:
        report["verdict"] = "preallocated"
        report["message"] = f"memory: allocated once; it holds {held} ({formula})"
    return report


QUADRATIC = 1.5  # growth exponent of the largest tensor with L (midway between L·block_size, 1, and L², 2)
                 # from which a submission is said to hold the (L, L) matrix


def largest_tensor(case, measured):
    """Exercise 10's memory verdict: how the largest tensor the student's call allocates grows with
    L, beside the reference's (one block of scores) and the (L, L) matrix it must never hold."""
    student, reference = measured["student"], measured["reference"]
    lengths, sizes = list(case.lengths), student["bytes"]
    exponent = math.log(max(sizes[-1], 1) / max(sizes[0], 1)) / math.log(lengths[-1] / lengths[0])
    B, H, _ = case.shape
    full = [B * H * length * length * 4 for length in lengths]  # the float32 (L, L) scores of every head
    report = {"lengths": lengths, "bytes": sizes, "shapes": student["shapes"], "reference_bytes": reference["bytes"],
              "full_matrix_bytes": full, "exponent": round(exponent, 3), "block_size": case.block}
    at = (f"{_mib(sizes[-1])} at L = {lengths[-1]} ({_mib(sizes[0])} at L = {lengths[0]}); the reference's largest "
          f"is {_mib(reference['bytes'][-1])}, the whole (L, L) matrix of scores {_mib(full[-1])}")
    if exponent >= QUADRATIC:
        report["verdict"] = "quadratic"
        report["message"] = (f"memory: quadratic — the largest tensor your {case.target} allocates grows like "
                             f"L^{exponent:.1f}: {at}. Read K and V a block at a time and keep only a block of "
                             "scores, (L, block_size)")
    else:
        report["verdict"] = "tiled"
        report["message"] = (f"memory: tiled — the largest tensor your {case.target} allocates grows like "
                             f"L^{exponent:.1f}, with L·block_size, not L²: {at}")
    return report


def _mib(n):
    return f"{n / 2 ** 20:.2f} MiB"
