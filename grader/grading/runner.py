"""One grading run: start the sandbox, run the suites through pytest, return the verdict."""

import contextlib
import dataclasses
import os
import tempfile
import time
from pathlib import Path

import pytest
import torch

from grader import catalog
from grader.grading import submission, testkit
from grader.grading.results import ExerciseResult, GradeReport, TestResult
import grader.perf.child  # noqa: F401 (registers every child's "bench" op, and captures the clocks, before any fork)
from grader.sandbox.judge import Deadline, Launcher


class DeviceUnavailable(ValueError):
    """--device cuda on a machine without a usable CUDA device."""


class GraderError(RuntimeError):
    """The hidden suites themselves could not run: a fault of the kit, never of a submission."""


def resolve_devices(choice):
    """'auto' -> the CPU plus CUDA when present; 'cpu'; 'cuda' -> CUDA only, or DeviceUnavailable.

    Call only after the zygote is forked: asking torch about CUDA initialises the driver, and a
    process forked after that cannot use CUDA."""
    import torch

    has_cuda = torch.cuda.is_available()
    if choice == "cuda" and not has_cuda:
        raise DeviceUnavailable("--device cuda: no CUDA device is available here (try --device cpu)")
    if choice == "auto":
        return ("cpu", "cuda") if has_cuda else ("cpu",)
    return (choice,)


def usable_devices(choice, launcher, memory_limit):
    """(devices, note): `resolve_devices(choice)`, where CUDA counts only if it also starts in a
    child confined as a student's is (`Launcher.cuda_problem`), and None or the note that says why it
    does not. Without it every CUDA test would fail, whatever the code: `--device cuda` then raises
    DeviceUnavailable naming the reason, and `auto` grades on the CPU alone, with the note."""
    devices = resolve_devices(choice)
    problem = launcher.cuda_problem(memory_limit) if "cuda" in devices else None
    if problem is None:
        return devices, None
    why = f"CUDA works on this machine but does not start in the grader's sandbox ({problem})"
    if choice == "cuda":
        raise DeviceUnavailable(f"--device cuda: {why}. Grade with --device cpu, and report this to the "
                                "course staff")
    return tuple(device for device in devices if device != "cuda"), f"graded on the CPU only: {why}"


def confidential(options):
    """The trees a run's children must not read beyond the kit's own secrets: the instructor's
    suites, the folder of the notebook graded."""
    return [*options.suites, *(p.parent for p in [options.notebook] if p)]


def grade(exercises, options, launcher=None, on_verdict=None):
    """Grade the given exercises; returns a GradeReport. Never raises for what a submission does.
    The whole run has one deadline (`Settings.run_limit`), which no exercise's outlasts: what is
    left when it passes is reported as out of time, its child killed with all it started.
    `on_verdict(report)`: called with the tests' verdict before the performance phase is done."""
    started = time.monotonic()
    run = Deadline.whole(options.run_limit(len(exercises)))
    own_launcher = launcher is None
    if own_launcher:
        launcher = Launcher(forbidden=confidential(options))
        launcher.start()  # fork the zygote before any expected value exists in this process
    try:
        devices, note = usable_devices(options.device, launcher, options.memory_limit)
        verdict = _grade(exercises, options, launcher, devices, run, on_verdict)
        return dataclasses.replace(verdict, wall_time=time.monotonic() - started, device_note=note)
    finally:
        if own_launcher:
            launcher.close()


