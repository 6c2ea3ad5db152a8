"""One grading run's settings (and a `watch`'s): the only copy of each default. The CLI's options take their defaults
from `DEFAULTS`, and their destinations are these fields' names, so a command hands what it was
given to `Settings(**given)` unrenamed.

This module imports no torch (`lumen-grade --help` reads it).
"""

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

RUN_MARGIN = 60.0  # seconds a whole run may take beyond its exercises' time limits, by default


def overrun(limit):
    """Seconds past the whole run's time limit (`limit`) after which the run is stopped by force:
    the grader ends a run at its limit itself, and then only has its report to write."""
    return min(30.0, max(5.0, limit / 10))


HINT_LEVELS = 4  # a diagnosis's hint ladder: 1 principle, 2 example, 3 cause, 4 remedy (grader.diagnosis.hints)
COURSE_FILE = Path("lumen-course.toml")  # the course's policy file, looked for in the current folder by default
LADDER_FOLDER = ".lumen"  # beside the graded file: the hint ladder's state (grader.course.ladder)


@dataclass(frozen=True)
class Policy:
    """The course's hint policy, as its course file sets it (grader.course.policy reads the file):
    these are the defaults of a course without one."""

    first_level: int = 1  # the hint level a mistake's first version shows
    highest_level: int = HINT_LEVELS  # the highest level shown before the due date
    highest_level_after_due: int = HINT_LEVELS  # and after it
    due: datetime = None  # timezone-aware; None: no due date (on Gradescope, the assignment's own)
    show_tier: bool = True  # the performance tier in the student's text and HTML reports and on Gradescope
    show_hidden_tests: bool = True  # the hidden checks' names and messages in the text and HTML reports
    source: Path = None  # the course file it was read from; None: no course file

    def highest(self, now):
        """The highest level allowed at `now` (a timezone-aware datetime)."""
        late = self.due is not None and now > self.due
        return self.highest_level_after_due if late else self.highest_level


@dataclass
class Settings:
    submission: Path = Path("exercises")  # the folder of the student's files
    notebook: Path = None  # --notebook FILE: the notebook to grade, instead of looking in `submission`
    device: str = "auto"  # auto (the CPU, plus CUDA when present), cpu or cuda
    seed: int = 0  # of the tests' random inputs
    time_limit: float = 60.0  # seconds per exercise (--timeout)
    total_time_limit: float = None  # seconds for the whole run (--total-timeout); None: see run_limit
    memory_limit: int = 4 << 30  # bytes per student process, beyond its start
    suites: list = field(default_factory=list)  # instructors' private suite folders
    builtin_suites: bool = True  # run the exercises' own hidden suites too
    perf: bool = True  # time the passed exercises for their performance tier
    perf_points: float = 0.0  # points the tier is worth per exercise; 0: informative only
    hold_reaching: bool = True  # hold the points of a file that reaches into its own process for a person's review
                                # (grader.sandbox.reach); False: score it as any other (--score-reaching)
    watch_interval: float = 0.3  # seconds between two looks at the files (lumen-grade watch --interval)
    # How much of a student's folder is looked at to find their files (batch, Gradescope and
    # lumen-grade alike): beyond any of these, the student's row is an error that says which.
    tree_depth: int = 32  # folder levels below the submission's folder (a virtual environment needs ~12)
    tree_entries: int = 100_000  # files and folders listed in all
    tree_bytes: int = 64 << 20  # bytes of the exercise files staged for one student, together
    policy: Policy = field(default_factory=Policy)  # the course file's (--course)

    def run_limit(self, count):
        """Seconds a run of `count` exercises may take in all: importing, tests and timing."""
        return self.total_time_limit or RUN_MARGIN + count * self.time_limit


DEFAULTS = Settings()
