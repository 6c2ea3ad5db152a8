"""Shared fixtures: grade a submission in-process, with one sandbox launcher for the session."""

import fcntl
import hashlib
import json
import os
import pickle
import shutil
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader import catalog
from grader.grading import runner
from grader.sandbox.judge import Launcher
from grader.grading.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"  # wrong answers, written as students write
HONEST = Path(__file__).resolve().parent / "honest"  # right answers, written another way than the solution
STALE_RELEASE = ("exercises/ is not what `lumen-grade release` makes from solutions/. Students: this suite checks "
                 "the kit itself and expects the untouched stubs; grade your work with `lumen-grade` "
                 "(lumen-grade all, lumen-grade exercise3). Instructors: regenerate the release with "
                 "`lumen-grade release` (from the repository root)")


@dataclass(frozen=True)
class CorpusFile:
    """One file of a corpus, graded as its exercise's student file.

    Written: a file of the exercise's own folder of tests/submissions/ or tests/honest/. An exercise
    added without such a folder is held to the corpus rules by what it has instead (`stand_in`):
    its solution as its honest answer, and each of its misconceptions' mutant sources (the solution
    with the misconception's edits, as `lumen-grade check` grades them) as a wrong answer that must
    get that diagnosis. A stand-in is named so in the test's id; it is graded, never skipped."""

    exercise: object  # a catalog.Exercise
    name: str
    path: Path = None  # the file graded, or None for a text made here (`source`)
    source: str = None
    diagnosis: str = None  # a stand-in mutant's misconception id
    stand_in: bool = False

    @property
    def id(self):
        return f"{self.exercise.id}/{self.name}"


def _corpus(folder, stand_ins):
    """Every folder/exerciseN/*.py of the catalogue's exercises; for an exercise without its folder,
    the stand-ins `stand_ins(exercise)` gives."""
    for exercise in catalog.EXERCISES:
        own = folder / exercise.id
        if own.is_dir():
            yield from (CorpusFile(exercise, path.stem, path=path) for path in sorted(own.glob("*.py")))
        else:
            yield from stand_ins(exercise)


def _mutants(exercise):
    from grader.diagnosis import misconceptions

    for misconception_id, owner, source in misconceptions.mutant_sources(SOLUTIONS):
        if owner == exercise:
            yield CorpusFile(exercise, f"mutant-{misconception_id}", source=source, diagnosis=misconception_id,
                             stand_in=True)


def wrong_corpus():
    """tests/submissions/: what a student gets wrong (and `alt_` files: right in a way a matcher could mistake)."""
    return list(_corpus(SUBMISSIONS, _mutants))


def honest_corpus():
    """tests/honest/: right answers, each of which must get full marks."""
    return list(_corpus(HONEST, lambda exercise: [CorpusFile(exercise, "solution", path=SOLUTIONS / exercise.file_name,
                                                               stand_in=True)]))


@pytest.fixture(scope="session")
def launcher():
    launcher = Launcher()
    launcher.start()
    yield launcher
    launcher.close()


# an exercise's time limit for the corpora's files: the slowest (Python loops over blocks, in an exercise
# whose every call is measured) take half a minute on a loaded machine, and no corpus test is about speed
CORPUS_TIME_LIMIT = 120.0
# the time the search for a diagnosis's small example may take in the tests (grader.diagnosis.examples.SECONDS),
# far above what it takes: whether an example is found must not depend on how loaded the machine is (a search
# of 3 s took more than its 5 s on a machine running two suites)
EXAMPLE_SECONDS = 60.0


@pytest.fixture(scope="session")
def across_workers(tmp_path_factory):
    """A folder that every pytest-xdist worker of this run shares, or None in a run without workers: where a
    result one worker computed waits for the others (the corpus's gradings, looked at by several test files
    that may run on different workers)."""
    worker, run = os.environ.get("PYTEST_XDIST_WORKER"), os.environ.get("PYTEST_XDIST_TESTRUNUID")
    own = tmp_path_factory.getbasetemp()
    if not (worker and run) or own.name != f"popen-{worker}":  # a pytest that a worker started inherits its variables
        return None
    folder = own.parent / f"across-workers-{run}"  # in the run's own temporary folder
    folder.mkdir(exist_ok=True)
    return folder