def _grade(exercises, options, launcher, devices, run, on_verdict=None):
    """Every exercise asked for is run through the suites: one whose file cannot be found or read
    carries the reason as its `error` (one not found, `handed_in` False too), and its tests count
    as not run (see `results`). Each result
    is assembled here, once, from what the submission's files, the suites (with their diagnoses)
    and the performance phase returned."""
    shown, ignored, errors, files, sources, absent = {}, {}, {}, {}, {}, set()
    with tempfile.TemporaryDirectory(prefix="lumen-code-") as code_dir:  # notebooks' code, as .py
        for exercise in exercises:
            try:
                found = submission.prepare(exercise, options.submission, code_dir, options.notebook)
            except submission.SubmissionError as error:
                shown[exercise.id], errors[exercise.id] = str(error.path), str(error)
                if error.step == submission.FIND_STEP:
                    absent.add(exercise.id)
                continue
            shown[exercise.id], ignored[exercise.id] = str(found.shown), list(found.ignored)
            # the path as found, not its real path: a folder linked into the kit is not the kit's (files.read_submission)
            files[exercise.id], sources[exercise.id] = str(found.code.absolute()), found
        # the reference's world, only after the fork, and before any student code runs: a
        # submission that could write this kit's files must not change what is imported later
        from grader.perf import judge as perf

        def result(exercise, outcome):
            return ExerciseResult(exercise.id, exercise.title, shown[exercise.id], ignored=ignored.get(exercise.id, []),
                                  handed_in=exercise.id not in absent, **vars(outcome))

        rating = perf.Rating(exercises, files, launcher, devices, options, run) if options.perf else None
        # each exercise's tier is timed (on a thread of its own) while the next exercise's suites run
        done = rating and (lambda exercise, outcome: rating.ready(exercise.id, result(exercise, outcome).passed))
        with testkit.one_thread(), rating or contextlib.nullcontext():
            suites = _run_suites(exercises, files, errors, sources, launcher, options, devices, run, done)
            results = {exercise.id: result(exercise, suites[exercise.id]) for exercise in exercises}
            if on_verdict is not None and rating is not None:
                on_verdict(GradeReport([results[exercise.id] for exercise in exercises], "+".join(devices),
                                       options.seed, containment=launcher.level))
            rated = rating.results() if rating is not None else {}
    return GradeReport([_with_tier(results[exercise.id], rated.get(exercise.id)) for exercise in exercises],
                       "+".join(devices), options.seed, containment=launcher.level)


def _with_tier(result, rated):
    """The result with what the performance phase found (`perf.Rated`), if it timed the exercise."""
    return result if rated is None else dataclasses.replace(result, tier=rated.tier, tests=[*result.tests, *rated.tests])


def _run_suites(exercises, files, errors, sources, launcher, options, devices, run, done=None):
    """{exercise id: plugin.SuiteOutcome} of every exercise, from the suites; `done(exercise, outcome)`
    is called as each exercise's suites end."""
    from grader.grading.plugin import GradingPlugin  # imports the suites' world only after the fork

    asked = {exercise.id: exercise for exercise in exercises}
    # only the suites of the exercises asked for, the untimed ones' last: the tiers of the others are
    # timed meanwhile (perf.Rating)
    ordered = sorted(exercises, key=lambda exercise: not exercise.timed)
    folders = ([exercise.suite for exercise in ordered] if options.builtin_suites else []) + [Path(p) for p in options.suites]
    with tempfile.TemporaryDirectory(prefix="lumen-") as log_dir, _quiet_pytest_env():
        plugin = GradingPlugin(
            files=files, errors=errors, launcher=launcher, log_dir=log_dir,
            devices=devices, seed=options.seed, time_limit=options.time_limit,
            memory_limit=options.memory_limit, sources=sources, run=run, hold_reaching=options.hold_reaching,
            concluded=done and (lambda exercise_id, outcome: done(asked[exercise_id], _found_tests(exercise_id, outcome))),
        )
        args = [str(folder) for folder in folders] + [
            "-p", "no:cacheprovider", "-p", "no:terminal", "-p", "no:stepwise", "-p", "no:logging",
            "-p", "no:unraisableexception", "-p", "no:threadexception",
            "--noconftest", "--assert=plain", "-o", "python_files=test_*.py",
            "-c", os.devnull, "--rootdir", str(catalog.FOLDER),
        ]
        with testkit.one_thread():  # the judge's tensors are tiny: waking a thread pool costs more
            code = pytest.main(args, plugins=[plugin])
    if plugin.broken_suites:  # pytest stops such a run as "interrupted": it is not a Ctrl-C
        raise GraderError(f"the hidden suites could not run: {'; '.join(plugin.broken_suites[:3])}: "
                          "reinstall the kit, or check the folders given to --suites")
    if code == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt
    if code in (pytest.ExitCode.INTERNAL_ERROR, pytest.ExitCode.USAGE_ERROR):
        raise GraderError(f"the hidden suites could not run (pytest exit code {int(code)}): "
                          "reinstall the kit, or check the folders given to --suites")
    return {exercise.id: _found_tests(exercise.id, plugin.outcome(exercise.id)) for exercise in exercises}


def _found_tests(exercise_id, outcome):
    """The outcome, or where the suites had no test for the exercise, one that says so (an error)."""
    if outcome.tests:
        return outcome
    missing = TestResult("find the tests", "error", 1.0,
                         message=f"no tests for {exercise_id} in the suites (test_{exercise_id}*.py)")
    return dataclasses.replace(outcome, tests=[missing])


@contextlib.contextmanager
def _quiet_pytest_env():
    """Keep the user's own pytest set-up (plugins, addopts) out of the grading run."""
    saved = {key: os.environ.pop(key, None) for key in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")}
    autoload = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is not None:
                os.environ[key] = value
        if autoload is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = autoload
