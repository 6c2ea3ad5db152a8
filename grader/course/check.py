"""`lumen-grade check`: is the kit sound? One table for the instructor, exit code 0 only if it is.

Each row is one claim, checked on every available device:
  * the reference (`lumen_ref`) agrees with the independent float64 oracle (`grader.oracle`) and
    with torch's own built-ins, on the checks each exercise's declaration lists;
  * `solutions/` scores full marks, and the untouched stubs that `release` makes from it score
    zero, both graded by the very runner students use;
  * every misconception mutant (`grader.diagnosis.misconceptions`, gathered from the exercises'
    packages) fails its exercise, and for every two misconceptions of an exercise some call of its
    tests tells them apart (sizes at which their mutants give different numbers), so that a
    diagnosis can name one;
  * every graded function is called, in some test on the solutions, with sizes that separate the
    common slips (`SEPARATING`): d_k not a perfect square, L_q ≠ L_k, H ≠ H_kv, no head count of 1,
    B ≠ H, D ≠ d_k, each where the function has those sizes (its declaration's `shapes`), so that
    `math.isqrt`, a wrong axis or a wrong count changes the numbers of the function's own test;
  * every rule an exercise declares (`rules`: the state, allocation, fully masked rows, dtypes,
    devices and boundaries its stub documents) is written in the stub's docstrings and graded by
    tests that exist and run, and the solution edited to break it fails one of them.

The misconception seam: `misconceptions.mutant_sources(solutions_dir)` gives `(misconception_id,
exercise, source)`, `source` the text of a whole student file making that mistake. A row with
nothing to check for the exercises asked for says "not available", which is neither a pass nor a
failure.
"""

import ast
import math
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from grader import catalog
from grader.course import release
from grader.diagnosis import matcher, misconceptions
from grader.grading import runner
from grader.grading.settings import DEFAULTS, Settings
from grader.sandbox.judge import Launcher

PASS, FAIL, NOT_AVAILABLE = "pass", "FAIL", "not available"
TOLERANCE = {"rtol": 1e-9, "atol": 1e-12}  # float64 against float64: only rounding may differ


@dataclass
class Row:
    check: str
    device: str
    status: str  # PASS, FAIL or NOT_AVAILABLE
    detail: str = ""
    failures: list = field(default_factory=list)  # one line per thing that does not hold


def _row(check, device, problems, detail):
    return Row(check, device, FAIL if problems else PASS, detail, problems)


def _unavailable(check, exercises, why):
    """The row "not available" of a check that could not run for `exercises` (ids), saying `why`:
    an exercise it did not run for is never counted as a pass."""
    return Row(check, "-", NOT_AVAILABLE, f"{', '.join(exercises)}: {why}")


def run(solutions_dir, exercises=None, *, seed=DEFAULTS.seed, time_limit=DEFAULTS.time_limit, launcher=None,
        progress=None):
    """Check the kit on every available device; returns the rows of the summary table. `progress(step)`,
    when given, is told each step as it starts (the whole kit takes half a minute or more)."""
    say = progress or (lambda step: None)
    own_launcher = launcher is None
    if own_launcher:
        launcher = Launcher()
        launcher.start()  # before any expected value exists in this process
    try:
        devices = runner.resolve_devices("auto")
        exercises = list(exercises or catalog.EXERCISES)
        options = Settings(submission=Path(solutions_dir), device="auto", seed=seed,
                                 time_limit=time_limit, perf=False)
        say("the solutions")
        solved = runner.grade(exercises, options, launcher=launcher)
        say("the reference against the oracle and torch's built-ins")
        reference = reference_rows(devices, exercises)
        say("the untouched stubs")
        stubs = _stubs_row(exercises, options, launcher)
        say("the misconception mutants")
        mutants = _mutants_rows(exercises, options, launcher, lambda done, total: say(
            f"the misconception mutants: {done} of {total} graded"))
        say("the rules the stubs write")
        rules = _rules_rows(exercises, options, solved, launcher, lambda done, total: say(
            f"the rules the stubs write: {done} of {total} broken solutions graded"))
    finally:
        if own_launcher:
            launcher.close()
    return [*reference, _solutions_row(exercises, options, solved), stubs, *mutants, *_separation_rows(solved),
            *_sizes_rows(exercises, solved), *rules]


