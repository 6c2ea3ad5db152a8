"""The pytest plugin that turns the hidden suites into what they found, per exercise.

It gives the suites their fixtures (`student`, `rng`, `device`), reads each test's points and
visibility from its markers, and records every outcome as a `TestResult`; once the suites have run,
`outcome(exercise_id)` gives the runner an exercise's tests, import error, printed output and
diagnoses (`SuiteOutcome`), from which the runner assembles the result. The suites are plain pytest
files; this plugin is the only place that knows about grading.

Every exercise asked for is collected, whether or not its file could be read, so that its maximum
is always its full points. Before an exercise's first test the student's file is imported once:
if that fails, the reason is said once, in the exercise's `error`, and each of its tests is
`not_run` (0 of its points) instead of N copies of one failure. An exercise whose file was not
found (or could not be read) gets those rows at collection, without running its tests. A test marked
`cuda` runs on CUDA only; its case is skipped for the machine, never for the student.

A test of a property of the answer (inputs left unchanged, the device kept, the memory held) is
marked `needs_values(...)` with the value tests of the function it watches: it pays only where one
of them passed on its device, so that code that computes nothing (zeros of the right shape) earns
nothing for keeping its inputs intact.
"""

import os
import re
import zlib
from dataclasses import dataclass, field

import pytest
import torch

from grader import catalog
from grader.diagnosis import examples, matcher as diagnose, trails
from grader.grading import testkit
from grader.grading.compare import Mismatch
from grader.grading.results import TestResult, held_message
from grader.sandbox.judge import (ChildCrashed, ChildTimeout, Deadline, ForbiddenCall, InputsUnread, StudentError,
                                  SubmissionRefused)
from grader.grading.student import Student, printed_text

DEVICES = ("cpu", "cuda")
_FRAME_LINE = re.compile(r"[^,]*, line (\d+), in ")  # a frame as the child describes it
_NOT_RUN = "not run: the file could not be graded (the reason is given once, for the exercise)"


class NotRun(Exception):
    """The exercise's file could not be imported (or found): its tests are not run."""


@dataclass
class SuiteOutcome:
    """What the suites found for one exercise."""

    tests: list  # TestResult, in the order they ran
    error: str = ""  # why the file could not be graded at all (not found, or failed to import)
    output: str = ""  # the start of what the student's code printed
    diagnoses: list = field(default_factory=list)  # {id, message} dicts
    calls: list = field(default_factory=list)  # the passed checks' calls, for the diagnosis


