"""The performance phase, judge's side: time a passed exercise against the reference, name a tier.

It runs beside the suites (`Rating`): an exercise is timed as soon as its own suites are done, only
if its correctness tests all passed, while the next exercise's suites run, on a CPU that the
suites' children then leave to it: the student's file in a fresh child of its own, the reference
in one warm child for the whole run that never holds student code (loaded there, under a private
name, only now that its correctness is decided).
First the student's output on every performance case is checked against the reference, computed
here in float64. Then each case is timed in rounds, call by call, interleaved on one CPU:

- every call is the suites' own kind of request (`grader.student`), on inputs drawn here from a
  secret seed, fresh each round, and the student's answer is checked against the reference's for
  the same inputs ("your code answered differently while it was timed"): what a timed call does
  differently from a tested one, or from the call before, it does on the record;
- the children report the clocks around each call; the judge measures each child's process from
  outside too, and the student's time never counts for less than that measure shows (`_clocks`);
- the rounds stop as soon as the median ratio's interval lies inside one tier, for the least and
  the most the student's code can have taken (`_settled`); near a boundary they go on, within a
  budget; undecided on a machine too busy to trust: "not timed: the machine was too busy (retry)".

The tier is the median ratio of the times, student/reference, on the case where the student is
slowest.

Tiers are 3× apart, with boundaries at the geometric midpoints (√3, 3√3, ...) between the ratios
typical mistakes cost (1, 3, 9, 27, 81), far beyond the noise of the median: the same code gets
the same tier every run. Faster than the reference is "on par" too: how much faster depends on
the device, so no boundary is drawn there.
"""

import concurrent.futures
import contextlib
import ctypes
import math
import os
import random
import socket
import sys
import tempfile
import time
import types
import zlib
from typing import NamedTuple

import torch

import grader.perf.child  # noqa: F401 (the children's "bench" op: imported before a launcher forks its zygote)
from grader.perf.cases import Allocations, Decode, Randn, build, decode_program, generator, make_args, weights
from grader.perf.rounds import CLOCKS, MAX_ROUNDS, decided, median_interval, median, ratio_stats
from grader.grading.compare import TOLERANCES, Mismatch, describe
from grader.grading.results import TestResult
from grader.grading.settings import DEFAULTS
from grader.sandbox import wire
from grader.sandbox.judge import (Child, ChildCrashed, ChildTimeout, Deadline, StudentError,
                                  call_request, load_request, mib, pin)
from grader.grading.testkit import as64, check_result, one_thread

_STEP = math.sqrt(3)


def _slower(low, high=math.inf):
    """A tier's name: the ratios it spans, as the report prints them (a ratio of 1.75 is not "about 3×")."""
    if high == math.inf:
        return f"{low:.2g}× slower than the reference or more"
    return f"{low:.2g} to {high:.2g}× slower than the reference"


TIERS = (  # (id, name, the largest ratio in the tier, what it often means); an id names the typical ratio
    ("on-par", "on par with the reference", _STEP, ""),
    ("3x", _slower(_STEP, 3 * _STEP), 3 * _STEP,
     "often extra work: something computed twice, a needless copy, a Python loop over a few heads"),
    ("10x", _slower(3 * _STEP, 9 * _STEP), 9 * _STEP,
     "often a Python loop over something torch could batch (heads, rows, tokens)"),
    ("30x", _slower(9 * _STEP, 27 * _STEP), 27 * _STEP, "often a Python loop over many rows or tokens"),
    ("100x", _slower(27 * _STEP), math.inf,
     "often a Python loop over single numbers, or work that grows with the square of the input"),
)
BOUNDS = [bound for _, _, bound, _ in TIERS[:-1]]
POINTS_SHARE = {"on-par": 1.0, "3x": 0.5}  # of --perf-points; slower tiers earn none

BURSTS = 1.15  # the rounds' total time ratio over their median ratio beyond which the total judges a case:
              # work deferred and paid in bursts (one call in a few doing the others' share) leaves the
              # median fast; a busy machine's odd slow round moves the total less, and a slower tier
              # must survive a second series of rounds (`_confirmed`), where such a round is unlikely again
SUPER_LINEAR = 1.4  # growth exponent of a decode step's time (midway between 1 and 2) from which
                    # it is not linear
RECOMPUTES = 4.0  # a decode step's cost per cached token over the reference's (midway between
                  # reading the cache, about 1, and recomputing it, about 15) from which the step
                  # is said to redo work for every cached token
SUBSTANTIAL = 0.5  # extra time over the reference's, relative to it, whose growth is measured
GROWS = 1.1  # cache storage over kv_cache_bytes(max_len) beyond which it holds too much
OFFLOADS = 0.25  # CPU time of other threads per CPU second of the calling thread, beyond the
                 # reference's, from which the tier says the CPU time of all threads judged it
WAITS = 0.5  # waits per call (voluntary context switches) beyond the reference's, from which
             # the longer of CPU and wall time judges ("busy")
CLOCK_NOTES = {"process-cpu": "; the CPU time of all your code's threads", "wall-cuda": "; wall-clock time",
               "wall": "; wall-clock time: your code waits"}


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