def passed(rows):
    """The verdict: nothing failed (a row "not available" is no failure, and no pass either)."""
    return any(row.status == PASS for row in rows) and not any(row.status == FAIL for row in rows)


# -- the reference ------------------------------------------------------------------------------


def reference_rows(devices, exercises=None):
    """The reference against the oracle and against torch's built-ins, on each device: the checks
    the exercises' declarations list (`oracle_checks`, `builtin_checks`), of every exercise unless
    told which. An exercise that declares none gets a row "not available" for that check."""
    exercises = list(exercises or catalog.EXERCISES)
    return [*_reference_rows(devices, exercises, "oracle_checks", "reference = float64 oracle"),
            *_reference_rows(devices, exercises, "builtin_checks", "reference = torch built-ins")]


def _reference_rows(devices, exercises, kind, check):
    """Every exercise's `kind` of checks, each on its own seeded inputs, on every device: a row for
    the exercises with some, and one "not available" for those with none."""
    import torch

    problems, counts = [], Counter()
    for device in devices:
        for exercise in exercises:
            checks = getattr(exercise, kind)
            with torch.no_grad():
                for what, got, want in checks(_Inputs(device, seed=6)) if checks is not None else ():
                    counts[exercise.id] += 1
                    difference = _difference(got, want)
                    if difference:
                        problems.append(f"{exercise.id} {what} on {device}: {difference}")
    detail = f"{counts.total() // len(devices)} comparisons"
    rows = [_row(check, "+".join(devices), problems, detail)] if counts else []
    uncovered = [exercise.id for exercise in exercises if not counts[exercise.id]]
    if uncovered:
        rows.append(_unavailable(check, uncovered, f"no {kind} declared"))
    return rows


def _difference(got, want):
    """'' when lumen_ref's answer `got` matches the independent `want` in float64, else how not."""
    import numpy as np
    import torch

    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return f"{len(want)} outputs expected"
        return next((difference for difference in map(_difference, got, want) if difference), "")
    got, want = (np.asarray(a.detach().cpu() if isinstance(a, torch.Tensor) else a) for a in (got, want))
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.dtype == bool or want.dtype == bool:
        return "" if np.array_equal(got, want) else f"{int((got != want).sum())} entries differ"
    if np.allclose(got, want, **TOLERANCE):
        return ""
    return f"off by up to {np.nanmax(np.abs(got - want)):.3g} (or NaN where a number is expected)"


class _Inputs:
    """Seeded float64 inputs on a device, drawn on the CPU so every device sees the same numbers."""

    def __init__(self, device, seed):
        import torch

        self.torch, self.device = torch, device  # `device`: what an exercise's checks run on
        self.generator = torch.Generator().manual_seed(seed)

    def randn(self, *shape, scale=1.0):
        t = self.torch
        return (t.randn(*shape, generator=self.generator, dtype=t.float64) * scale).to(self.device)

    def bools(self, *shape, p=0.6):
        return (self.torch.rand(*shape, generator=self.generator) < p).to(self.device)

    def module(self, cls, *args):
        """A lumen_ref module with seeded weights, in float64 on the device."""
        with self.torch.random.fork_rng(devices=[]):
            self.torch.manual_seed(int(self.torch.randint(1 << 30, (1,), generator=self.generator)))
            return cls(*args).to(self.device, self.torch.float64)


# -- grading through the students' runner -------------------------------------------------------


def _first_problem(result):
    if result.error:  # the file could not be graded at all: its tests did not run
        return result.error
    test = next((t for t in result.tests if t.status not in ("passed", "skipped")), None)
    return f"{test.name}: {test.message}" if test else ""


def _solutions_row(exercises, options, verdict):
    problems = []
    for result in verdict.exercises:
        if result.max_score == 0:
            problems.append(f"{result.id}: no test ran (does its package under grader/catalog have a test_exerciseN.py suite?)")
        elif not result.passed or result.score != result.max_score:
            problems.append(f"{result.id}: {result.score:g}/{result.max_score:g}; {_first_problem(result)}")
    passing = sum(result.passed for result in verdict.exercises)
    detail = f"{passing} of {len(exercises)} exercises, {verdict.score:g} points"
    return _row(f"{options.submission.name}/ scores full marks", verdict.device, problems, detail)


