"""`lumen-grade watch`: grade again each time the student saves, in one warm process.

The grader's process stays up between saves with its sandbox's zygote (see
`grader.sandbox.judge.Launcher`): torch, pytest and the suites are imported once, and each re-grade
forks fresh children from the zygote made at start-up, so a re-grade costs the tests, not `import
torch`. What changed is found by polling each exercise file's modification time and size (no
dependency, and it works for every editor's way of saving: in place, or a new file renamed over the
old one).

Each mistake's hint level is the one its ladder (`grader.course.ladder`) has reached: a save is not an
attempt, so the level stays while the mistake does (`lumen-grade hint` in another terminal climbs it,
and the next re-grade shows it).
"""

import dataclasses
import os
import textwrap
import time
from datetime import datetime

from grader import catalog
from grader.course import ladder as hint_ladder
from grader.grading.results import GradeReport
from grader.sandbox.judge import Launcher
from grader.grading.submission import SubmissionError, find_file

SETTLE = 0.05  # seconds a changed file must stay unchanged before it is graded (a save in progress)


def file_of(exercise, options):
    """The file graded for `exercise`: the --notebook, else what `find_file` picks in the folder
    (None when there is none, the error's text when the choice is ambiguous)."""
    if options.notebook is not None:
        return options.notebook
    try:
        return find_file(exercise, options.submission)
    except SubmissionError as error:
        return str(error)


def snapshot(exercises, options):
    """{exercise id: (file, modification time in ns, size)} of the files a grading would read."""
    state = {}
    for exercise in exercises:
        path = file_of(exercise, options)
        try:
            stat = os.stat(path) if isinstance(path, os.PathLike) else None
        except OSError:  # deleted between the look and the stat
            stat = None
        state[exercise.id] = (str(path), stat and stat.st_mtime_ns, stat and stat.st_size)
    return state


TIMING = {"id": "timing", "name": "timing…", "ratio": None,
          "message": "timing… your code is being timed against the reference"}  # a passed file's tier, meanwhile


class Watcher:
    """Grades `exercises` once, then again whenever one of their files changes; `show(report,
    graded, seconds)` draws each report (every exercise's latest verdict, `graded` the ones just
    re-graded). With the tiers on and `drafts`, a re-grade is drawn twice: the tests' verdict as
    soon as it is known, each passed timed exercise's tier "timing…", then again with the tiers
    measured; an old tier never stands beside a new verdict. Without `drafts` (output that is
    not a terminal, where a report is not redrawn but added), only the finished report is drawn.
    Each mistake is shown at its hint level, which a save does not climb (`hints`: ALL shows every
    level the course allows); `notes(line)` is told what the ladder has to say, once each."""

    def __init__(self, exercises, options, show, drafts=True, hints=None, notes=lambda line: None):
        from grader.grading.runner import confidential

        self.exercises, self.options, self.show, self.drafts = list(exercises), options, show, drafts
        self.ladder = hint_ladder.Ladder(options.policy, hint_ladder.state_folder(options))
        self.hints, self.notes = hints, notes
        self.latest = {}  # exercise id -> its latest ExerciseResult
        self.launcher = Launcher(forbidden=confidential(options))  # confined as `lumen-grade` confines

    def __enter__(self):
        self.launcher.start()  # the zygote: forked before any expected value exists here
        return self

    def __exit__(self, *exc):
        self.launcher.close()

    def grade(self, exercises):
        """Grade `exercises` in the warm process and show the whole report."""
        from grader.grading import runner  # imports torch: after the zygote is forked

        started = time.perf_counter()
        versions = hint_ladder.digests(exercises, self.options)

        def draw(verdict):
            verdict, notes = self.ladder.apply(verdict, versions, hints=self.hints, attempt=False)
            for note in notes:
                self.notes(note)
            self.latest.update((result.id, result) for result in verdict.exercises)
            report = GradeReport([self.latest[e.id] for e in self.exercises if e.id in self.latest],
                                 verdict.device, verdict.seed, verdict.wall_time, containment=verdict.containment)
            self.show(report, [e.id for e in exercises], time.perf_counter() - started)
            return report

        def tests_done(verdict):  # the verdict first; the tiers once they are measured
            draw(dataclasses.replace(verdict, exercises=[_timing(result) for result in verdict.exercises]))

        return draw(runner.grade(exercises, self.options, launcher=self.launcher,
                                 on_verdict=tests_done if self.drafts else None))

    def changed(self, before):
        """(the exercises whose files changed since `before`, the new snapshot), waiting until the
        files stop changing (an editor may write a file in several steps)."""
        now = snapshot(self.exercises, self.options)
        if now == before:
            return [], before
        while True:
            time.sleep(SETTLE)
            settled = snapshot(self.exercises, self.options)
            if settled == now:
                break
            now = settled
        return [e for e in self.exercises if now[e.id] != before.get(e.id)], now

    def run(self, rounds=None):
        """Grade everything, then poll; `rounds`: stop after that many re-grades (None: never,
        until Ctrl-C, which the caller handles)."""
        seen = snapshot(self.exercises, self.options)
        self.grade(self.exercises)
        done = 0
        while rounds is None or done < rounds:
            time.sleep(self.options.watch_interval)
            exercises, seen = self.changed(seen)
            if exercises:
                self.grade(exercises)
                done += 1


def _timing(result):
    """The result of an exercise whose tier is being measured, "timing…" in its tier's place."""
    return dataclasses.replace(result, tier=dict(TIMING)) if result.passed and catalog.find(result.id).timed else result


def status_line(graded, seconds, width=80):
    """What was graded when, and how to go on: the line under each report, wrapped to `width`."""
    when = datetime.now().strftime("%H:%M:%S")
    what = ", ".join(graded) if len(graded) <= 2 else f"{len(graded)} exercises"
    return textwrap.fill(f"watching: {what} graded {when} ({seconds:.2f} s); save to regrade, Ctrl-C to stop.",
                         max(width, 40), subsequent_indent="  ")
