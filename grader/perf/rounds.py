"""How many rounds a case is timed, and what their ratios say: the statistics both sides use.

The child (`grader.perf.child`) and the judge (`grader.perf.judge`) keep their timings in `Rounds`,
which decides when a case has been timed enough; the judge turns them into tiers.
"""

import math
import time

_process_time = time.process_time
_perf_counter = time.perf_counter

TARGET_ROUNDS = 20  # rounds of a case when its median ratio is clearly inside a tier
MAX_ROUNDS = 40  # rounds of a case whose ratio is near a tier boundary, while the budget lasts
MIN_ROUNDS = 3  # rounds of a case even past its budget (a very slow submission)
CONFIDENCE = 3.6  # (half the interquartile range)/√rounds times this: a 95% interval of the median
MIN_TIMING = {"cpu": 2e-3, "cuda": 5e-4}  # seconds one timing should last: calls are repeated
CLOCKS = ("time", "process", "wall", "waits", "outside")  # "outside": measured by the judge (perf)


def calls_per_timing(warm, budget, device):
    """How many calls one timing repeats, from each function's warm-up time (seconds): enough for
    the fastest one's timing to last MIN_TIMING, few enough for MIN_ROUNDS rounds in the budget."""
    return max(1, min(math.ceil(MIN_TIMING[device] / max(min(warm.values()), 1e-7)),
                      int(budget / MIN_ROUNDS / max(sum(warm.values()), 1e-7)), 100))


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def ratio_stats(student, reference):
    """(median, spread) of the per-round ratios student/reference; the spread is half the
    interquartile range relative to the median (0.015: ±1.5%)."""
    ratios = sorted(s / r for s, r in zip(student, reference) if r > 0)
    if not ratios:
        return math.inf, math.inf
    middle, half = median(ratios), len(ratios) // 2
    if not half or middle <= 0:  # one round, or a time of 0 (a child that said 0 and was not seen to work)
        return middle, 0.0
    quartiles = median(ratios[:half]), median(ratios[-half:])  # the medians of each half
    return middle, (quartiles[1] - quartiles[0]) / 2 / middle


def settled(student, reference, bounds):
    """Is the median ratio clear of every tier boundary, beyond its 95% interval?"""
    ratio, spread = ratio_stats(student, reference)
    margin = CONFIDENCE * spread / math.sqrt(len(student))
    return all(abs(ratio / bound - 1) > margin for bound in bounds)


def median_interval(ratios, confidence=0.95):
    """A distribution-free interval for the median of `ratios` (order statistics: whatever the
    noise's shape, a disturbed round moves it by one rank at most), or None for too few rounds."""
    ordered, n = sorted(ratios), len(ratios)
    k = 0  # the interval is ordered[k - 1], ordered[n - k]: narrowed while its coverage stays above `confidence`
    while 1 - 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n >= confidence:
        k += 1
    return (ordered[k - 1], ordered[n - k]) if k else None


def decided(ratios, bounds, confidence=0.95):
    """The index of the tier (among `bounds`' intervals) that the median's interval (at
    `confidence`) lies inside, or None while it straddles a boundary (or is not known yet)."""
    interval = median_interval(ratios, confidence)
    if interval is None:
        return None
    low, high = (sum(value > bound for bound in bounds) for value in interval)
    return low if low == high else None


class Rounds:
    """The timings of one case, per clock and implementation, and when to stop taking them:
    after TARGET_ROUNDS once the median ratio is clearly inside a tier (`bounds` are the tier
    boundaries), at MAX_ROUNDS, or once `budget` seconds are spent (CPU time of this process on
    the CPU, so that a busy machine does not cut the rounds short; wall time on CUDA), but never
    before MIN_ROUNDS."""

    def __init__(self, names, budget, bounds, device, now=None):
        self.clocks = {clock: {name: [] for name in names} for clock in CLOCKS}
        self.now = now or (_process_time if device == "cpu" else _perf_counter)  # a GPU's time is not CPU time
        self.budget, self.bounds, self.started = budget, bounds, self.now()

    def add(self, name, readings, calls=1):
        for clock, reading in zip(CLOCKS, readings):
            self.clocks[clock][name].append(reading / calls)

    def done(self, student, reference):
        rounds = len(student)
        if rounds >= MAX_ROUNDS or (rounds >= MIN_ROUNDS and self.now() - self.started > self.budget):
            return True
        return rounds >= TARGET_ROUNDS and settled(student, reference, self.bounds)