def _stubs_row(exercises, options, launcher):
    check = "untouched stubs score zero"
    try:
        stubs = release.build_stubs(options.submission, exercises)
    except release.ReleaseError as error:
        return Row(check, "-", FAIL, "the stubs cannot be made", [str(error)])
    with tempfile.TemporaryDirectory(prefix="lumen-stubs-") as folder:
        for exercise, stub in stubs.items():
            (Path(folder) / exercise.file_name).write_text(stub, encoding="utf-8")
        verdict = runner.grade(exercises, _with(options, submission=Path(folder)), launcher=launcher)
    problems = []
    for result in verdict.exercises:
        if result.max_score == 0:
            problems.append(f"{result.id}: no test ran, so nothing shows the stub fails")
        elif result.score:
            passing = [t.name for t in result.tests if t.status == "passed"]
            problems.append(f"{result.id}: {result.score:g}/{result.max_score:g} untouched; passed "
                            + ", ".join(passing[:3]) + (" ..." if len(passing) > 3 else ""))
    return _row(check, verdict.device, problems,
                f"{len(exercises)} exercises, stubs made as release makes them")


def _with(options, **changes):
    return Settings(**{**vars(options), **changes})


def _mutants_rows(exercises, options, launcher, progress=None):
    """Every mutant of grader.diagnosis.misconceptions fails its exercise: the seam described at the
    top. An exercise without mutants gets a row "not available"."""
    check = "misconception mutants are caught"
    selected = {exercise.id for exercise in exercises}
    mutants = []
    for mutant_id, exercise, source in misconceptions.mutant_sources(options.submission):
        if exercise.id in selected:
            mutants.append((mutant_id, exercise, source))
    uncovered = [exercise.id for exercise in exercises if all(mutant[1] != exercise for mutant in mutants)]
    rows = [_unavailable(check, uncovered, "no mutants")] if uncovered else []
    twice = [f"{misconception_id}: declared by {' and '.join(owners)} (a copied exercise folder keeps its "
             "original's misconceptions.py: write MISCONCEPTIONS = () in the copy)"
             for misconception_id, owners in misconceptions.declared_twice().items() if selected & set(owners)]
    if twice:
        rows.insert(0, Row("misconceptions declared once", "-", FAIL, f"{len(twice)} declared twice", twice))
    if not mutants:
        return rows
    problems = []
    graded, device = _graded_sources(mutants, options, launcher, progress)
    for (mutant_id, exercise, _), result in graded:
        if result.passed:
            problems.append(f"{mutant_id} ({exercise.id}): passed every test, {result.score:g}/{result.max_score:g}")
    ids = {mutant_id for mutant_id, _, _ in mutants}
    return [_row(check, device, problems, f"{len(mutants) - len(problems)} of {len(mutants)} mutants "
                                          f"({len(ids)} misconceptions) fail their exercise"), *rows]


def _separation_rows(verdict):
    """For every pair of misconceptions of an exercise, some call of its suites tells them apart: the
    calls the suites make on the solutions, replayed on every mutant of the two. An exercise with
    fewer than two misconceptions has no pair: its row is "not available"."""
    check = "misconceptions are told apart"

    problems, pairs, uncovered = [], 0, []
    for result in verdict.exercises:
        number = catalog.find(result.id).number
        for a, b in matcher.unseparated(number, result.calls):
            problems.append(f"{result.id}: no call of its tests tells {a} from {b}")
        ids = [m.id for m in misconceptions.for_exercise(number)]
        pairs += len(ids) * (len(ids) - 1) // 2
        if len(ids) < 2:
            uncovered.append(result.id)
    rows = [_row(check, verdict.device, problems, f"{pairs - len(problems)} of {pairs} pairs")] if pairs else []
    return rows + ([_unavailable(check, uncovered, "fewer than two misconceptions")] if uncovered else [])


@dataclass(frozen=True)
class Separating:
    """One condition on a call's sizes that makes a common slip change its numbers."""

    sizes: tuple  # the sizes it is about: it applies to a function that has them all
    holds: object  # {size: value} -> bool
    broken: str  # what the sizes are when it does not hold, formatted with them