class Rating:
    """The performance phase of a run, on a thread of its own beside the suites: each timed
    exercise (one whose declaration has performance cases) is timed as soon as its suites are done
    (`ready`), while the next exercise's suites run, so that on a machine with a second core the
    tiers cost the run little more than the last exercise's timing. Timing stays fair beside the
    suites: both sides' children are pinned to one CPU and timed by their own clocks (see `measure`).

    `results()` gives {exercise id: Rated}: the tier of those whose tests all passed and that have a
    file; with `options.perf_points`, a test worth that many points for each, file or no file (none
    earned without a tier), so that the maximum is the same for every submission. An untimed
    exercise is left out: no tier, no points. One warm child holds the reference for the whole run;
    each student file is timed in a fresh child of its own, so that one exercise's code never
    touches another's verdict."""

    def __init__(self, exercises, files, launcher, devices, options, run=None):
        self.timed = [exercise for exercise in exercises if exercise.timed]
        self.files, self.launcher, self.options, self.run = files, launcher, options, run
        self.device = "cuda" if "cuda" in devices else "cpu"
        self.verdicts = {exercise.id: concurrent.futures.Future() for exercise in self.timed}  # passed or not
        self.stopping, self.timing = False, None  # timing: the student child being timed now

    def __enter__(self):
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="lumen-rating")
        self._rated = self._worker.submit(self._rate)
        return self

    def __exit__(self, kind, *exc):
        if kind is not None:  # the run stopped (Ctrl-C, a broken suite): nothing more is timed
            self.stopping = True
            timing = self.timing
            if timing is not None:  # its request ends at once (ChildCrashed); the timing thread stops it
                with contextlib.suppress(OSError):
                    timing.child.sock.shutdown(socket.SHUT_RDWR)
        self._settle()
        self._worker.shutdown(wait=True)

    def ready(self, exercise_id, passed):
        """An exercise's suites are done: time it if `passed` (all its tests passed)."""
        verdict = self.verdicts.get(exercise_id)
        if verdict is not None and not verdict.done():
            verdict.set_result(bool(passed))

    def results(self):
        """{exercise id: Rated}, once every exercise ready is timed (one never ready is not timed)."""
        self._settle()
        return self._rated.result()

    def _settle(self):
        for verdict in self.verdicts.values():
            if not verdict.done():
                verdict.set_result(False)

    def _rate(self):
        options, run, device = self.options, self.run, self.device
        candidates = [exercise for exercise in self.timed if exercise.id in self.files]
        rated = {}
        with contextlib.ExitStack() as stack:
            log_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="lumen-perf-"))
            ref = stack.enter_context(_Reference(self.launcher, log_dir, device, run))
            children = stack.enter_context(_Children(self.launcher, log_dir, device, options, run))
            for exercise in self.timed:
                due = self.verdicts[exercise.id].result() and exercise in candidates and not self.stopping
                tier = None
                if due and run is not None and time.monotonic() >= run.at:
                    tier = untimed(device, f"not timed: {run.limit} ran out before its turn")
                elif due:
                    ref.start(children.pool)
                    child = children.take(exercise, self.files[exercise.id])
                    following = candidates[candidates.index(exercise) + 1:]
                    if following:  # made while this one is timed, in case its tests pass: no student code runs in it yet
                        children.prepare(following[0], self.files[following[0].id])
                    tier = self._measure(exercise, child, ref, log_dir)
                rated[exercise.id] = Rated(tier, [points_test(tier, options.perf_points)] if options.perf_points else [])
        return rated

    def _measure(self, exercise, child, ref, log_dir):
        options = self.options

        def taken():
            self.timing = child()
            return self.timing

        try:
            return measure(exercise, self.files[exercise.id], self.launcher, self.device, log_dir, seed=options.seed,
                           time_limit=options.time_limit, memory_limit=options.memory_limit, run=self.run,
                           reference=ref, child=taken)
        except Exception as error:  # the grader's own failure on one file: that file's tier, never the run
            return untimed(self.device, f"not timed: the grader failed while timing it ({type(error).__name__}: "
                                        f"{str(error)[:200]}); please report this")
        finally:
            self.timing = None


