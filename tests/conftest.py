"""Shared fixtures: grade a submission in-process, with one sandbox launcher for the session."""

import hashlib
import json
import shutil
import textwrap
from pathlib import Path

import pytest

from grader import catalog
from grader.grading import runner
from grader.sandbox.judge import Launcher
from grader.grading.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
EXERCISES = ROOT / "exercises"
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
STALE_RELEASE = ("exercises/ is not what `lumen-grade release` makes from solutions/. Students: this suite checks "
                 "the kit itself and expects the untouched stubs; grade your work with `lumen-grade` "
                 "(lumen-grade all, lumen-grade exercise3). Instructors: regenerate the release with "
                 "`lumen-grade release` (from the repository root)")


@pytest.fixture(scope="session")
def launcher():
    launcher = Launcher()
    launcher.start()
    yield launcher
    launcher.close()


@pytest.fixture
def grade(launcher, tmp_path):
    """grade(exercise, source=None, path=None, **options) -> the ExerciseResult.

    `source`: the text of the student's file (dedented); `path`: an existing file to grade.
    Either way the file is copied into a fresh folder under the exercise's own file name.
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
        report = runner.grade([exercise], Settings(submission=folder, **options), launcher=launcher)
        return report.exercises[0]

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


def failed_tests(result):
    """Names of the tests that did not pass (skips aside), without their parameters."""
    return sorted({t.name.split("[")[0] for t in result.tests if t.status not in ("passed", "skipped")})