SEPARATING = (
    Separating(("d_k",), lambda s: math.isqrt(s["d_k"]) ** 2 != s["d_k"],
               "d_k = {d_k} is a perfect square (math.isqrt(d_k) = √d_k)"),
    Separating(("L_q", "L_k"), lambda s: s["L_q"] != s["L_k"], "L_q = L_k = {L_q}"),
    Separating(("H", "H_kv"), lambda s: s["H"] != s["H_kv"], "H = H_kv = {H}"),
    Separating(("H",), lambda s: s["H"] != 1, "H = 1"),
    Separating(("H_kv",), lambda s: s["H_kv"] != 1, "H_kv = 1"),
    Separating(("B", "H"), lambda s: s["B"] != s["H"], "B = H = {B}"),
    Separating(("B", "H_kv"), lambda s: s["B"] != s["H_kv"], "B = H_kv = {B}"),
    Separating(("D", "d_k"), lambda s: s["D"] != s["d_k"], "D = d_k = {D}"),
)


def _sizes_rows(exercises, verdict):
    """Every graded function has a call, among those its suite checked and passed on the solutions
    (`verdict`'s recorded calls), that meets every condition of SEPARATING about its sizes. An
    exercise that declares no `shapes` gets a row "not available"."""
    check = "graded calls have separating sizes"
    problems, functions, uncovered = [], 0, []
    for exercise, result in zip(exercises, verdict.exercises):
        if exercise.shapes is None:
            uncovered.append(result.id)
            continue
        for name in exercise.names:
            shapes = exercise.shapes.get(name)
            if shapes is None:
                problems.append(f"{result.id} {name}: no shapes declared")
                continue
            conditions = [c for c in SEPARATING if set(c.sizes) <= shapes.names()]
            if not conditions:
                continue
            functions += 1
            calls = [shapes.of(call) for call in result.calls if call["target"] == name]
            problem = _unseparated(calls, conditions)
            if problem:
                problems.append(f"{result.id} {name}: {problem}")
    rows = [_row(check, verdict.device, problems, f"{functions - len(problems)} of {functions} functions with "
                                                  "sizes to separate")] if functions or problems else []
    return rows + ([_unavailable(check, uncovered, "no shapes declared")] if uncovered else [])


def _unseparated(calls, conditions):
    """'' if one of `calls` ({size: value} each) meets every condition, else what the nearest breaks."""
    if not calls:
        return "no call of it passed its checks on the solutions"
    broken = [[c.broken.format(**sizes) if set(c.sizes) <= set(sizes) else f"no {' or '.join(c.sizes)} read"
               for c in conditions if not (set(c.sizes) <= set(sizes) and c.holds(sizes))] for sizes in calls]
    nearest = min(range(len(calls)), key=lambda i: len(broken[i]))
    if not broken[nearest]:
        return ""
    sizes = ", ".join(f"{k} = {v}" for k, v in sorted(calls[nearest].items()))
    return f"no graded call has separating sizes; the nearest ({sizes}): {'; '.join(broken[nearest])}"