class _Children:
    """The student's timing children of a run, each made (spawned, confined, its heap warmed: no
    student code loaded) on a thread of `pool` while the exercise before is timed (the first
    beside the reference's child), so that making one costs the run no time. `take` gives an exercise's child as a callable that returns it or
    raises what making it raised; the children not taken are stopped at the end."""

    def __init__(self, launcher, log_dir, device, options, run):
        self.launcher, self.log_dir, self.device, self.options, self.run = launcher, log_dir, device, options, run
        self.pool, self.made = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="lumen-perf"), {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for made in self.made.values():
            made.add_done_callback(lambda done: done.exception() is None and done.result().child.stop())
        self.pool.shutdown(wait=True)

    def prepare(self, exercise, path):
        limit = Deadline.earliest(self.options.time_limit, self.run)
        self.made[exercise.id] = self.pool.submit(_timing_child, exercise, path, self.launcher, self.device,
                                                  self.log_dir, limit, self.options.memory_limit)

    def take(self, exercise, path):
        if exercise.id not in self.made:
            self.prepare(exercise, path)
        return self.made.pop(exercise.id).result


def _timing_child(exercise, path, launcher, device, log_dir, limit, memory_limit):
    """A fresh confined child that may read the student's file, its heap warmed (`_Timed`)."""
    return _Timed(Child(launcher, os.path.join(log_dir, f"{exercise.id}.log"), limit.at, memory_limit, (path,)),
                  device)


def points_test(tier, points):
    """The performance tier as a test worth `points`: all for on par, half for the 3x tier (1.7 to 5.2×),
    none for slower or untimed."""
    share = POINTS_SHARE.get(tier["id"], 0.0) if tier else 0.0
    message = tier["message"] if tier else "not timed: the exercise's tests must all pass first"
    return TestResult("performance tier", "passed" if share == 1.0 else "failed", float(points),
                      message=message, earned=share * points)


def measure(exercise, path, launcher, device, log_dir, *, seed=DEFAULTS.seed, time_limit=DEFAULTS.time_limit,
            memory_limit=DEFAULTS.memory_limit, run=None, reference=None, child=None):
    """The tier of one student file: verify, then time every case of the exercise's declaration.
    The student's code runs in a fresh confined child, under the exercise's rules as everywhere,
    and is called exactly as the suites call it; the reference in a child that never holds student
    code (`reference`, a `_Reference` shared by a run, or one of its own). Every timed call gets
    inputs never seen before, drawn here from a secret seed, and its answer is checked against the
    reference's for the same inputs. The judge measures both children's CPU time itself; what the
    student's process reports about its own time never counts for less than that. None for an
    exercise that declares no performance cases (untimed). `child`: a callable that returns the
    student's timing child, made beforehand (`_Children`), or raises what making it raised."""
    cases = exercise.perf_cases(device)
    if not cases:
        return None
    with contextlib.ExitStack() as stack:
        stack.enter_context(one_thread())
        if reference is None:
            reference = stack.enter_context(_Reference(launcher, log_dir, device, run))
        return _measure(exercise, cases, path, launcher, device, log_dir, seed, time_limit, memory_limit, run,
                        reference, child)


def _measure(exercise, cases, path, launcher, device, log_dir, seed, time_limit, memory_limit, run, reference, child):
    ref = reference_of(exercise)
    seed = seed_for(seed, exercise)
    limit = Deadline.earliest(time_limit, run)  # the exercise's limit, or the whole run's if sooner
    student = None
    try:
        student = child() if child is not None else _timing_child(exercise, path, launcher, device, log_dir, limit,
                                                                   memory_limit)
        student.child.deadline = limit.at
        reference.place(student.child.pid)  # before its code is loaded: it never sees its CPU change
        load = load_request(path, exercise.stem, exercise.forbidden)
        student.child.request(load)
        request = {"op": "bench", "exercise": exercise.id, "device": device, "seed": seed}
        requests = [{**request, "case": index, "state": weights(case, ref, seed) if case.init else None}
                    for index, case in enumerate(cases)]
        built = {}
        for index, (case, asked) in enumerate(zip(cases, requests)):
            if _called(case):  # its answer checked in full at the first round of its timing (`_check_timed`)
                built[index] = student.build(case, asked["state"])
            else:
                got = student.child.request({**asked, "action": "verify"})["value"]
                check_result(got, expected(case, ref, seed, asked["state"]), dtype=torch.float32, device=device,
                             what=f"your output on the performance case {case.label}")  # the inputs' dtype
        reference.adopt(exercise)

        def timed(index):
            case, asked = cases[index], requests[index]
            if _called(case):
                return _time_calls(case, built[index], reference.build(case, asked["state"]), student,
                                   reference.timed, device, run)
            if isinstance(case, Decode):
                return _time_decode(case, asked["state"], student, reference, device, run)
            return _time(case, asked, student, reference.timed)

        raw = _confirmed(cases, [timed(index) for index in range(len(cases))], timed, device, ref)
    except Mismatch as mismatch:
        return untimed(device, f"not timed: {mismatch.message}")
    except _Answered as answered:
        return untimed(device, f"not timed: your code answered differently while it was timed: {answered}")
    except _Malformed as malformed:
        return untimed(device, f"not timed: your code's process sent the grader something that is not {malformed} "
                               "(does your code change the grader's own objects?)")
    except _Busy as busy:
        return untimed(device, f"not timed: the machine was too busy to time {busy} reliably (retry)")
    except _ReferenceFailed as failure:
        if run is not None and time.monotonic() >= run.at:
            return untimed(device, f"not timed: {run.limit} ran out while timing the reference")
        return untimed(device, f"not timed: the grader could not time the reference ({failure})")
    except StudentError as error:
        return untimed(device, f"not timed: on the performance case, {error.summary}")
    except _TooSlow as slow:
        if run is not None and time.monotonic() >= run.at:
            return untimed(device, f"not timed: {run.limit} ran out while timing your code")
        return too_slow(device, slow.args[0])
    except ChildTimeout:
        if run is not None and time.monotonic() >= run.at:
            return untimed(device, f"not timed: {run.limit} ran out while timing your code")
        return untimed(device, f"not timed: one call on the performance case ran past the time limit "
                               f"({time_limit:g} s), far slower than the reference")
    except ChildCrashed as error:
        return untimed(device, f"not timed: {error}")
    finally:
        if student is not None:
            student.child.stop()
    return verdict(cases, raw, device, ref)


def _confirmed(cases, raw, timed, device, ref):
    """The timings `raw`, with a slower tier than on par kept only where it survives a re-time: the
    case that decides the tier timed again (`timed(index)`), and where the two disagree a third
    time, the series of the median ratio kept; a tier the rounds' total decides (bursts) stands
    only where three series agree, else the fastest series is kept. A machine that disturbs one series of rounds (a
    process that took the CPU for all of them) then cannot make honest code slower, and code
    that is slower is so in every series."""
    confirmed = set()
    while True:
        summaries = {index: summarize(case, timing, device, ref) for index, (case, timing) in enumerate(zip(cases, raw))}
        ratios = {index: summary["ratio"] for index, summary in summaries.items() if "ratio" in summary}
        worst = max(ratios, key=ratios.get, default=None)
        if worst is None or worst in confirmed or tier_for(ratios[worst])[0] == TIERS[0][0]:
            return raw
        confirmed.add(worst)
        series = [(ratios[worst], raw[worst])]
        # a total's verdict (bursts) must hold in three series: a busy machine's odd slow rounds can
        # tip a total twice in a row (round 10's a03 pays its bursts in every series)
        needed = 3 if summaries[worst].get("bursts") else 2
        while len(series) < 3:
            again = timed(worst)
            series.append((summarize(cases[worst], again, device, ref)["ratio"], again))
            agree = all(tier_for(ratio)[0] == tier_for(series[0][0])[0] for ratio, _ in series)
            if agree and len(series) == needed:
                break
        if len(series) == 3 and not agree:
            ordered = sorted(series, key=lambda entry: entry[0])
            raw[worst] = (ordered[0] if needed == 3 else ordered[1])[1]


def _called(case):
    """Whether a case is timed through the suites' own kind of call (a function or a module on
    fresh inputs); a decode program and an allocation measurement have requests of their own."""
    return not isinstance(case, (Decode, Allocations))


REFERENCE_GRACE = 60.0  # seconds any one request to the reference's child may take
PATIENCE = 100  # a timed call of the student's may take this many times the reference's time (wall)...
SLACK = 2.0  # ... plus these seconds, before it is stopped: the timing's limit follows the reference's
CONFIDENCE = 0.85  # of the median ratio's interval that must clear the tier boundaries: the rounds stop at
                  # the first look where it does, after 4 rounds (all four inside one tier) for a ratio
                  # well inside a tier, later near a boundary
BUSY_ROUNDS, BUSY_BUDGET = 80, 3  # rounds, and times the budget, that a busy machine's undecided case gets
DECIDING_ROUNDS = 6  # rounds of a case at least, however slow, before the budget stops them
WARM_UP = 1  # rounds of each case first, not kept (the first calls of a process are slower)
FALLBACK_CONFIDENCE = 0.8  # of the median's interval, once the rounds or the budget are used up
MAX_TIMING = {"cpu": 0.8, "cuda": 1.0}  # seconds of the children's time (CPU time on the CPU, wall on
                                        # CUDA) one case's rounds may spend before they stop undecided
UNREPORTED_ERRORS = 1.5  # standard errors of what the judge charges beyond a child's readings (`_unreported`)
                         # that the two ends of the estimate stand apart: the rounds stop when both
                         # give the tier (the tier itself is the central estimate's)
QUIET_SAMPLE = 0.03  # seconds over which the CPUs' idle time picks the one the timed children share
TIMINGS = (*CLOCKS, "outside_wall", "busy")  # what `_clocks` makes of the rounds: the children's clocks and the judge's
SLACK_READING = 1e-4  # seconds by which a child's reading may exceed what bounds it (clock granularity)
BUSY_SHARE = 0.6  # CPU share of the reference's child while it answers, below which the machine is busy
BUSY_SPREAD = 0.15  # spread of the round's ratios (see ratio_stats) beyond which the timing is disturbed


class _ReferenceFailed(Exception):
    """The reference's child failed: the grader's fault, never the student's."""


class _Answered(Exception):
    """The student's code answered a timed call differently from the reference."""


class _TooSlow(Exception):
    """A timed call of the student's ran past its limit, PATIENCE times the reference's time."""


class _Malformed(Exception):
    """The student's process answered a measurement with something that is not one."""


class _Busy(Exception):
    """The rounds ran out undecided on a machine too busy to decide them."""


class _Reference:
    """The reference's child for a run: started at the first exercise timed, warm for the next ones
    (it loads the reference once), stopped at the end. It never holds student code."""

    def __init__(self, launcher, log_dir, device, run):
        self.launcher, self.log, self.device, self.run = launcher, os.path.join(log_dir, "reference.log"), device, run
        self._timed, self.cpu, self._starting = None, None, None
        self._idle = time.monotonic(), _idle_ticks()  # the CPUs' idle time until the first timing

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.cpu is not None and self.launcher.reserved == self.cpu:
            self.launcher.reserved = None
        self._started()
        if self._timed is not None:
            self._timed.child.stop()

    def start(self, pool):
        """Start the child on one of `pool`'s threads now (while the first student's child is made),
        unless it is started."""
        if self._timed is None and self._starting is None:
            self._starting = pool.submit(self._child)

    def _started(self):
        """Wait for a start begun by `start` (a failure there is met again by `timed`)."""
        starting, self._starting = self._starting, None
        if starting is not None:
            starting.exception()

    @property
    def timed(self):
        """The child, started now if there is none alive (one that failed is not used again)."""
        self._started()
        return self._child()

    def _child(self):
        if self._timed is None or not self._timed.child.alive:
            try:
                child = Child(self.launcher, self.log, self._deadline(), None, trusted=True)
            except Exception as error:
                raise _ReferenceFailed(str(error)) from None
            self._timed = _Timed(child, self.device, trusted=True)
        self._timed.child.deadline = self._deadline()
        return self._timed

    def _deadline(self):
        own = time.monotonic() + REFERENCE_GRACE
        return min(own, self.run.at) if self.run is not None else own

    def place(self, student_pid):
        """Pin the student's timing child and the reference's to one CPU, the quietest at the run's
        first timing, which the suites' children then leave to them (`Launcher.reserved`) where the
        run has another."""
        if self.cpu is None and hasattr(os, "sched_setaffinity"):
            allowed = os.sched_getaffinity(0)
            self.cpu = _quietest_cpu(allowed, self._idle)
            if len(allowed) > 1 and self.launcher.reserved is None:
                self.launcher.reserved = self.cpu
        _same_cpu(self.cpu, student_pid, self.timed.child.pid)

    def adopt(self, exercise):
        """Serve `exercise`'s reference next."""
        self.timed.ask({"op": "bench", "action": "adopt", "exercise": exercise.id})

    def build(self, case, state):
        """{"reference": what to call, "fused": ... where the case has it} in the reference's child."""
        built = {"reference": self.timed.build(case, state)}
        if case.fused:
            built["fused"] = self.timed.build(case, state, prefix="fused.")
        return built


class _Timed:
    """A child whose requests the judge also measures from outside: the CPU time of the whole
    process (through its CPU clock, Linux; on CUDA the wall time) and the wall time around each,
    and on the CPU what the process spent between its requests too (`idle`)."""

    def __init__(self, child, device, trusted=False):
        self.child, self.device, self.trusted = child, device, trusted
        self.clock = _cpu_clock(child.pid)
        self.replied = None  # the process's CPU time when its last reply had come
        self.asked = 0.0  # the CPU seconds it spent answering its last untimed request (`ask`)
        self.ask({"op": "bench", "action": "warm"})  # before any call is timed: its first calls as fast as its later

    def ask(self, request):
        """The value of an untimed request; `asked`: the CPU seconds the process spent meanwhile."""
        started = self._cpu()
        try:
            return self.child.request(request)["value"]
        except Exception as error:
            if self.trusted:
                raise _ReferenceFailed(str(error)) from None
            raise
        finally:
            self.replied = self._cpu()
            self.asked = self.replied - started

    def charge(self, seconds):
        """Count `seconds` of CPU time the process spent outside its calls against its next call,
        as what it did between its requests is (`idle`)."""
        if self.replied is not None:
            self.replied -= seconds

    def idle(self, now):
        """CPU seconds the process spent since its last reply, before a request at CPU time `now`:
        none for a process that waits for its next request, as an honest one does; what a thread of
        its own did meanwhile (while the reference was timed, say) otherwise. 0 on CUDA."""
        if self.replied is None or self.device == "cuda" or self.clock is None:
            return 0.0
        return max(0.0, now - self.replied)

    def build(self, case, state, prefix=""):
        """What a call of `case` calls in this child: the function's name, or a handle on the module
        made and loaded with `state` as the suites make one."""
        target = prefix + case.target
        if case.init is None:
            return target
        module = self.call(target, case.init)[0]
        if not isinstance(module, wire.Handle):
            raise Mismatch(f"{case.target}(...) returned {describe(module)}, not an object: {case.target} must stay "
                           "a class (an nn.Module) that the tests can build and call")
        self.call(module, (state,), method="load_state_dict")
        return module

    def call(self, target, args, method=None, patience=None, run=None):
        """(value, the child's own readings [thread, process, wall, waits], the judge's [CPU, wall],
        its CPU with what the process spent since its last reply) of one call, sent exactly as the suites send theirs (`grader.student`); with `patience`,
        the seconds it may take before it is stopped (never past the whole run's Deadline `run`)."""
        deadline = self.child.deadline  # the phase's own, again after this call
        if patience is not None:
            self.child.deadline = min(time.monotonic() + patience, run.at if run is not None else math.inf)
        if isinstance(target, wire.Handle) and method is None:
            method = "__call__"  # a module's forward, as the suites call it
        request = call_request(target, method, args)
        wall, cpu = time.perf_counter(), self._cpu()
        between = self.idle(cpu)
        try:
            reply = self.child.request(request)
        except Exception as error:
            if self.trusted:
                raise _ReferenceFailed(str(error)) from None
            if isinstance(error, ChildTimeout) and patience is not None:
                raise _TooSlow(patience) from None
            raise
        finally:
            self.child.deadline = deadline
            self.replied = self._cpu()
        outside = [self.replied - cpu, time.perf_counter() - wall]
        readings = _readings(reply.get("clock"), outside, self.device)
        outside[0] += between  # what it did between requests is this call's too (never in its own readings)
        return reply["value"], readings, outside

    def _cpu(self):
        if self.device == "cuda" or self.clock is None:
            return time.perf_counter()  # a GPU's time is not CPU time; elsewhere the best there is
        try:
            return time.clock_gettime(self.clock)
        except OSError:  # the child has gone: the request itself will say how
            return 0.0


def _readings(values, outside=None, device="cpu"):
    """A child's clock readings [thread, process, wall, waits] as four non-negative numbers:
    whatever the student's process sent (it can send anything: `_seconds`), a reading that is not
    one counts as 0, so that the judge's own decides. Readings no call can produce are all 0: a
    call that took no wall time, a thread that ran longer than the wall clock or its process, or
    (`outside`: the judge's [CPU, wall] around the request) a call longer than the request that
    carried it."""
    values = values if isinstance(values, (list, tuple)) else []
    clean = [_seconds(value) for value in values[:4]]
    thread, process, wall, waits = clean + [0.0] * (4 - len(clean))
    possible = wall > 0 and thread <= min(process, wall) + SLACK_READING
    if outside is not None:
        possible = possible and wall <= outside[1] + SLACK_READING
        possible = possible and (device != "cpu" or process <= outside[0] + SLACK_READING)
    return [thread, process, wall, waits] if possible else [0.0] * 4


def _seconds(value):
    """A reading as a float: a finite non-negative number no larger than a day, else 0 (an int too
    large for a float included)."""
    if type(value) not in (int, float) or not 0 <= value <= 86400:
        return 0.0
    return float(value)


def _same_cpu(cpu, *pids):
    """Pin the children timed against each other to one CPU (Linux): then neither runs on a core
    that another process on the machine slows down more than the other's (two gradings at once,
    `lumen-grade batch --jobs 2`, each pick the quietest one: `_quietest_cpu`)."""
    if cpu is None:
        return
    for pid in pids:
        pin(pid, cpu)


def _idle_ticks():
    """{cpu: idle and iowait ticks so far} from /proc/stat (Linux), or {} where it cannot be read."""
    try:
        with open("/proc/stat") as stat:
            lines = [line.split() for line in stat if line.startswith("cpu") and line[3].isdigit()]
    except OSError:
        return {}
    return {int(fields[0][3:]): int(fields[4]) + int(fields[5]) for fields in lines if len(fields) > 5}


def _quietest_cpu(allowed, since):
    """The CPU among `allowed` that was idle most since `since` ((time.monotonic(), _idle_ticks())
    then), over QUIET_SAMPLE seconds at least (the lowest numbered among equals, and where the
    system does not say)."""
    started, before = since
    time.sleep(max(0.0, started + QUIET_SAMPLE - time.monotonic()))
    after = _idle_ticks()
    return max(sorted(allowed), key=lambda cpu: after.get(cpu, 0) - before.get(cpu, 0))


def _cpu_clock(pid):
    """The CPU-time clock of process `pid` (Linux), or None."""
    if sys.platform != "linux":
        return None
    clock = ctypes.c_int()
    if ctypes.CDLL(None).clock_getcpuclockid(pid, ctypes.byref(clock)) != 0:
        return None
    return clock.value


def _time_calls(case, student_target, reference_targets, student, reference, device, run):
    """The timings of a case timed call by call: each round, inputs drawn afresh from a secret seed,
    called once by the student's child and once by the reference's (and torch's fused attention),
    in an order drawn afresh; the student's answer checked against the reference's. The first
    round (WARM_UP, not kept) is the verification: the answer checked in full, the call under the
    exercise's time limit; every later call of the student's may take PATIENCE times the
    reference's. Rounds go on until the median ratio's interval lies inside one tier
    (`rounds.decided`), up to MAX_ROUNDS or MAX_TIMING of the children's time; undecided on a busy
    machine, _Busy."""
    secret = random.SystemRandom()
    callers = {"student": (student, student_target),
               **{name: (reference, target) for name, target in reference_targets.items()}}
    names = list(callers)
    taken = {name: [] for name in names}  # (the child's readings, the judge's), per round
    spent, patience = 0.0, None
    for index in range(-WARM_UP, MAX_ROUNDS):  # warm-up rounds first, the reference first, nothing kept
        args = make_args(case, generator(secret.getrandbits(62)), device)
        outputs = {}
        for name in (names[1:] + names[:1] if index < 0 else secret.sample(names, len(names))):  # warm: the student last
            timed, target = callers[name]
            value, readings, outside = timed.call(  # the first round's is the verification: the exercise's limit
                target, args, patience=patience if name == "student" and index > -WARM_UP else None, run=run)
            outputs[name] = value
            spent += outside[0]
            if index >= 0:
                taken[name].append((readings, outside))
            elif name == "reference":
                patience = SLACK + PATIENCE * outside[1]
        _check_timed(case, outputs["student"], outputs["reference"], first=index == -WARM_UP)
        if index >= 0 and _stop(taken, device, spent, MAX_TIMING[device], case.label):
            break
    return _clocks(taken)


def _stop(taken, device, spent, budget, label):
    """Whether the rounds `taken` so far are enough: the tier decided at CONFIDENCE, or the rounds or the
    `budget` (seconds the children spent; on a busy machine BUSY_ROUNDS and BUSY_BUDGET times the
    budget) used up and the tier decided at FALLBACK_CONFIDENCE;
    used up and undecided, the median's tier, unless the machine was busy and a tier that earns
    points is still possible: then _Busy."""
    rounds = len(taken["student"])
    if _settled(taken, device, CONFIDENCE):
        return True
    if rounds < DECIDING_ROUNDS or (rounds < MAX_ROUNDS and spent <= budget):
        return False
    if _settled(taken, device, FALLBACK_CONFIDENCE) or not _earns(taken, device):
        return True
    busy = _busy(*_estimate(taken, device))
    if busy and rounds < BUSY_ROUNDS and spent <= BUSY_BUDGET * budget:  # contention: answered with more rounds
        return False
    if busy:
        raise _Busy(label)
    return True


def _earns(taken, device):
    """Whether the fastest tier the rounds leave possible (the lower end of the median's interval,
    at FALLBACK_CONFIDENCE, for the least the student's code can have taken) earns points: only
    then can an undecided tier be worth a retry; between two tiers that earn none, the median's."""
    interval = median_interval(_estimate(taken, device, -UNREPORTED_ERRORS)[1], FALLBACK_CONFIDENCE)
    return interval is not None and POINTS_SHARE.get(tier_for(interval[0])[0], 0.0) > 0


def _estimate(taken, device, allowance=0):
    """(timing, the per-round ratios on the clock that judges it) of the rounds so far (`allowance`:
    see `_clocks`)."""
    timing = _clocks(taken, allowance)
    key, _ = _clock_for(timing, device)
    return timing, [s / r for s, r in zip(timing[key]["student"], timing[key]["reference"]) if r > 0]


def _settled(taken, device, confidence):
    """Whether the rounds decide the tier: the median ratio's interval inside one tier, both for the
    least and for the most the student's code can have taken (see `_clocks`)."""
    ends = [decided(_estimate(taken, device, allowance)[1], BOUNDS, confidence)
            for allowance in (-UNREPORTED_ERRORS, UNREPORTED_ERRORS)]
    if ends[0] is None or ends[0] != ends[1]:
        return False
    timing = _clocks(taken)
    total = _bursts(timing[_clock_for(timing, device)[0]])
    return total is None or sum(total > bound for bound in BOUNDS) == ends[0]  # bursts: on until the total agrees


def _bursts(times):
    """The ratio of the rounds' total times, student/reference, where it is BURSTS times their median
    ratio or more (work paid in bursts), else None."""
    total = sum(times["student"]) / max(sum(times["reference"]), 1e-12)
    return total if total > BURSTS * ratio_stats(times["student"], times["reference"])[0] else None


def _check_timed(case, got, reference, first=False):
    """The student's answer to a timed call against the reference's to the same inputs (float32
    both: within the float32 tolerance of each other, as both are of the float64 truth): in full
    at the `first` call of a case (its verification: a wrong answer there is a Mismatch), after that
    at SAMPLED values picked now, after the call returned, so that the student's code cannot know
    which. Only an answer that differs goes through `check_result`, which says how."""
    if _agrees(got, reference, None if first else _sampler()):
        return
    # held to the reference's dtype, not the answer's own (round 67's a07: bfloat16 answers to float32 inputs passed)
    like = next((item for item in (reference if isinstance(reference, tuple) else (reference,))
                 if isinstance(item, torch.Tensor) and item.is_floating_point()), None)
    try:  # the words for what differs (and NaN where the reference has NaN agrees after all)
        check_result(got, as64(reference), like=like, what=f"your output on {'the performance case ' * first}{case.label}")
    except Mismatch as mismatch:
        if first:
            raise
        raise _Answered(mismatch.message) from None


SAMPLED = 4096  # values of each timed answer checked, at random: one wrong in a thousand is caught 98 times in 100


def _sampler():
    """A generator seeded now from the system's randomness: which values of an answer are checked."""
    sampler = torch.Generator()
    sampler.manual_seed(random.SystemRandom().getrandbits(62))
    return sampler


def _agrees(got, reference, sampler=None):
    """Whether `got` is the reference's answer, a tensor or a tuple of them (None where the
    reference has none), within the float32 tolerance; non-finite values must match exactly. With
    `sampler`, the values compared are SAMPLED positions it picks (the shape, dtype and device, all)."""
    if isinstance(reference, tuple):
        return (isinstance(got, (tuple, list)) and len(got) == len(reference)
                and all(_agrees(item, want, sampler) for item, want in zip(got, reference)))
    if not isinstance(reference, torch.Tensor):
        return type(got) is type(reference) and got == reference
    if not (type(got) is torch.Tensor and got.shape == reference.shape and got.dtype == reference.dtype
            and got.device == reference.device):
        return False
    if sampler is not None and reference.numel() > SAMPLED:
        picked = torch.randint(reference.numel(), (SAMPLED,), generator=sampler).to(reference.device)
        got, reference = got.reshape(-1)[picked], reference.reshape(-1)[picked]
    if reference.dtype == torch.bool or not reference.is_floating_point():
        return torch.equal(got, reference)
    rtol, atol = TOLERANCES.get(reference.dtype, TOLERANCES[torch.float32])
    close = ((got - reference).abs() <= atol + rtol * reference.abs()) & torch.isfinite(reference)
    return bool((close | (got == reference)).all())  # a non-finite value only as the reference has it


def _clocks(taken, allowance=0):
    """{clock: {name: [seconds per round]}} from the rounds' readings (and "outside_wall", the
    judge's wall time per request, and "busy", the longer of CPU and wall time): the child's own, except that the student's CPU and wall times
    get what the judge measured around its requests beyond what the reference's requests cost
    beyond their calls (`_unreported`). `allowance` (± UNREPORTED_ERRORS, or 0): that much noise of the estimate
    taken off or added, for the lower and upper ends of what the student's code can have taken."""
    extra = {clock: _unreported(taken, index, outside, allowance)
             for clock, index, outside in (("cpu", 1, 0), ("wall", 2, 1))}
    timing = {clock: {name: [] for name in taken} for clock in TIMINGS}
    for name, rounds in taken.items():
        cpu, wall = (extra["cpu"], extra["wall"]) if name == "student" else (0.0, 0.0)
        for (thread, process, own_wall, waits), outside in rounds:
            busy = max(process + cpu, own_wall + wall) if name == "student" else process  # see _clock_for
            for clock, value in zip(timing, (thread + cpu, process + cpu, own_wall + wall, waits, *outside, busy)):
                timing[clock][name].append(value)
    return timing


def _unreported(taken, index, outside, allowance):
    """Seconds per call the student's process spent, as the judge measured it from outside
    (reading `outside` of its readings), beyond what it reported (reading `index`), less what the
    reference's child spent beyond its own report in the same round (the same bytes both ways): 0
    for honest code, give or take the noise; otherwise what a submission does where its clocks do
    not look, or leaves out of them. The median of the rounds' differences, with `allowance` times
    its standard error added (the two ends of what the student's code can have taken, which must
    agree on the tier: near a boundary, more rounds); never below 0."""
    differences = [(student[outside] - own[index]) - (reference[outside] - theirs[index])
                   for (own, student), (theirs, reference) in zip(taken["student"], taken["reference"])]
    middle = median(differences)
    error = 1.86 * median([abs(value - middle) for value in differences]) / math.sqrt(len(differences))  # 1.25 · 1.4826 MAD/√n
    return max(0.0, middle + allowance * error)


def _busy(timing, ratios):
    """Whether the machine was too busy for undecided rounds to be trusted: the reference's child
    got less than BUSY_SHARE of a CPU while it answered, or the rounds' ratios spread widely."""
    share = median([cpu / max(wall, 1e-9) for cpu, wall in zip(timing["outside"]["reference"],
                                                                 timing["outside_wall"]["reference"])])
    return share < BUSY_SHARE or ratio_stats(ratios, [1.0] * len(ratios))[1] > BUSY_SPREAD


def _time_decode(case, state, student, reference, device, run):
    """The timings of a Decode case, decode step by decode step, each a call as the suites make
    one: the caches filled to each length (untimed), then at each length rounds of one step each
    (the same fresh token, from a secret seed, for every side; it stays in the caches, as in
    generation) until decided as `_time_calls` decides; every step's answer checked against the
    reference's. The student's cache's storage is looked at after every step (untimed): replaced
    buffers are a cache reallocated as it grows."""
    d_model, n_heads, n_kv_heads = case.init
    secret = random.SystemRandom()
    sides = {"student": (student, ""), "reference": (reference.timed, ""),
             **({"fused": (reference.timed, "fused.")} if case.fused else {})}
    built = {name: (timed.build(case, state, prefix),
                    timed.call(prefix + "KVCache", (case.batch, n_kv_heads, d_model // n_heads, case.max_len))[0])
             for name, (timed, prefix) in sides.items()}
    if not isinstance(built["student"][1], wire.Handle):
        raise Mismatch(f"KVCache(...) returned {describe(built['student'][1])}, not an object")
    held = _storages(student, built["student"][1])
    memory = {"reallocations": 0, "steps": 0, "start_bytes": sum(held.values())}
    names, per_length, tokens = list(sides), [], 0
    for length in case.lengths:
        grown = Randn((case.batch, length - tokens, d_model)).make(generator(secret.getrandbits(62)), device)
        _step_all(case, sides, built, names, (grown,), run)
        held = _storages(student, built["student"][1])  # a step replaces a buffer of these, or not
        tokens, taken, spent = length, {name: [] for name in names}, 0.0
        patience = None  # a step's own limit, once the reference's time for one is known
        for index in range(MAX_ROUNDS):
            token = Randn((case.batch, 1, d_model)).make(generator(secret.getrandbits(62)), device)
            steps = _step_all(case, sides, built, secret.sample(names, len(names)), (token,), run, patience)
            for name, readings in steps:
                taken[name].append(readings)
                spent += readings[1][0]
            patience = SLACK + PATIENCE * taken["reference"][-1][1][1]
            tokens += 1
            now = _storages(student, built["student"][1])
            _storages(reference.timed, built["reference"][1])  # the same look, for what it costs an honest cache
            student.charge(max(0.0, student.asked - reference.timed.asked))  # beyond that, its process's own work
            memory["reallocations"] += bool(set(held) - set(now))
            memory["steps"] += 1
            held = now
            if _stop_decode(case, length, taken, device, spent):
                break
        per_length.append(_clocks(taken))
    timings = {clock: {name: [clocks[clock][name] for clocks in per_length] for name in names} for clock in per_length[0]}
    memory.update(end_bytes=sum(held.values()), tokens=tokens)
    return {**timings, "lengths": list(case.lengths), "memory": memory}


def _stop_decode(case, length, taken, device, spent):
    """`_stop` for a decode case's steps at one cached length. Only the longest decides the tier:
    at a shorter one, rounds undecided on a busy machine stop at their median (it only shapes
    the growth verdict) rather than leave the whole case 'too busy'."""
    try:
        return _stop(taken, device, spent, MAX_TIMING[device] * length / sum(case.lengths),
                     f"{case.label} (at {length} tokens)")
    except _Busy:
        if length == case.lengths[-1]:
            raise
        return True


def _step_all(case, sides, built, names, tokens, run, patience=None):
    """[(name, (readings, outside))] of one call of each side's module on `tokens` and its cache,
    in the order of `names` (the student's within `patience` seconds, when given); the student's
    answer checked against the reference's."""
    outputs, taken = {}, []
    for name in names:
        timed, _ = sides[name]
        module, cache = built[name]
        value, readings, outside = timed.call(module, (*tokens, cache), run=run,
                                              patience=patience if name == "student" else None)
        outputs[name] = value
        taken.append((name, (readings, outside)))
    _check_timed(case, outputs["student"], outputs["reference"])
    return taken


def _storages(timed, cache):
    """{data pointer: bytes} of the tensors a cache holds (asked of its child, untimed)."""
    held = timed.ask({"op": "bench", "action": "storages", "ref": cache.ref})
    if not (isinstance(held, dict) and all(_count(size) for size in held.values())):
        raise _Malformed("its KV cache's storage")
    return held


def _time(case, request, student, reference):
    """The measurements of an Allocations case (exercise 10's memory verdict), in each child."""
    measured = {name: timed.ask({**request, "action": "allocations"})
                for name, timed in (("student", student), ("reference", reference))}
    found = measured["student"]
    if not (isinstance(found, dict) and isinstance(found.get("bytes"), list) and len(found["bytes"]) == len(case.lengths)
            and all(map(_count, found["bytes"])) and isinstance(found.get("shapes"), list)
            and len(found["shapes"]) == len(case.lengths)
            and all(isinstance(shape, list) and len(shape) <= 16 and all(map(_count, shape)) for shape in found["shapes"])
            and (found.get("disabled") is None or isinstance(found["disabled"], str))):
        raise _Malformed("the sizes of what its code allocates")
    found["disabled"] = found["disabled"] and found["disabled"][:300]
    return {"allocations": measured}


def _count(value):
    """Whether a value the student's process sent is a count of bytes."""
    return type(value) is int and 0 <= value < 1 << 62


def too_slow(device, seconds):
    """The slowest tier, for code one of whose timed calls ran past its limit: more than PATIENCE
    times the reference's time for it (`ratio`, a lower bound)."""
    tier_id, name, _, hint = TIERS[-1]
    return {"id": tier_id, "name": name, "ratio": float(PATIENCE), "device": device, "lower_bound": True,
            "message": f"{name} — one call on the performance case ran past {seconds:.3g} s, over {PATIENCE}× "
                       f"what the reference takes for it ({device}) — {hint}", "notes": []}


def untimed(device, message):
    return {"id": "not-timed", "name": "not timed", "ratio": None, "device": device, "message": message}


def reference_of(exercise):
    """The exercise's reference (the lumen_ref objects its declaration names), as a namespace."""
    return types.SimpleNamespace(**{name: exercise.reference_object(name) for name in exercise.names})


def expected(case, ref, seed, state=None):
    """The reference's output on a case's verification inputs, in float64 (`ref`: see `reference_of`;
    `state`: the module's weights, drawn from the seed unless given)."""
    state = state if state is not None or not case.init else weights(case, ref, seed)
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
            **({"bursts": True} if worst.get("bursts") else {}),
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
    measure = (f"total of {tier['rounds']} rounds: most of your calls were fast and a few took the rest's time"
               if tier.get("bursts") else f"median of {tier['rounds']} rounds, ±{100 * tier['spread']:.1f}%")
    return (f"{tier['name']} — {tier['ratio']:.2f}× its time on {tier['case']}{production} ({tier['device']}, "
            f"{measure}{clock}){advice}")


def summarize(case, timing, device, ref):
    """One case's median ratios, and how they were measured."""
    if isinstance(case, Allocations):
        return {"label": case.label, "memory": largest_tensor(case, timing["allocations"])}
    if isinstance(case, Decode):
        last = {clock: {name: per_length[-1] for name, per_length in timing[clock].items()}
                for clock in TIMINGS}
        summary = _ratios(case, last, device)
        summary.update(_decode(case, timing, ref))
        return summary
    return _ratios(case, timing, device)


def _ratios(case, timing, device):
    key, clock = _clock_for(timing, device)
    times = timing[key]
    ratio, spread = ratio_stats(times["student"], times["reference"])
    total = _bursts(times)  # most calls fast, a few doing the rest's work: the median would miss it
    if total is not None and tier_for(total)[0] == tier_for(ratio)[0]:
        total = None  # the same tier either way (a busy machine's odd slow round): the median, no word of bursts
    summary = {"label": case.label, "ratio": round(ratio if total is None else total, 3), "spread": round(spread, 4),
               "rounds": len(times["student"]), "clock": clock, "bursts": total is not None,
               "reference_ms": _ms(median(times["reference"])), "student_ms": _ms(median(times["student"]))}
    if "fused" in times:
        summary["fused_ratio"] = round(ratio_stats(times["student"], times["fused"])[0], 3)
    return summary


def _clock_for(timing, device):
    """(key, name) of the clock that judges a case: CUDA events on CUDA; on the CPU the CPU time of
    the student's whole process, every thread's (named "process-cpu" where its code hands work to
    other threads, which the reference does not), and where its code waits for something, a sleep
    or a thread, the wall clock or that CPU time, whichever is longer ("busy": waiting for work
    done elsewhere is no cheaper than doing it), against the reference's CPU time (its wall time
    would hold whatever else ran on its CPU, a thread of the student's among them)."""
    if device == "cuda":
        return "wall", "wall-cuda"  # the device synchronised around each call (`grader.sandbox.clock.read`)
    thread, process, waits = timing["time"], timing["process"], timing["waits"]

    def elsewhere(name):  # CPU time spent by other threads, relative to this thread's
        return median([(p - t) / max(t, 1e-9) for p, t in zip(process[name], thread[name])])

    if median(waits["student"]) - median(waits["reference"]) > WAITS:
        return "busy", "wall"
    return "process", "process-cpu" if elsewhere("student") - elsewhere("reference") > OFFLOADS else "cpu"


def _ms(seconds):
    return round(1e3 * seconds, 4)


def _decode(case, timing, ref):
    """The growth verdict and memory report of a Decode case, from its median step times."""
    steps = {name: [median(at_length) for at_length in per_length]
             for name, per_length in timing["time"].items()}
    memory = memory_report(case, timing["memory"], ref)
    return {"lengths": timing["lengths"],
            "reference_step_ms": [_ms(t) for t in steps["reference"]],
            "student_step_ms": [_ms(t) for t in steps["student"]],
            "complexity": complexity(timing["lengths"], steps["student"], steps["reference"],
                                     copies=memory["verdict"] == "reallocates"),
            "memory": memory}


def complexity(lengths, student, reference, copies=False):
    """How a decode step's time grows with the tokens cached, from the median step times at each
    length: the growth exponent of the student's extra time over the reference's (over the three
    longest lengths, where that extra time is substantial at both ends: a small one is mostly
    noise, and a cache that outgrows the CPU's caches on the way would read as steep), and the
    student's cost per cached token (slope of a line through all lengths) over the reference's,
    a verdict only where the student's step at the longest cache is substantially slower (the
    reference's slope can be small enough for noise to make any ratio of it).
    `copies`: the cache is reallocated at every step, which explains a high cost per token."""
    excess = [s - r for s, r in zip(student, reference)]
    exponent = None
    if excess[-1] > SUBSTANTIAL * reference[-1] and excess[-3] > SUBSTANTIAL * reference[-3]:
        exponent = math.log(excess[-1] / excess[-3]) / math.log(lengths[-1] / lengths[-3])
    per_token = _slope(lengths, student) / max(_slope(lengths, reference), 1e-12)
    slower = excess[-1] > SUBSTANTIAL * reference[-1]  # a cost per token is a verdict only for a step that is
    result = {"excess_exponent": None if exponent is None else round(exponent, 3),  # slower than the reference's
              "per_token_ratio": round(per_token, 2)}
    if exponent is not None and exponent >= SUPER_LINEAR:
        result.update(verdict="super-linear", message=(
            f"KV cache: super-linear — what a decode step takes beyond the reference's time grows like "
            f"T^{exponent:.1f} with the T tokens cached: each step re-runs the whole sequence; project "
            "only the new tokens and attend to the cache"))
    elif per_token >= RECOMPUTES and slower and copies:
        result.update(verdict="recomputes", message=(
            f"KV cache: linear, but each cached token costs {per_token:.0f}× what it costs the reference "
            "per step: the whole cache is copied at every step (see the memory line)"))
    elif per_token >= RECOMPUTES and slower:
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
    held = f"{mib(memory['end_bytes'])} for {memory['tokens']} tokens"
    formula = f"kv_cache_bytes for max_len={case.max_len} float32 tokens is {mib(expected_bytes)}"
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
    L, beside the reference's (one block of scores) and the (L, L) matrix it must never hold; or
    "disabled" where the student's code switched the probe off (`grader.perf.probe`)."""
    student, reference = measured["student"], measured["reference"]
    lengths, sizes = list(case.lengths), student["bytes"]
    exponent = math.log(max(sizes[-1], 1) / max(sizes[0], 1)) / math.log(lengths[-1] / lengths[0])
    B, H, _ = case.shape
    full = [B * H * length * length * 4 for length in lengths]  # the float32 (L, L) scores of every head
    report = {"lengths": lengths, "bytes": sizes, "shapes": student["shapes"], "reference_bytes": reference["bytes"],
              "full_matrix_bytes": full, "exponent": round(exponent, 3), "block_size": case.block}
    at = (f"{mib(sizes[-1])} at L = {lengths[-1]} ({mib(sizes[0])} at L = {lengths[0]}); the reference's largest "
          f"is {mib(reference['bytes'][-1])}, the whole (L, L) matrix of scores {mib(full[-1])}")
    if student.get("disabled"):  # switched off by the student's code: no size can be trusted
        report["verdict"] = "disabled"
        report["message"] = f"memory: not measured — {student['disabled']}"
    elif exponent >= QUADRATIC:
        report["verdict"] = "quadratic"
        report["message"] = (f"memory: quadratic — the largest tensor your {case.target} allocates grows like "
                             f"L^{exponent:.1f}: {at}. Read K and V a block at a time and keep only a block of "
                             "scores, (L, block_size)")
    else:
        report["verdict"] = "tiled"
        report["message"] = (f"memory: tiled — the largest tensor your {case.target} allocates grows like "
                             f"L^{exponent:.1f}, with L·block_size, not L²: {at}")
    return report
