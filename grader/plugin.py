"""The pytest plugin that turns the hidden suites into a verdict.

It gives the suites their fixtures (`student`, `rng`, `device`), reads each test's points and
visibility from its markers, and records every outcome as a `TestResult` in the exercise's result.
The suites are plain pytest files; this plugin is the only place that knows about grading.
"""

import os
import zlib

import pytest
import torch

from grader import catalog, diagnose, testkit
from grader.compare import Mismatch
from grader.results import TestResult
from grader.sandbox import DEFAULT_MEMORY_LIMIT, ForbiddenCall, StudentError, WorkerCrashed, WorkerTimeout
from grader.student import Student

DEVICES = ("cpu", "cuda")


class GradingPlugin:
    def __init__(self, *, results, files, launcher, log_dir, devices, seed, time_limit,
                 memory_limit=DEFAULT_MEMORY_LIMIT):
        self.results = results  # exercise id -> ExerciseResult, filled in place
        self.files = files  # exercise id -> the student's file to grade
        self.launcher, self.log_dir = launcher, log_dir
        self.devices, self.seed, self.time_limit = devices, seed, time_limit
        self.memory_limit = memory_limit  # bytes per child, beyond what it holds at its start
        self.students = {}  # exercise id -> Student, shared by every suite of that exercise
        self.failed_calls = {}  # exercise id -> [(TestResult, the call its failing check recorded)]
        self.causes = {}  # exercise id -> [(TestResult, cause id)] of failures whose message names the mistake

    # -- collection -------------------------------------------------------------------------

    def pytest_configure(self, config):
        # The verdict never shows pytest's traceback, and formatting the default long one (with
        # source) costs about 0.1 s per failing test: a stub's 100 failures took 25 s instead of 4.
        config.option.tbstyle = "native"
        config.addinivalue_line("markers", "points(n): what the test is worth (default 1)")
        config.addinivalue_line("markers", "hidden: the test's name and message are hidden from students")

    def pytest_generate_tests(self, metafunc):
        if "device" in metafunc.fixturenames:
            metafunc.parametrize("device", DEVICES, indirect=True)

    def pytest_collection_modifyitems(self, config, items):
        selected = [item for item in items if self._exercise_of(item) in self.files]
        config.hook.pytest_deselected(items=[item for item in items if item not in selected])
        items[:] = selected

    @staticmethod
    def _exercise_of(item):
        exercise = catalog.for_suite(os.path.basename(str(item.fspath)))
        return exercise.id if exercise else None

    # -- fixtures ---------------------------------------------------------------------------

    @pytest.fixture(scope="module")
    def student(self, request):
        """The student's file for this suite's exercise, callable through the sandbox."""
        exercise = catalog.for_suite(os.path.basename(str(request.module.__file__)))
        if exercise.id not in self.students:
            self.students[exercise.id] = Student(
                exercise, self.files[exercise.id], self.launcher, self.log_dir, self.time_limit,
                self.memory_limit,
            )
        return self.students[exercise.id]

    @pytest.fixture
    def rng(self, request):
        """A generator seeded from --seed and the test's name: the same inputs every run."""
        generator = torch.Generator()
        generator.manual_seed(zlib.crc32(f"{self.seed}:{request.node.nodeid}".encode()))
        return generator

    @pytest.fixture
    def device(self, request):
        """The device a test runs on; CUDA cases skip where CUDA was not selected or is absent."""
        if request.param not in self.devices:
            pytest.skip(f"{request.param} is not available or not selected (--device)")
        return request.param

    # -- outcomes ---------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when == "call" or (call.when == "setup" and not report.passed):
            self._record(item, call)

    def _record(self, item, call):
        marker = item.get_closest_marker("points")
        status, message, details = _outcome(call.excinfo, self.time_limit)
        result = self.results[self._exercise_of(item)]
        test = TestResult(
            name=item.name,
            status=status,
            max_score=float(marker.args[0]) if marker else 1.0,
            visibility="hidden" if item.get_closest_marker("hidden") else "visible",
            message=message,
            details=details,
            duration=call.duration,
        )
        result.tests.append(test)
        result.calls.extend(testkit.take_passed_calls())
        if status == "failed" and "call" in details:
            self.failed_calls.setdefault(result.id, []).append((test, details["call"]))
        if status == "failed" and "cause" in details:
            self.causes.setdefault(result.id, []).append((test, details["cause"]))

    def pytest_sessionfinish(self, session):
        for exercise_id, student in self.students.items():
            student.close()
            self.results[exercise_id].output = student.printed()
        for exercise_id in {*self.failed_calls, *self.causes}:
            _diagnose(self.results[exercise_id], catalog.find(exercise_id).number,
                      self.failed_calls.get(exercise_id, []), self.causes.get(exercise_id, []))


def _diagnose(result, number, failed, causes):
    """The exercise's diagnoses, from all its failed calls and its passed ones weighed together: once
    in the exercise's `diagnoses`, and by id in each failed test a diagnosis explains. A diagnosis
    never turns a wrong answer into a grader error."""
    try:
        tests = [test for test, _ in failed]
        found = diagnose.conclude(number, [call for _, call in failed], result.calls,
                                  [(cause, test.message, tests.index(test) if test in tests else None)
                                   for test, cause in causes])
    except Exception:  # noqa: BLE001 - no diagnosis is an honest answer, a crash is not
        return
    for diagnosis in found:
        result.diagnoses.append(diagnosis.as_dict())
        for index in diagnosis.calls:
            failed[index][0].details.setdefault("diagnosis", diagnosis.id)
        for test, cause in causes:
            if cause == diagnosis.id:
                test.details.setdefault("diagnosis", diagnosis.id)


def _outcome(excinfo, time_limit):
    """(status, one-line message, details) for a test's exception, or a pass."""
    if excinfo is None:
        return "passed", "", {}
    error = excinfo.value
    if excinfo.errisinstance(pytest.skip.Exception):
        return "skipped", str(getattr(error, "msg", error)), {}
    if isinstance(error, Mismatch):
        return "failed", error.message, error.details
    if isinstance(error, AssertionError):
        return "failed", str(error) or "assertion failed", {}
    if isinstance(error, ForbiddenCall):  # scores 0 like a wrong answer, and names the rule
        return "failed", error.summary, {"rule": error.rule, "frames": error.frames}
    if isinstance(error, StudentError):
        if error.type == "NotImplementedError":
            return "error", f"not implemented yet: {error.message}", {}
        return "error", error.summary, {"frames": error.frames}
    if isinstance(error, WorkerTimeout) and error.earlier:
        return "timeout", f"not run: an earlier test used up the exercise's time limit ({time_limit:g} s)", {}
    if isinstance(error, WorkerTimeout):
        return "timeout", (f"the exercise's time limit ({time_limit:g} s) ran out: is there an "
                           "infinite loop, or a loop over every element?"), {}
    if isinstance(error, WorkerCrashed):
        return "error", str(error), {}
    return "error", f"grader error (please report it): {type(error).__name__}: {error}", {}
