"""One grading run's settings (and a `watch`'s): the only copy of each default. The CLI's options take their defaults
from `DEFAULTS`, and their destinations are these fields' names, so a command hands what it was
given to `Settings(**given)` unrenamed.

This module imports no torch (`lumen-grade --help` reads it).
"""

from dataclasses import dataclass, field
from pathlib import Path

RUN_MARGIN = 60.0  # seconds a whole run may take beyond its exercises' time limits, by default


def overrun(limit):
    """Seconds past the whole run's time limit (`limit`) after which the run is stopped by force:
    the grader ends a run at its limit itself, and then only has its report to write."""
    return min(30.0, max(5.0, limit / 10))


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
    watch_interval: float = 0.3  # seconds between two looks at the files (lumen-grade watch --interval)
    # How much of a student's folder is looked at to find their files (batch, Gradescope and
    # lumen-grade alike): beyond any of these, the student's row is an error that says which.
    tree_depth: int = 32  # folder levels below the submission's folder (a virtual environment needs ~12)
    tree_entries: int = 100_000  # files and folders listed in all
    tree_bytes: int = 64 << 20  # bytes of the exercise files staged for one student, together

    def run_limit(self, count):
        """Seconds a run of `count` exercises may take in all: importing, tests and timing."""
        return self.total_time_limit or RUN_MARGIN + count * self.time_limit


DEFAULTS = Settings()