def computed_once(folder, key, compute):
    """compute(), unless a worker sharing `folder` (`across_workers`) computed it for `key` already: then its
    pickled value. Each key's computation runs in one worker at a time, and is saved whole before another reads."""
    if folder is None:
        return compute()
    name = hashlib.sha256(repr(key).encode()).hexdigest()
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = folder / f"{name}.pickle"
        if saved.exists():
            return pickle.loads(saved.read_bytes())
        value = compute()
        saved.write_bytes(pickle.dumps(value))
        return value


@pytest.fixture
def grade(launcher, tmp_path, across_workers):
    """grade(exercise, source=None, path=None, **options) -> the ExerciseResult.

    `source`: the text of the student's file (dedented); `path`: an existing file to grade.
    Either way the file is copied into a fresh folder under the exercise's own file name. A file
    that reaches into its own process is scored (`hold_reaching=False`): the layers behind that hold
    (rules, probe, limits) are what most tests here check; tests/sandbox/test_reach.py checks the hold.
    """

    def run(exercise, source=None, path=None, **options):
        exercise = catalog.find(str(exercise))
        folder = tmp_path / f"submission-{exercise.id}"
        folder.mkdir(exist_ok=True)
        target = folder / exercise.file_name
        if path is not None:
            shutil.copyfile(path, target)
        else:
            target.write_text(textwrap.dedent(source))
        options.setdefault("device", "cpu")
        options.setdefault("time_limit", 20.0)
        options.setdefault("perf", False)
        options.setdefault("hold_reaching", False)
        report = runner.grade([exercise], Settings(submission=folder, **options), launcher=launcher)
        return report.exercises[0]

    run.across_workers = across_workers
    return run


def edited_release_files(folder=None):
    """The files of the release in `folder` (exercises/) that differ from what `lumen-grade
    release` wrote there (by its manifest's digests): a student's work, most likely."""
    from grader.course.release import MANIFEST

    folder = folder or EXERCISES
    try:
        recorded = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError):
        return []
    return [path for path, digest in sorted(recorded.items()) if not (folder / path).is_file()
            or "sha256:" + hashlib.sha256((folder / path).read_bytes()).hexdigest() != digest]


def pytest_terminal_summary(terminalreporter, exitstatus):
    """After a failed run, a student who has written code in exercises/ learns why this suite fails
    and how to grade their work (an instructor, how to re-release)."""
    edited = edited_release_files() if exitstatus else []
    if edited:
        terminalreporter.section("your exercises/ files have changed since the release", yellow=True)
        terminalreporter.line(f"changed: {', '.join(edited)}")
        terminalreporter.line("Students: that is your work, and it is why tests here fail: this suite checks the kit "
                              "itself. Grade your work with `lumen-grade` (lumen-grade all, lumen-grade exercise3).")
        terminalreporter.line("Instructors: `lumen-grade release --force` writes the release again.")


def unwrapped(text):
    """`text` with its line breaks and indents undone: what a wrapped message says, whatever the
    width (a path's length, the terminal's) it was wrapped to. The CLI breaks lines only between
    words, so a message is found in it whole."""
    return " ".join(text.split())


def failures(result, withheld=False):
    """The tests that did not pass (skips aside). A property test withheld because its value tests
    failed (grader.grading.plugin's `needs_values`) is left out unless `withheld`: what a mistake is
    caught by, and told in, are the checks that failed on their own."""
    return [t for t in result.tests if t.status not in ("passed", "skipped") and (withheld or "needs_values" not in t.details)]


def failed_tests(result, withheld=False):
    """Names of `failures(result, withheld)`, without their parameters."""
    return sorted({t.name.split("[")[0] for t in failures(result, withheld)})


def names_itself(marker):
    """A line of a submission that gives its process the name `marker` (a confined child can write no
    file to say which it is: its name in /proc/PID/comm does), through torch: ctypes is refused."""
    return f"torch._C._set_thread_name({str(marker)!r})"