class GradingPlugin:
    def __init__(self, *, files, errors, launcher, log_dir, devices, seed, time_limit,
                 memory_limit, sources=None, run=None, concluded=None, hold_reaching=True):
        self.files = files  # exercise id -> the student's file to grade
        self.errors = dict(errors)  # exercise id -> why it cannot be graded (no file; then a failed import)
        self.sources = sources or {}  # exercise id -> submission.Found: names a line's notebook cell
        self.tests = {exercise_id: [] for exercise_id in [*files, *errors]}  # every exercise asked for
        self.suite_order, self.places = {}, {}  # test id -> its place in the suites; id(TestResult) -> its test's
        self.passed_calls = {exercise_id: [] for exercise_id in self.tests}  # [(its test's place, [calls])]
        self.outputs, self.diagnoses = {}, {}
        self.launcher, self.log_dir = launcher, log_dir
        self.devices, self.seed, self.time_limit = devices, seed, time_limit
        self.memory_limit = memory_limit  # bytes per child, beyond what it holds at its start
        self.run = run  # the whole run's Deadline (None: none), which no exercise's outlasts
        self.hold_reaching = hold_reaching  # hold a file that reaches into its process for review (Settings)
        self.students = {}  # exercise id -> Student, shared by every suite of that exercise
        self.imported = set()  # exercise ids whose file has been imported (or failed to be)
        self.printed = {exercise_id: [] for exercise_id in self.tests}  # [(during a hidden test, bytes printed)]
        self.recorded = {exercise_id: [] for exercise_id in self.tests}  # [(test function, device, needs, TestResult)]
        self.failed_calls = {}  # exercise id -> [(TestResult, the call its failing check recorded)]
        self.evidence = testkit.Evidence()  # bounds what the failed calls keep of the student's values
        self.causes = {}  # exercise id -> [(TestResult, cause id)] of failures whose message names the mistake
        self.broken_suites = []  # "file: error" of the suite files that could not be collected
        self.last_items = {}  # exercise id -> its last test, after which it is diagnosed
        self.concluded = set()  # exercise ids diagnosed (and their student process ended)
        self.on_concluded = concluded  # called with (exercise id, its SuiteOutcome) as each is concluded

    # -- collection -------------------------------------------------------------------------

    def pytest_configure(self, config):
        # The verdict never shows pytest's traceback, and formatting the default long one (with
        # source) costs about 0.1 s per failing test: a stub's 100 failures took 25 s instead of 4.
        config.option.tbstyle = "native"
        config.addinivalue_line("markers", "points(n): what the test is worth (default 1)")
        config.addinivalue_line("markers", "hidden: the test's name and message are hidden from students")
        config.addinivalue_line("markers", "cuda: the test runs on CUDA only (its `device` is cuda)")
        config.addinivalue_line("markers", "needs_values(*tests, **by_param): a property test, which pays only "
                                "where one of `tests` (and of by_param[a param of its case]) passed on its device")

    def pytest_generate_tests(self, metafunc):
        if "device" in metafunc.fixturenames:
            cuda_only = metafunc.definition.get_closest_marker("cuda") is not None
            metafunc.parametrize("device", ("cuda",) if cuda_only else DEVICES, indirect=True)

    def pytest_collection_modifyitems(self, config, items):
        """Only the exercises asked for; each one's hidden tests after its visible ones, so that no
        visible test's message (what the student's code raised there) can carry the inputs of a hidden
        one that the code kept (round 25's a15); the report keeps the suites' order (`outcome`)."""
        selected = [item for item in items if self._exercise_of(item) in self.tests]
        self.suite_order = {item.nodeid: place for place, item in enumerate(selected)}
        ungraded = {self._exercise_of(item) for item in selected if self.errors.get(self._exercise_of(item))}
        for item in selected:  # a file not found or unreadable: its rows are known without running them
            if self._exercise_of(item) in ungraded:
                self._keep(item, *_unrun(item, self.devices), 0.0)
        selected = [item for item in selected if self._exercise_of(item) not in ungraded]
        config.hook.pytest_deselected(items=[item for item in items if item not in selected])
        for exercise_id in sorted(ungraded, key=list(self.tests).index):
            self._conclude(exercise_id)
        first = {}
        for item in selected:
            first.setdefault(self._exercise_of(item), len(first))
        items[:] = sorted(selected, key=lambda item: (first[self._exercise_of(item)],
                                                      item.get_closest_marker("hidden") is not None))
        self.last_items = {self._exercise_of(item): item for item in items}  # each exercise's last test

    def pytest_collectreport(self, report):
        if report.failed:
            lines = str(report.longrepr).strip().splitlines()
            error = re.sub(r"^E\s+", "", lines[-1]) if lines else "error"
            self.broken_suites.append(f"{os.path.basename(str(report.fspath))} ({error})")

    @staticmethod
    def _exercise_of(item):
        exercise = catalog.for_suite(os.path.basename(str(item.fspath)))
        return exercise.id if exercise else None

    # -- fixtures ---------------------------------------------------------------------------

    @pytest.fixture(scope="module")
    def student(self, request):
        """The student's file for this suite's exercise, callable through the sandbox."""
        return self._student(catalog.for_suite(os.path.basename(str(request.module.__file__))))

    def _student(self, exercise):
        if exercise.id not in self.students:
            self.students[exercise.id] = Student(
                exercise, self.files[exercise.id], self.launcher, self.log_dir, self.time_limit,
                self.memory_limit, run=self.run,
            )
        return self.students[exercise.id]

    @pytest.fixture
    def rng(self, request):
        """A generator seeded from --seed and the test's name (its suite's file name and the test's, not
        the folder the suite is in): the same inputs every run, wherever the suite lies."""
        generator = torch.Generator()
        suite, _, test = request.node.nodeid.partition("::")
        generator.manual_seed(zlib.crc32(f"{self.seed}:{os.path.basename(suite)}::{test}".encode()))
        return generator

    @pytest.fixture
    def device(self, request):
        """The device a test runs on; CUDA cases skip where CUDA was not selected or is absent."""
        if request.param not in self.devices:
            pytest.skip(_unavailable(request.param))
        return request.param

    # -- the file, imported once -------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        """Before any fixture: skip a device this machine lacks, then refuse to run the tests of
        an exercise whose file could not be imported."""
        device = getattr(item, "callspec", None) and item.callspec.params.get("device")
        if device and device not in self.devices:
            pytest.skip(_unavailable(device))
        exercise = catalog.for_suite(os.path.basename(str(item.fspath)))
        if exercise.id not in self.imported:
            self.imported.add(exercise.id)
            self._import(exercise)
        if self.errors.get(exercise.id):
            raise NotRun(self.errors[exercise.id])

    def _import(self, exercise):
        """Import the student's file once; a failure becomes the exercise's `error`."""
        if self.errors.get(exercise.id):
            return
        try:
            self._student(exercise).load()
            self.printed[exercise.id].append((False, self.students[exercise.id].read_printed()))  # always shown
        except ForbiddenCall as error:
            reason = f"{self._where(exercise, error)}: importing it used a forbidden shortcut: {error.summary}"
        except StudentError as error:
            what = f"{error.type}: {error.message}" if error.message else error.type
            reason = f"{self._where(exercise, error)}: importing it raised {what}"
            if error.type == "NotImplementedError":
                reason += " (top-level code must not call your unfinished functions)"
            elif error.type == "ModuleNotFoundError" and any(f"'{other.stem}'" in (error.message or "")
                                                            for other in catalog.EXERCISES):  # round 61's h07
                reason += (" (each exercise file is graded alone, without the others beside it: copy what "
                           "you need from that exercise into this file)")
        except ChildTimeout as timeout:
            limit = self.students[exercise.id].limit
            if timeout.earlier:  # the whole run's time was up before this exercise's turn
                reason = f"{self._shown(exercise)}: not graded: {limit.limit} ran out before its turn"
            else:
                reason = (f"{self._shown(exercise)}: importing it did not finish within {limit.limit}: is there a "
                          "loop or a long computation outside your functions? Keep experiments under "
                          "`if __name__ == \"__main__\":`")
        except SubmissionRefused as refused:  # the judge would not send the file: the reason is the whole story
            reason = str(refused)
        except ChildCrashed as error:
            reason = f"{self._shown(exercise)}: the process importing it died: {error}"
        else:
            return
        self.errors[exercise.id] = reason

    def _where(self, exercise, error):
        """The file and, from the error's last frame in it, the line (a notebook's: the cell and its line)."""
        lines = [int(match.group(1)) for match in map(_FRAME_LINE.match, error.frames) if match]
        return self._place(exercise, lines[-1]) if lines else self._shown(exercise)

    def _place(self, exercise, line):
        """Line `line` of the code graded, as the student finds it (a notebook's cell and its line)."""
        found = self.sources.get(exercise.id)
        return found.where(line) if found is not None else f"{self._shown(exercise)}, line {line}"

    def _shown(self, exercise):
        """The name of the file graded, as the student knows it (a notebook's, not its code's)."""
        found = self.sources.get(exercise.id)
        return os.path.basename(str(found.shown) if found is not None else self.files[exercise.id])

    # -- outcomes ---------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if call.when == "call" or (call.when == "setup" and not report.passed):
            self._record(item, call)

    def _record(self, item, call):
        exercise_id = self._exercise_of(item)
        student = self.students.get(exercise_id)
        limit = student.limit if student else Deadline.earliest(self.time_limit, self.run)
        found = self.sources.get(exercise_id)
        status, message, details = _outcome(call.excinfo, limit, found)
        self._keep(item, status, _lines_named(message, found), details, call.duration)

    def _keep(self, item, status, message, details, duration):
        """Keep a test's outcome as its TestResult, with what the diagnosis and the report need of it."""
        marker = item.get_closest_marker("points")
        exercise_id = self._exercise_of(item)
        student = self.students.get(exercise_id)
        if "call" in details:
            details = {**details, "call": self.evidence.keep(details["call"])}
        test = TestResult(
            name=item.name,
            status=status,
            max_score=float(marker.args[0]) if marker else 1.0,
            visibility="hidden" if item.get_closest_marker("hidden") else "visible",
            message=message,
            details=details,
            duration=duration,
        )
        self.tests[exercise_id].append(test)
        self.places[id(test)] = self.suite_order.get(item.nodeid, len(self.suite_order))
        self._attribute_output(exercise_id, test, student)
        params = item.callspec.params if hasattr(item, "callspec") else {}
        self.recorded[exercise_id].append((item.originalname, params.get("device"), _needed(item, params), test))
        self.passed_calls[exercise_id].append((self.places[id(test)], testkit.take_passed_calls()))
        if status in ("failed", "error") and "call" in details:
            self.failed_calls.setdefault(exercise_id, []).append((test, details["call"]))
        if status == "failed" and details.get("cause"):
            self.causes.setdefault(exercise_id, []).append((test, details["cause"]))

    def _attribute_output(self, exercise_id, test, student):
        """Keep what the student's code printed during a test (the child flushes after each call),
        marked if the test is hidden, so that the report leaves it out: printed inputs would show the
        hidden check's."""
        if student is not None:
            self.printed[exercise_id].append((test.visibility == "hidden", student.read_printed()))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        yield
        exercise_id = self._exercise_of(item)
        if self.last_items.get(exercise_id) is item:  # its tests are done: diagnose it within its own deadline
            self._conclude(exercise_id)

    def pytest_sessionfinish(self, session):
        for exercise_id in list(self.tests):  # those a stopped run left unfinished
            self._conclude(exercise_id)

    def _conclude(self, exercise_id):
        """Once an exercise's tests have run: what its code printed, its diagnoses (with their smallest
        examples, which its student process computes), then that process ended."""
        if exercise_id in self.concluded:
            return
        self.concluded.add(exercise_id)
        _withhold(self.recorded[exercise_id])
        student, exercise = self.students.get(exercise_id), catalog.find(exercise_id)
        if student is not None and student.reaches and self.hold_reaching:
            _hold_for_review(self.tests[exercise_id],
                             [f"{self._place(exercise, found.line)}: {found.names}" for found in student.reaches])
        if student is not None:  # what the suites' calls printed (the child flushes after each)
            self.outputs[exercise_id] = _lines_named(printed_text([*self.printed[exercise_id],
                                                                    (False, student.read_printed())]),
                                                     self.sources.get(exercise_id))
        if exercise_id in {*self.failed_calls, *self.causes}:
            self.diagnoses[exercise_id] = _lines_named(_diagnose(
                exercise.number, self._in_suite_order(self.failed_calls, exercise_id), self._passed(exercise_id),
                self._in_suite_order(self.causes, exercise_id), *self._explainers(exercise)),
                self.sources.get(exercise_id))
        if student is not None:
            student.close()
        if self.on_concluded is not None:
            self.on_concluded(exercise_id, self.outcome(exercise_id))

    def _explainers(self, exercise):
        """(example, locate): functions of a diagnosis's failed calls that give its smallest example (or
        None) and its message with the line where it went wrong (grader.diagnosis.trails), run by the
        exercise's student process within examples.SECONDS in all, by the exercise's deadline (each
        example's search in a fresh one: `examples.shrink`)."""
        student = self.students.get(exercise.id)
        if student is None:
            return (lambda calls: None), (lambda key, message, general, calls: message)
        budget = examples.Budget()
        return (lambda calls: examples.shrink(student, exercise, calls, budget),
                lambda key, message, general, calls: trails.located(key, message, general, student, calls, budget))

    def outcome(self, exercise_id):
        """What the suites found for an exercise, once they have run."""
        tests = sorted(self.tests[exercise_id], key=lambda test: self.places.get(id(test), 0))  # the suites' order
        return SuiteOutcome(tests, self.errors.get(exercise_id, ""),
                            self.outputs.get(exercise_id, ""), self.diagnoses.get(exercise_id, []),
                            self._passed(exercise_id))

    def _passed(self, exercise_id):
        """The calls of an exercise's passed checks, in the suites' order (hidden tests run last)."""
        return [call for _, calls in sorted(self.passed_calls[exercise_id], key=lambda pair: pair[0]) for call in calls]

    def _in_suite_order(self, found, exercise_id):
        """[(TestResult, ...)] of `found` for an exercise, in the suites' order, the visible checks' first: a
        diagnosis weighs the evidence in the order the suites list it, whatever order the tests ran in, and
        its words come from the first call it explains, a hidden one only where no visible one shows it
        (round 71's a02: a hidden check listed above a visible one gave the message a number the code chose
        from hidden inputs)."""
        return sorted(found.get(exercise_id, []),
                      key=lambda pair: (pair[0].visibility == "hidden", self.places.get(id(pair[0]), 0)))


def _needed(item, params):
    """The value tests whose pass a property test's points wait on (its `needs_values` marker), or ()."""
    marker = item.get_closest_marker("needs_values")
    if marker is None:
        return ()
    cases = {str(value) for value in params.values()}
    by_param = [names for param, names in marker.kwargs.items() if param in cases]
    return (*marker.args, *(name for names in by_param for name in ((names,) if isinstance(names, str) else names)))


def _withhold(recorded):
    """Fail each passed property test none of whose value tests passed on its device (see the
    module's docstring): it says which value tests to make pass first (the visible ones)."""
    for _, device, needs, test in recorded:
        if not needs or test.status != "passed":
            continue
        if any(name in needs and other.status == "passed" and (device == on or None in (device, on))
               for name, on, _, other in recorded):
            continue
        shown = sorted({other.name.partition("[")[0] for name, _, _, other in recorded
                        if name in needs and other.visibility == "visible"})
        named = f" ({', '.join(shown)})" if shown else ""
        test.status = "failed"
        test.message = ("not scored yet: this test checks a property of the function's answer, which earns its "
                        f"points once the answer itself is right, and none of its value tests{named} passed")
        test.details = {**test.details, "needs_values": list(needs)}


def _hold_for_review(tests, places, listed=3):
    """Withhold the points of every passed test of a file that reaches into its own process
    (grader.sandbox.reach): code there can edit what the grader measures inside it, so a person, not
    the kit, decides what such a file earned. Each test says where and why, and what to do."""
    where = "; ".join(places[:listed]) + (f"; and {len(places) - listed} more" if len(places) > listed else "")
    for test in tests:
        if test.score == 0:
            continue
        test.status, test.earned = "failed", None
        test.message = held_message(where)
        test.details = {**test.details, "held_for_review": places}


def _diagnose(number, failed, passed, causes, example=lambda calls: None,
              locate=lambda key, message, general, calls: message):
    """The exercise's diagnoses ({id, message} dicts, and "example": the smallest call that shows it,
    found by `example` from the failed calls it explains; the message names the line where it went
    wrong, by `locate`, where it can), from all its failed calls and its passed ones weighed together;
    each failed test a diagnosis explains gets its id in its details before the plugin hands it over.
    A diagnosis never turns a wrong answer into a grader error."""
    try:
        tests = [test for test, _ in failed]
        found = diagnose.conclude(number, [call for _, call in failed], passed,
                                  [(cause, test.message, tests.index(test) if test in tests else None)
                                   for test, cause in causes])
    except Exception:  # noqa: BLE001 - no diagnosis is an honest answer, a crash is not
        return []
    diagnoses = []
    for diagnosis in found:
        for index in diagnosis.calls:
            failed[index][0].details.setdefault("diagnosis", diagnosis.id)
        for test, cause in causes:
            if cause == diagnosis.id:
                test.details.setdefault("diagnosis", diagnosis.id)
        data = diagnosis.as_dict()
        calls = [failed[index][1] for index in sorted(diagnosis.calls)]
        general = next((test.details["general"] for test, cause in causes
                        if cause == diagnosis.id and test.details.get("general")), "")
        data["message"] = locate(diagnosis.id, data["message"], general, calls)
        shown = example(calls)
        if shown is not None:
            data["example"] = shown
        diagnoses.append(data)
    return diagnoses


def _lines_named(value, found):
    """`value` (a test's message, the diagnoses: texts in lists, tuples and dicts) with each line of the graded code
    it names bare named as the student knows it (`Found.lines_named`: a notebook's cell and line)."""
    if found is None or not found.cells:
        return value
    if isinstance(value, str):
        try:  # the text holds what the student's code returned: naming its lines never stops the grading
            return found.lines_named(value)
        except (ValueError, RecursionError, MemoryError):
            return value
    if isinstance(value, dict):
        return {key: _lines_named(item, found) for key, item in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_lines_named(item, found) for item in value)
    return value


def _located(error, found):
    """A StudentError whose frames name the student's code as they know it: a notebook's cell and
    line, not the temporary .py file that was graded (`Found.frame`)."""
    if found is not None:
        error.frames = [found.frame(frame) for frame in error.frames]
    return error


def _forbidden(error, found):
    """A forbidden call's message. Its advice says to write the forbidden maths yourself; where the
    student's file already has a function of its own named for it (their softmax) and the call is made
    elsewhere, it says to call theirs instead."""
    word = error.rule.removeprefix("torch's ")  # "softmax" of "torch's softmax": a torch function, written by hand
    caller = error.frames[-1].split(":")[0].rpartition(", in ")[2] if error.frames else ""
    own = [(name, line) for name, line in (found.written() if found is not None else {}).items()
           if word.isidentifier() and re.fullmatch(rf"(my_|stable_|safe_)?{word}", name) and name != caller]
    if not own or not caller:
        return error.summary
    name, line = own[0]
    return (f"forbidden: {error.rule} ({error.message}, {error.location}) — your file has a {word} of its own, "
            f"`{name}` ({found.where(line)}): call it here instead of {error.rule}")


def _unavailable(device):
    """Why a test on `device` is skipped."""
    return f"{device} is not available or not selected (--device)"


def _unrun(item, devices):
    """(status, message, details) of a test of an exercise whose file could not be graded, as running it
    would give: skipped for a device not used, else not run."""
    device = getattr(item, "callspec", None) and item.callspec.params.get("device")
    if device and device not in devices:
        return "skipped", _unavailable(device), {}
    return "not_run", _NOT_RUN, {}


def _outcome(excinfo, limit, found=None):
    """(status, one-line message, details) for a test's exception, or a pass; `limit`: the
    exercise's Deadline, to name the limit that ran out; `found`: the graded code
    (submission.Found), to name where the student's code raised."""
    if excinfo is None:
        return "passed", "", {}
    error = excinfo.value
    if isinstance(error, StudentError):
        error = _located(error, found)
    if excinfo.errisinstance(pytest.skip.Exception):
        return "skipped", str(getattr(error, "msg", error)), {}
    if isinstance(error, NotRun):
        return "not_run", _NOT_RUN, {}
    if isinstance(error, InputsUnread):
        return "error", error.summary, {}
    if isinstance(error, Mismatch):
        return "failed", error.message, error.details
    if isinstance(error, AssertionError):
        return "failed", str(error) or "assertion failed", {}
    if isinstance(error, ForbiddenCall):  # scores 0 like a wrong answer, and names the rule
        return "failed", _forbidden(error, found), {"rule": error.rule, "frames": error.frames}
    if isinstance(error, StudentError):
        if error.type == "NotImplementedError":
            return "error", f"not implemented yet: {error.message}", {}
        details = {"frames": error.frames}
        if getattr(error, "call", None) is not None:  # the call that raised, for the diagnosis (testkit.Raised)
            details["call"] = error.call
        return "error", error.summary, details
    if isinstance(error, ChildTimeout) and error.earlier:
        if limit.whole_run:
            return "timeout", f"not run: {limit.limit} ran out before this test", {}
        return "timeout", f"not run: an earlier test used up {limit.limit}", {}
    if isinstance(error, ChildTimeout):
        return "timeout", f"{limit.limit} ran out: is there an infinite loop, or a loop over every element?", {}
    if isinstance(error, ChildCrashed):
        return "error", str(error), {}
    return "error", f"grader error (please report it): {type(error).__name__}: {error}", {}