def _rules_rows(exercises, options, verdict, launcher, progress=None):
    """Every graded rule is written and every written rule is graded: each declared rule's phrase
    is in the docstrings of the stub `release` makes, its tests are in the suite that graded the
    solutions (`verdict`), every test of that suite grades some rule, and the solution edited as a
    rule's `breaks` says fails one of its tests. A rule whose tests were all skipped here (a GPU's)
    is counted as such, never as graded. An exercise that declares no rules: "not available"."""
    check = "stub rules are written and graded"
    declared = [exercise for exercise in exercises if exercise.rules is not None]
    uncovered = [exercise.id for exercise in exercises if exercise.rules is None]
    rows = [_unavailable(check, uncovered, "no rules declared")] if uncovered else []
    if not declared:
        return rows
    try:
        stubs = release.build_stubs(options.submission, declared)
    except release.ReleaseError as error:
        return [Row(check, "-", FAIL, "the stubs cannot be made", [str(error)]), *rows]
    results = dict(zip(exercises, verdict.exercises))
    problems, broken, not_run = [], [], 0
    for exercise in declared:
        written = _docstrings(stubs[exercise])
        tests = results[exercise].tests
        collected = {test.name.split("[")[0] for test in tests}
        ran = {test.name.split("[")[0] for test in tests if test.ran}
        solution = (Path(options.submission) / exercise.file_name).read_text(encoding="utf-8")
        for rule in exercise.rules:
            where = f"{exercise.id} {rule.phrase!r}"
            if _words(rule.phrase) not in written:
                problems.append(f"{where}: not in the docstrings of {exercise.file_name}'s stub")
            missing = [test for test in rule.tests if test not in collected]
            if missing or not rule.tests:
                problems.append(f"{where}: graded by {', '.join(missing) or 'no test'}, not in its suite")
            elif not ran & set(rule.tests):
                not_run += 1
            if rule.breaks is not None:
                old, new = rule.breaks
                if old not in solution:
                    problems.append(f"{where}: its breaking edit does not apply to the solution")
                else:
                    broken.append((rule, exercise, solution.replace(old, new)))
        named = {test for rule in exercise.rules for test in rule.tests}
        problems += [f"{exercise.id} {test}: grades a rule no phrase of the stub is declared for"
                     for test in sorted(collected - named)]
    graded, device = _graded_sources(broken, options, launcher, progress)
    for (rule, exercise, _), result in graded:
        failed = {test.name.split("[")[0] for test in result.tests if test.status not in ("passed", "skipped")}
        if not failed & set(rule.tests):
            problems.append(f"{exercise.id} {rule.phrase!r}: broken, it fails "
                            f"{', '.join(sorted(failed)) or 'no test'}, none of {', '.join(rule.tests)}")
    device = device or verdict.device
    count = sum(len(exercise.rules) for exercise in declared)
    skipped = f", {not_run} graded only where their tests run (not here)" if not_run else ""
    return [_row(check, device, problems, f"{count} rules of {len(declared)} exercises, {len(broken)} broken on "
                                          f"purpose{skipped}"), *rows]


def _words(text):
    return " ".join(text.split())


def _docstrings(source):
    """Every docstring of a Python file (the module's, its classes', functions' and methods'), their
    whitespace made single spaces, joined by newlines."""
    nodes = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    return "\n".join(_words(ast.get_docstring(node) or "") for node in nodes)


def _graded_sources(sources, options, launcher, progress=None):
    """Grade whole student files, (key, exercise, source) each, by the students' runner, one file per
    exercise per run: ([((key, exercise, source), ExerciseResult)], the device, or None if none ran).
    `progress(done, total)`, when given, is told after each run."""
    graded, device = [], None
    for batch in _rounds(sources):
        with tempfile.TemporaryDirectory(prefix="lumen-check-") as folder:
            for _, exercise, source in batch:
                (Path(folder) / exercise.file_name).write_text(source, encoding="utf-8")
            verdict = runner.grade([e for _, e, _ in batch], _with(options, submission=Path(folder)),
                                   launcher=launcher)
        device = verdict.device
        graded += zip(batch, verdict.exercises)
        if progress is not None:
            progress(len(graded), len(sources))
    return graded, device


def _rounds(mutants):
    """Mutants grouped so that no group has two for the same exercise."""
    rounds = []
    for mutant in mutants:
        free = next((r for r in rounds if all(m[1] != mutant[1] for m in r)), None)
        if free is None:
            rounds.append([mutant])
        else:
            free.append(mutant)
    return rounds


# -- the table ----------------------------------------------------------------------------------

MARKS = {PASS: "✓ pass", FAIL: "✗ FAIL", NOT_AVAILABLE: "- not available"}


def render(rows, seconds=None):
    """The summary table, a line per check (and one per failure under it), then the verdict."""
    headers = ("check", "device", "result", "detail")
    table = [(row.check, row.device, MARKS[row.status], row.detail) for row in rows]
    widths = [max(len(line[i]) for line in [headers, *table]) for i in range(3)]
    lines = []
    for row, line in zip([None, *rows], [headers, *table]):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths)) + "  " + line[3])
        lines.extend(f"    {failure}" for failure in (row.failures if row else []))
    counts = {status: sum(row.status == status for row in rows) for status in MARKS}
    verdict = "all holds" if passed(rows) else "NOT all holds"
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    lines += ["", f"{verdict}: {counts[PASS]} passed, {counts[FAIL]} failed, "
                  f"{counts[NOT_AVAILABLE]} not available{took}"]
    return "\n".join(lines) + "\n"
