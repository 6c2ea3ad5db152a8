"""Shared fixtures: grade a submission in-process, with one sandbox launcher for the session."""

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


def failed_tests(result):
    """Names of the tests that did not pass (skips aside), without their parameters."""
    return sorted({t.name.split("[")[0] for t in result.tests if t.status not in ("passed", "skipped")})
