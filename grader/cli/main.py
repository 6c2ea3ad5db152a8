"""`lumen-grade`: Click commands only. Parse, call the runner, print the report, set the exit code.

Exit codes: 0 every selected exercise passed, 1 something failed, 2 a usage error, 130 interrupted.
"""

import contextlib
import ctypes
import difflib
import io
import itertools
import json
import os
import re
import shlex
import shutil
import signal
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

import click

from grader import catalog
from grader.course import batch, classbook, ladder
from grader.sandbox import files
from grader.course import gradescope
from grader.reports import formats, text as report
from grader.reports import gradescope as gradescope_results
from grader.grading.results import clean_text
from grader.grading.settings import COURSE_FILE, DEFAULTS, RUN_MARGIN, Settings, overrun
from grader.grading.submission import (NOTEBOOK_SUFFIX, SubmissionError, candidates, find_file, is_notebook, listing,
                                       misnamed, notebook_owner, written_notebook_below, wrong_exercise)

FIRST, LAST = catalog.EXERCISES[0], catalog.EXERCISES[-1]
NUMBERS = f"{FIRST.number}–{LAST.number}"  # "1–8"
EXERCISE_NAMES = f"{FIRST.id} … {LAST.id} (or just {NUMBERS})"
ALL_EXERCISES = f"all {len(catalog.EXERCISES)} exercises"


class InstructorCommand(click.Command):
    """A command listed under "Instructor commands" in `lumen-grade --help`, after the student's."""


class InstructorOption(click.Option):
    """An option listed under "Instructor and course CI options" in --help, after the student's."""


class StudentFirstCommand(click.Command):
    """A command whose --help lists the student's options first and the instructors' under a heading."""

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as error:  # `lumen-grade 3 4` (round 80): say how to grade more than one
            exercises = {exercise.id for exercise in catalog.EXERCISES}
            if self.name in exercises and "unexpected extra argument" in error.message:
                error.message += (f": grade one exercise at a time (lumen-grade {self.name}), or every one: "
                                  "lumen-grade all")
            raise

    def format_options(self, ctx, formatter):
        groups = {False: [], True: []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None:
                groups[isinstance(param, InstructorOption)].append(record)
        for instructors, title in ((False, "Options"), (True, "Instructor and course CI options")):
            if groups[instructors]:
                with formatter.section(title):
                    formatter.write_dl(groups[instructors])


def instructor_option(*names, **settings):
    """click.option, listed under the instructors' heading of --help."""
    return click.option(*names, cls=InstructorOption, **settings)


class SharedOption:
    """An option declared once, added to every command that takes it: `OPTION()` as declared,
    `OPTION(help=...)` with the command's own words, `OPTION(instructor=True)` under the
    instructors' heading of --help."""

    def __init__(self, *names, **settings):
        self.names, self.settings = names, settings

    def __call__(self, instructor=False, dest=None, **changes):
        """`dest`: the parameter's name, when a command names it after a settings field."""
        return click.option(*self.names, *([dest] if dest else []), cls=InstructorOption if instructor else click.Option,
                            **{**self.settings, **changes})


SUBMISSION = SharedOption("--submission", type=click.Path(path_type=Path), default=DEFAULTS.submission,
                          show_default=True, help="Folder holding your exercise files.")
NOTEBOOK = SharedOption("--notebook", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                        help="Grade this notebook's code cells (instead of looking in --submission).")
DEVICE = SharedOption("--device", type=click.Choice(["auto", "cpu", "cuda"]), default=DEFAULTS.device, show_default=True,
                      help="auto: the CPU, plus CUDA when a GPU is present.")
NO_PERF = SharedOption("--no-perf", is_flag=True,
                       help="Skip the performance tiers (timing your code against the reference).")
SEED = SharedOption("--seed", type=int, default=DEFAULTS.seed, show_default=True,
                    help="Seed of the random test inputs; the same seed gives the same inputs, but for a few calls "
                         "whose arguments are drawn anew at each grading (a table of answers passes none).")
TIMEOUT = SharedOption("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULTS.time_limit,
                       show_default=True,
                       help="Seconds your code may run, per exercise.")
SUITES = SharedOption("--suites", type=click.Path(exists=True, file_okay=False, path_type=Path), multiple=True,
                      help="A folder of extra test_exerciseN*.py suites (repeatable).")
HIDDEN_VISIBILITY = SharedOption("--hidden-visibility", type=click.Choice(list(gradescope_results.VISIBILITIES)),
                                 default=gradescope_results.HIDDEN_VISIBILITY, show_default=True,
                                 help="Gradescope: when students see the hidden checks.")
CLASS_TIMEOUT = TIMEOUT(help="Seconds a student's code may run, per exercise.")


class CourseFile(click.ParamType):
    """A course file (TOML) -> its Policy (grader.course.policy): a bad one is refused naming its key."""

    name = "file"

    def convert(self, value, param, ctx):
        from grader.course import policy

        if isinstance(value, policy.Policy):
            return value
        try:
            return policy.load(value)
        except policy.PolicyError as error:
            self.fail(str(error), param, ctx)


def _course_default():
    """./lumen-course.toml where there is one, else the settings' policy."""
    return COURSE_FILE if COURSE_FILE.is_file() else DEFAULTS.policy


COURSE = SharedOption("--course", "policy", type=CourseFile(), envvar="LUMEN_COURSE", default=_course_default,
                      show_default=f"$LUMEN_COURSE, else ./{COURSE_FILE} where there is one",
                      help="The course file (TOML): the hint levels shown, before and after the due date, and "
                           "whether the tier and hidden checks are.")
class OneWord(click.Choice):
    """An option that takes one word, whose error says what the option does (round 80: `--hint 2` got
    Click's "'2' is not 'next'", with no word of how the levels go)."""

    def __init__(self, word, meaning):
        super().__init__([word])
        self.meaning = meaning

    def convert(self, value, param, ctx):
        if value == self.choices[0]:
            return value
        self.fail(f"{value!r}: write {param.opts[0]} {self.choices[0]}, which {self.meaning}", param, ctx)


LEVELS = "the levels climb one at a time; --hints all shows every level the course allows now"
HINTS = SharedOption("--hints", type=OneWord(ladder.ALL, "shows every level of each mistake's hint ladder that the "
                                                      "course allows now"),
                     help="Show every level of each mistake's hint ladder that the course allows now.")
HINT = SharedOption("--hint", type=OneWord(ladder.NEXT, f"climbs each mistake's hint ladder one level ({LEVELS})"),
                    help="Climb each mistake's hint ladder one level now (as `lumen-grade hint EXERCISE`).")


def _apply(options, command):
    for option in reversed(options):
        command = option(command)
    return command


def _apply_options(options):
    """A decorator adding `options` (a list of option decorators) to a command."""
    return lambda command: _apply(options, command)


def student_options(command):
    """The options a student uses, shared by the grading commands and `watch`."""
    return _apply([
        SUBMISSION(),
        click.option("-v", "--verbose", is_flag=True, help="List every test, with its points."),
        DEVICE(),
        NO_PERF(dest="perf", flag_value=False, default=DEFAULTS.perf),
        click.option("--no-color", is_flag=True,
                     help="No colours (also when NO_COLOR is set, or the output is not a terminal)."),
        HINTS(),
        COURSE(instructor=True),
    ], command)


def grading_options(command):
    """The options every grading command shares: the student's, then the instructors'."""
    return _apply([
        student_options,
        HINT(),
        *report_options(),
    ], command)


def report_options():
    """Where the report goes, in which format, and how the run is set up: the instructors' options."""
    return [
        instructor_option("--format", "fmt", type=click.Choice(list(formats.RENDERERS)), default="text",
                          show_default=True,
                          help="Report for a person (text; html: a self-contained feedback page) or a machine "
                               "(json, gradescope, junit)."),
        HIDDEN_VISIBILITY(instructor=True),
        instructor_option("--output", type=click.Path(dir_okay=False, path_type=Path),
                          help="Write the report to this file instead of the terminal."),
        *run_options(),
    ]


def run_options():
    """The options that set up a grading run, listed under the instructors' heading."""
    return [
        SEED(instructor=True),
        TIMEOUT(instructor=True, dest="time_limit"),
        instructor_option("--total-timeout", "total_time_limit", type=click.FloatRange(min=0, min_open=True),
                          default=DEFAULTS.total_time_limit,
                          help="Seconds the whole run may take, every exercise's import, tests and timing "
                               "together; what is left then is reported as out of time.  [default: "
                               f"{RUN_MARGIN:g} + --timeout per exercise]"),
        instructor_option("--memory-limit", type=MemorySize(), default=MemorySize.text(DEFAULTS.memory_limit),
                          show_default=True,
                          help="Memory your code may use beyond the grader's own: 512M, 4G (a bare number: MiB)."),
        SUITES(instructor=True),
        instructor_option("--no-builtin-suites", "builtin_suites", is_flag=True, flag_value=False,
                          default=DEFAULTS.builtin_suites,
                          help="Run only the --suites folders, not the built-in hidden suites."),
        instructor_option("--perf-points", type=click.FloatRange(min=0), default=DEFAULTS.perf_points, show_default=True,
                          help="Points each exercise's performance tier is worth (0: informative)."),
        instructor_option("--score-reaching", "hold_reaching", is_flag=True, flag_value=False,
                          default=DEFAULTS.hold_reaching,
                          help="Score a file that reaches into the process that runs it (sys, gc, ctypes, frames, "
                               "torch's private names) as any other, instead of holding its points for a person's "
                               "review: for a course whose own exercises need such code."),
    ]



def text_style(no_color, stream=None):
    """(color, width) for the text report on `stream` (stdout): colour only on a terminal, without
    NO_COLOR or --no-color; the terminal's width there, else $COLUMNS or 80."""
    stream = stream or sys.stdout
    terminal = bool(getattr(stream, "isatty", lambda: False)())
    color = terminal and not no_color and not os.environ.get("NO_COLOR")
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return color, int(columns)
    return color, shutil.get_terminal_size((80, 24)).columns if terminal else 80


class MemorySize(click.ParamType):
    """A size in bytes written as 512M, 4G, 1.5GiB; a bare number is MiB."""

    name = "size"
    UNITS = {"": 1 << 20, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", str(value), re.IGNORECASE)
        if not match or float(match.group(1)) <= 0:
            self.fail(f"{value!r} is not a size: write it like 512M or 4G", param, ctx)
        return int(float(match.group(1)) * self.UNITS[match.group(2).lower()])

    @staticmethod
    def text(size):
        """4294967296 -> '4G': a size as --help shows its default."""
        for unit in "tgmk":
            if size % MemorySize.UNITS[unit] == 0:
                return f"{size // MemorySize.UNITS[unit]}{unit.upper()}"
        return str(size)


def run_grading(exercises, *, fmt, output, hidden_visibility, verbose, no_color, hint=None, hints=None, **given):
    """Grade, choose each mistake's hint level (its ladder climbs one level with `hint` next),
    print or write the report, and exit with the verdict's code."""
    options = grading_run(exercises, **given)
    if output is not None:
        try:
            files.check_destination(output)
        except files.UnsafeFile as error:
            raise click.UsageError(f"--output {error}") from None
    from grader.grading import runner  # imports torch: not needed for --help, list or a usage error

    versions = ladder.digests(exercises, options)  # the versions graded, before anyone saves again
    try:
        limit = options.run_limit(len(exercises))
        with ending_on_signals(after=limit + overrun(limit)), still_grading(options.time_limit):
            verdict = runner.grade(exercises, options)
    except runner.DeviceUnavailable as error:
        raise click.UsageError(str(error)) from None
    except runner.GraderError as error:
        raise click.ClickException(str(error)) from None
    except Stopped as stop:  # every child is gone and every temporary folder removed by now
        if stop.signum == OVERRUN_SIGNAL:
            click.echo(f"stopped: the run went {overrun(limit):g} s past the time limit of the whole run "
                       f"({limit:g} s, --total-timeout) and the grader had not ended it: nothing graded (the "
                       "grader's own code, or an instructor's suite, is stuck: please report it)", err=True)
            click.get_current_context().exit(124)
        click.echo(f"stopped by {stop.name}: nothing graded", err=True)
        click.get_current_context().exit(128 + stop.signum)
    verdict, notes = ladder.Ladder(options.policy, ladder.state_folder(options)).apply(
        verdict, versions, hint=hint, hints=hints)
    if hint and not any(result.diagnoses for result in verdict.exercises):
        notes.append("no mistake was diagnosed: there is no hint to climb to")
    notes += _work_not_graded(verdict, options)
    for note in notes:
        click.echo(note, err=True)
    color, width = text_style(no_color) if output is None else (False, 80)
    render_options = {"text": {"color": color, "width": width, "verbose": verbose, "device_skips": options.device == "auto",
                               "policy": options.policy},
                      "html": {"policy": options.policy},
                      "gradescope": {"hidden_visibility": hidden_visibility, "policy": options.policy}}
    rendered = formats.RENDERERS[fmt](verdict, **render_options.get(fmt, {}))
    if output is None:
        click.echo(rendered, nl=False, color=color)
    else:
        _write_report(output, rendered)
        click.echo(f"{_points(verdict)}: wrote the {fmt} report to {output}")
    click.get_current_context().exit(0 if verdict.passed else 1)


def _work_not_graded(verdict, options):
    """For each exercise graded from its untouched .py stub, the student's work it passed over, and what to do: a
    file named nearly as the exercise beside it (round 86: exercise2.py), or a notebook of it written in a folder
    below (round 80 did exercise 5 in exercises/notebooks/ and ran `lumen-grade 5`)."""
    stubs = [result for result in verdict.exercises if not is_notebook(result.file)
             and report.untouched((test.status, test.message) for test in result.tests)]
    if options.notebook is not None or not stubs:
        return []
    try:
        here = listing(options.submission)
    except SubmissionError:  # too large to look through
        return []
    notes = []
    for result in stubs:
        exercise = catalog.find(result.id)
        near = misnamed(exercise, here)
        stub = f"{exercise.id}: {exercise.file_name} is still the stub"
        if near:
            notes.append(f"{stub}, and {clean_text(near[0].name, newlines=False)} is there: name it "
                         f"{exercise.file_name}")
        elif (written := written_notebook_below(exercise, options.submission)) is not None:
            shown = clean_text(os.path.relpath(written, options.submission), newlines=False)
            notes.append(f"{stub}, and your notebook {shown} is not graded by this command: "
                         f"{clean_text(_grade_file_command(exercise, written), newlines=False)}")
    return notes


STILL_GRADING = 10.0  # seconds of a grading after which a terminal is told it goes on


@contextlib.contextmanager
def still_grading(time_limit):
    """On a terminal, a line once a grading has gone on STILL_GRADING seconds: a loop that never ends otherwise
    shows nothing until the time limit (round 80: a minute of silence)."""
    timer = threading.Timer(STILL_GRADING, lambda: click.echo(
        f"still grading after {STILL_GRADING:g} s (an exercise may take {time_limit:g} s before its time limit "
        "stops it; Ctrl-C stops now)", err=True))
    timer.daemon = True
    if sys.stderr.isatty():
        timer.start()
    try:
        yield
    finally:
        timer.cancel()


def grading_run(exercises, **given):
    """The run's Settings, of the options given (named as its fields), once they are known to make
    sense (else a usage error); the submission's folder is taken off this process's sys.path."""
    settings = Settings(**{**given, "suites": list(given.get("suites", ()))})
    submission, notebook, suites = settings.submission, settings.notebook, settings.suites
    if notebook is not None and not is_notebook(notebook):
        raise click.UsageError(_not_a_notebook(notebook, exercises))
    if notebook is None and not submission.is_dir():
        raise click.UsageError(_no_folder(submission))
    if not settings.builtin_suites and not suites:
        raise click.UsageError("--no-builtin-suites needs at least one --suites DIR")
    if not settings.perf and settings.perf_points:
        raise click.UsageError("--perf-points needs the performance tiers: drop --no-perf")
    found = {e: notebook if notebook is not None else _find(e, submission) for e in exercises}
    if not any(found.values()):
        names = ", ".join(e.file_name for e in exercises)
        advice = ": pass --submission DIR with your files, or --notebook FILE"
        near = [(e, path) for e in exercises for path in misnamed(e, listing(submission))]  # exercise3.py
        if near:
            advice = f"; {clean_text(near[0][1].name, newlines=False)} is there: name it {near[0][0].file_name}"
        elif below := _below(exercises, submission):  # hw/week3/ (round 80): what batch would have found
            advice = (f"; {clean_text(os.path.relpath(below, submission), newlines=False)} is in a folder below: pass "
                      f"--submission {clean_text(str(below.parent), newlines=False)}")
        raise click.UsageError(f"no {names} in {os.path.abspath(submission)} (nor an exerciseN_*.ipynb notebook)"
                               + advice)
    if notebook is not None or len(exercises) == 1:  # the file asked for is the wrong one; in `all` (and so in
        for exercise, path in found.items():          # batch) it is that exercise's error alone (round 23's a11)
            _check_notebook_owner(exercise, path)
    # a torch.py or numpy.py beside the student's files must never be what this process imports
    folder = os.path.realpath(submission if notebook is None else notebook.parent)
    sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != folder]
    return settings


def _below(exercises, folder):
    """The first of the exercises' files in a folder below `folder` (where `batch` looks too), or None."""
    try:
        tree = listing(folder, nested=True)
    except SubmissionError:  # too large to look through
        return None
    return next((path for e in exercises for path in candidates(e, folder, nested=True, found=tree)), None)


def _find(exercise, folder):
    """`find_file`, where a folder too large or too deep to look through (SubmissionError: more than
    Settings.tree_entries, round 62's a06) is a usage error that says so, not a traceback."""
    try:
        return find_file(exercise, folder)
    except SubmissionError as error:
        raise click.UsageError(str(error)) from None


def _not_a_notebook(path, exercises):
    """Why `path` given as --notebook is refused, and how its file is graded: a .py file is found
    by its exercise's file name in the --submission folder."""
    owner = _file_owner(path)
    command = owner and _grade_file_command(owner, path)
    if command:
        how = f"to grade that .py file: {command}"
    else:  # --notebook is an option of one exercise's command
        how = (f"a .py file is graded under its exercise's file name, {exercises[0].file_name}, in the "
               f"--submission folder: lumen-grade {exercises[0].id} --submission DIR")
    return f"--notebook {path} is not a notebook (a {NOTEBOOK_SUFFIX} file): {how}"


def _no_folder(submission):
    """Why there is no `submission` folder, and what to type: a student inside exercises/ (its
    exercise files are in the current folder) is told --submission . or cd ..; a file given as the
    folder, to pass its folder."""
    if submission.is_file():
        owner = _file_owner(submission)
        how = (f"to grade it: {_grade_file_command(owner, submission)}" if owner is not None
               else f"pass its folder: --submission {shlex.quote(str(submission.parent))}")
        return f"--submission {submission} is a file, not a folder: {how}"
    try:
        here = [exercise.file_name for exercise in catalog.EXERCISES if find_file(exercise, Path.cwd())]
    except SubmissionError:  # a working folder too large to look through (a home folder): no guess from it
        here = []
    if here:
        more = f" and {len(here) - 1} more" if len(here) > 1 else ""
        up = f", or cd .. (to the folder that holds {submission}/) and run it again" if (
            Path.cwd().name == submission.name) else ""
        return (f"no folder {submission} in {Path.cwd()}, but the exercise files are right here ({here[0]}{more}): "
                f"pass --submission . to grade them{up}")
    near = _near_folder(submission)
    if near is not None:
        return f"no folder {submission} (looked in {os.path.abspath(submission)}): did you mean --submission {near}?"
    return (f"no folder {submission} (looked in {os.path.abspath(submission)}): run from the folder that holds "
            "exercises/, or pass --submission DIR")


def _near_folder(submission, looked_at=1000):
    """The folder beside `submission` whose name is closest to its name (`exercise` for `exercises`), if one
    is close; a bounded look (`looked_at` entries), as the folder may be anyone's large home."""
    try:
        with os.scandir(submission.parent) as entries:
            folders = [entry.name for entry in itertools.islice(entries, looked_at) if _is_folder(entry)]
    except OSError:
        return None
    close = difflib.get_close_matches(submission.name, folders, n=1, cutoff=0.8)
    return shlex.quote(str(submission.parent / close[0])) if close else None


def _is_folder(entry):
    """Whether a folder entry is a folder (or a link to one); not one that cannot be followed (a loop)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _points(verdict):
    return f"{verdict.score:g}/{verdict.max_score:g}"


def _write_report(output, text):
    """Write the report, once every child of the run is dead, to a fresh file (random name,
    O_EXCL, O_NOFOLLOW) renamed over `output`: whatever is at that path (a fake report, a link
    elsewhere) is replaced, never written through."""
    try:
        files.write_replacing(output, text)
    except OSError as error:
        raise click.ClickException(f"cannot write the report to {output}: {error.strerror or error}") from None


class Stopped(Exception):
    """Ctrl-C, SIGTERM or SIGHUP (or the run far past its time limit): grading stops, its children
    and temporary folders go with it."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum, self.name = signum, signal.Signals(signum).name


OVERRUN_SIGNAL = getattr(signal, "SIGALRM", None)
INTERRUPTED = []  # the Ctrl-Cs seen before the grading's own handler (`_on_ctrl_c`)


def _on_ctrl_c(signum, frame):
    """Python's own Ctrl-C (a KeyboardInterrupt), remembered: torch's start-up turns an error raised while it
    imports NumPy, a KeyboardInterrupt too, into a warning and goes on, so a Ctrl-C then must still stop the
    grading once it starts (`ending_on_signals`), and explain the ImportError that can follow (round 80: a
    traceback, or a whole run graded)."""
    INTERRUPTED.append(signum)
    raise KeyboardInterrupt


@contextlib.contextmanager
def ending_on_signals(after=None):
    """While grading, Ctrl-C (even where the grader was started with SIGINT ignored, as a script's
    background job is), SIGTERM and SIGHUP end the run: they raise Stopped (through pytest, as a
    KeyboardInterrupt), so every `finally` runs: the children are killed and the temporary folders
    removed. So does the run going on `after` seconds (where there is SIGALRM): the grader enforces
    the whole run's time limit itself, this is the backstop should it ever fail to. Started by
    `batch`, the grader also dies with it."""
    parent = os.environ.get(PARENT_ENV)
    if parent and sys.platform == "linux":
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
        if str(os.getppid()) != parent:
            raise Stopped(signal.SIGKILL)
    received = []

    def handler(signum, frame):
        received.append(signum)
        raise KeyboardInterrupt

    names = ("SIGINT", "SIGTERM", "SIGHUP") + (("SIGALRM",) if after and OVERRUN_SIGNAL else ())
    signums = [getattr(signal, name) for name in names if hasattr(signal, name)]
    saved = {signum: signal.signal(signum, handler) for signum in signums}
    if after and OVERRUN_SIGNAL:
        signal.setitimer(signal.ITIMER_REAL, after)
    try:
        if INTERRUPTED:  # while the grader loaded, and a library swallowed it
            raise KeyboardInterrupt
        yield
    except KeyboardInterrupt:
        raise Stopped(received[0] if received else signal.SIGINT) from None
    finally:
        if after and OVERRUN_SIGNAL:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for signum, previous in saved.items():
            signal.signal(signum, previous)


PARENT_ENV = "LUMEN_PARENT_PID"  # set by `batch`: the grader dies with the batch that started it


def _check_notebook_owner(exercise, path):
    """A notebook made for another exercise is a usage error (the wrong file was given); one that
    cannot be read is the submission's problem, reported in the exercise's result."""
    if path is None or not is_notebook(path):
        return
    try:
        owner = notebook_owner(path)
    except SubmissionError:
        return
    if owner not in (None, exercise.id):
        raise click.UsageError(wrong_exercise(path, owner, exercise.id, notebook=path))


def unknown_exercise(name, commands=()):
    """The message for a name that is no exercise (nor one of `commands`): the closest valid name
    as a suggestion, then the valid names, compactly."""
    valid = [exercise.id for exercise in catalog.EXERCISES] + list(commands)
    close = difflib.get_close_matches(str(name).lower(), valid, n=1, cutoff=0.5)
    message = f"unknown exercise{' or command' if commands else ''} {name!r}"
    number = re.fullmatch(r"(?:exercise)?0*(\d+)", str(name).lower())  # exercise11 (round 80): how many there are
    numbered = f"there is no exercise {number[1]}: they are numbered {NUMBERS}" if number else ""
    owner = _file_owner(name)
    command = owner and _grade_file_command(owner, Path(name))
    if command:
        message += f" (did you mean {owner.id}? to grade that file: {command})"
    elif owner is not None or close:
        message += f" ({numbered + '; ' if numbered else ''}did you mean {owner.id if owner else close[0]}?)"
    elif numbered:
        message += f" ({numbered})"
    message += f"; exercises: {EXERCISE_NAMES}"
    return message + (f"; commands: {', '.join(commands)}" if commands else "")


def wrap_error(text, width):
    """`text` (Click's usage, hint and `Error: ...` lines) with every line wrapped to `width` with a
    hanging indent, broken only between words: a path or a file name is never split (one longer
    than the line gets a line of its own), so it can be copied whole."""
    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ", break_long_words=False,
                                   break_on_hyphens=False) if line else line
                     for line in text.rstrip("\n").split("\n"))


def _file_owner(name):
    """The exercise whose file or notebook `name` is (a path, or a bare file name), else None."""
    file = Path(str(name)).name
    return next((exercise for exercise in catalog.EXERCISES
                 if file in (exercise.file_name, exercise.stem + NOTEBOOK_SUFFIX)), None)


def _grade_file_command(exercise, path):
    """The command that grades the file at `path`: `lumen-grade exercise3` for
    exercises/exercise3_scaling.py, and for a bare exercise3_scaling.py that is not in the current
    folder but in exercises/; with --submission (or --notebook) for a file elsewhere; None where
    there is no such file."""
    default = Path(SUBMISSION.settings["default"])
    if not path.is_file() and (default / path.name).is_file():
        path = default / path.name
    if not path.is_file():
        return None
    if is_notebook(path):
        return f"lumen-grade {exercise.id} --notebook {shlex.quote(str(path))}"
    folder = path.parent
    in_default = folder == default or (folder.is_dir() and default.is_dir() and folder.samefile(default))
    return f"lumen-grade {exercise.id}" + ("" if in_default else f" --submission {shlex.quote(str(folder))}")


def show_error(error, file=None):
    """Show a ClickException as Click does, wrapped (`wrap_error`) to the width of the terminal
    (80 when not a terminal), like the report."""
    file = file or sys.stderr  # click.get_text_stream is deprecated in Click 8.3+
    shown = io.StringIO()
    error.show(shown)
    click.echo(wrap_error(shown.getvalue(), max(text_style(True, file)[1], 40)), file=file)


class LumenGrade(click.Group):
    """A group whose commands include one per exercise: `exercise3`, or just `3`."""

    def list_commands(self, ctx):
        return [*super().list_commands(ctx), *(exercise.id for exercise in catalog.EXERCISES)]

    def get_command(self, ctx, name):
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        try:
            exercise = catalog.find(name)
        except catalog.UnknownExercise:
            return None
        return _exercise_command(exercise)

    def format_commands(self, ctx, formatter):
        """The student's commands first (the exercise commands in one row), then the instructors'."""
        exercise_ids = {exercise.id for exercise in catalog.EXERCISES}
        rows = {False: [], True: []}
        for name in super().list_commands(ctx):
            command = self.commands[name]
            if not command.hidden:
                rows[isinstance(command, InstructorCommand)].append((name, command.get_short_help_str(60)))
        rows[False].insert(0, (f"{FIRST.id} … {LAST.number}",
                               f"Grade one exercise (or just: {FIRST.number} … {LAST.number})."))
        for instructors, title in ((False, "Commands"), (True, "Instructor commands")):
            with formatter.section(title):
                formatter.write_dl([row for row in rows[instructors] if row[0] not in exercise_ids])

    def resolve_command(self, ctx, args):
        if args and self.get_command(ctx, args[0]) is None and not args[0].startswith("-"):
            commands = [name for name in super().list_commands(ctx) if not self.commands[name].hidden]
            raise click.UsageError(unknown_exercise(args[0], commands), ctx)
        return super().resolve_command(ctx, args)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Click's main, with its error messages wrapped to the terminal (see `show_error`)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        remember = signal.getsignal(signal.SIGINT) is signal.default_int_handler  # not where it is ignored
        if remember:
            signal.signal(signal.SIGINT, _on_ctrl_c)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.ClickException as error:
            show_error(error)
            sys.exit(error.exit_code)
        except (click.Abort, Exception) as error:  # Ctrl-C before the grading started: as after (128 + SIGINT)
            if not isinstance(error, click.Abort) and not INTERRUPTED:
                raise
            click.echo("Aborted!", err=True)
            sys.exit(130)
        finally:
            if remember:
                signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.exit(code if isinstance(code, int) else 0)


def _exercise_command(exercise):
    @click.command(name=exercise.id, cls=StudentFirstCommand,
                   help=f"Grade {exercise.id}: {exercise.title} ({exercise.file_name}).")
    @grading_options
    @NOTEBOOK()
    def grade_one(**options):
        run_grading([exercise], **options)

    return grade_one


@click.group(cls=LumenGrade, context_settings={"help_option_names": ["-h", "--help"]}, help=f"""
    Grade your Lumen attention exercises: run it from the folder that holds exercises/.

    \b
    lumen-grade exercise3            grade one exercise (also: lumen-grade 3)
    lumen-grade watch exercise3      grade it again each time you save the file
    lumen-grade all                  grade {ALL_EXERCISES}
    lumen-grade exercise3 -v         list every test
    lumen-grade exercise3 --help     every option
    """)
@click.version_option(package_name="lumen-attention-kit", message="lumen-grade %(version)s")
def main():
    pass


@main.command(name="all", cls=StudentFirstCommand, short_help=f"Grade {ALL_EXERCISES}.", help=f"Grade {ALL_EXERCISES}.")
@grading_options
def grade_all(**options):
    run_grading(list(catalog.EXERCISES), **options)


@main.command(name="hint", cls=StudentFirstCommand, short_help="The next hint for your mistake in an exercise.")
@click.argument("exercise", callback=lambda ctx, param, name: _exercises(name))
@student_options
@NOTEBOOK()
@_apply_options(report_options())
def hint_command(exercise, **options):
    """Grade EXERCISE (exercise3, or just 3) and show the next level of each mistake's hint: first
    what is wrong, then the smallest example that shows it, then the mistake named, then the fix,
    as far as the course allows before the due date. Each new version of your file that keeps the
    mistake climbs one level too; delete the .lumen folder beside your file to start again."""
    run_grading(exercise, hint=ladder.NEXT, **options)


@main.command(name="list", short_help="The exercises, their files and chapter sections.")
@SUBMISSION(help="Folder to look for the exercise files in.")
def list_exercises(submission):
    """The exercises, their files, and the chapter section each one practises."""
    rows = []
    for exercise in catalog.EXERCISES:
        path = _find(exercise, submission)
        rows.append((exercise.id, (path or submission / exercise.file_name).name, "found" if path else "missing",
                     f"{exercise.title}  (chapter: {exercise.section})"))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]  # columns line up
    for *columns, described in rows:
        click.echo("  ".join(text.ljust(width) for text, width in zip(columns, widths)) + f"  {described}")


@main.command(name="watch", cls=StudentFirstCommand,
              short_help="Grade again each time you save a file (Ctrl-C to stop).")
@click.argument("exercise", required=False, callback=lambda ctx, param, name: _exercises(name))
@student_options
@NOTEBOOK(help="Watch and grade this notebook (give the EXERCISE too).")
@instructor_option("--interval", "watch_interval", type=click.FloatRange(min=0.05), default=DEFAULTS.watch_interval,
                   show_default=True,
                   help="Seconds between two looks at the files.")
@_apply_options(run_options())
def watch_command(exercise, verbose, no_color, hints, **given):
    """Grade EXERCISE now and again each time you save its file or notebook, until Ctrl-C. Each
    re-grade clears the terminal and shows the short report again. A save is not an attempt: each
    mistake's hint stays at its level (`lumen-grade hint EXERCISE` climbs it, shown at the next save).

    EXERCISE: the one to watch, as for grading (exercise3, or just 3); without it, every exercise
    is watched and each save re-grades the exercise whose file changed."""
    from grader.course import watch

    if given["notebook"] is not None and len(exercise) != 1:
        raise click.UsageError("--notebook FILE needs the exercise it holds: lumen-grade watch exercise3 "
                               "--notebook FILE")
    options = grading_run(exercise, **given)
    color, width = text_style(no_color)
    terminal = sys.stdout.isatty()

    def show(verdict, graded, seconds):
        if terminal:
            click.clear()
        text = report.render_text(verdict, color=color, width=width, verbose=verbose,
                                  device_skips=options.device == "auto", policy=options.policy)
        click.echo(text + watch.status_line(graded, seconds, width), color=color)

    from grader.grading import runner

    try:  # Ctrl-C (even in a script's background job, started with SIGINT ignored), SIGTERM or a
        # closed terminal (SIGHUP) stop the watch, its children and its temporary folders
        with ending_on_signals(), watch.Watcher(exercise, options, show, drafts=terminal, hints=hints,
                                                notes=lambda line: click.echo(line, err=True)) as watcher:
            watcher.run()
    except Stopped as stop:
        click.echo("\nstopped watching.")
        if stop.signum != signal.SIGINT:
            click.get_current_context().exit(128 + stop.signum)
    except runner.DeviceUnavailable as error:
        raise click.UsageError(str(error)) from None
    except runner.GraderError as error:
        raise click.ClickException(str(error)) from None


def _exercises(name):
    """An EXERCISE argument -> [that exercise]; none given: every exercise."""
    if name is None:
        return list(catalog.EXERCISES)
    try:
        return [catalog.find(name)]
    except catalog.UnknownExercise:
        raise click.BadParameter(unknown_exercise(name)) from None


def _exercise_list(ctx, param, names):
    """--exercise NAME (repeatable) -> catalogue exercises; none given: every exercise."""
    try:
        return [catalog.find(name) for name in names]
    except catalog.UnknownExercise as error:
        raise click.BadParameter(unknown_exercise(error.args[0])) from None


def gradescope_options(command):
    """The run settings a Gradescope bundle carries into the container."""
    options = [
        HIDDEN_VISIBILITY(),
        CLASS_TIMEOUT,
        click.option("--exercise", "exercises", multiple=True, callback=_exercise_list,
                     help=f"Grade only this exercise (repeatable; default: {ALL_EXERCISES})."),
        SUITES(help="A folder of private test_exerciseN*.py suites (repeatable)."),
        NO_PERF(help="Skip the performance tiers (and the leaderboard)."),
        click.option("--printed-visibility", type=click.Choice(list(gradescope_results.VISIBILITIES)),
                     default=gradescope_results.PRINTED_VISIBILITY, show_default=True,
                     help="When students see what their code printed (Gradescope's stdout_visibility)."),
        COURSE(help="The course file (TOML) the bundle carries: the hint levels shown before and after the due "
                    "date (Gradescope's, unless it sets one), whether the tier and hidden checks are shown."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@main.command(cls=InstructorCommand, name="gradescope-bundle",
              short_help="Write a Gradescope autograder zip (tested on solutions/).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("autograder.zip"),
              show_default=True, help="The zip to write.")
@click.option("--torch", metavar="VERSION",
              help="The torch release setup.sh installs.  [default: the one installed here]")
@gradescope_options
def gradescope_bundle(out, **settings):
    """Write a Gradescope autograder zip (setup.sh, run_autograder, the kit), after grading the
    solutions with its settings on the CPU: they must score full marks, and their score is the
    total to enter as the assignment's points."""
    try:
        gradescope.require_checkout()
        gradescope.torch_pin(settings["torch"])  # a torch Gradescope cannot install: refused before grading
    except gradescope.BundleError as error:
        raise click.UsageError(str(error)) from None
    score, total = gradescope.solutions_points(settings["exercises"], settings["suites"], settings["timeout"])
    if score != total:
        raise click.ClickException(f"solutions/ scores {score:g} of {total:g} with this bundle's suites: "
                                   "a bundle must give the solutions full marks (see lumen-grade check)")
    names = gradescope.build_bundle(out, **settings)
    click.echo(f"wrote {out} ({len(names)} files): upload it as the autograder of a Gradescope "
               "programming assignment (base image: Ubuntu 22.04 or later)")
    click.echo(f"total points: {total:g} (enter this as the assignment's points: what the solutions score "
               "on Gradescope's CPU)")


@main.command(name="gradescope-run", hidden=True)
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), envvar=gradescope.ROOT_ENV,
              default=gradescope.DEFAULT_ROOT, show_default=True, help="Gradescope's /autograder folder.")
@gradescope_options
def gradescope_run(root, **settings):
    """Inside Gradescope: grade ROOT/submission into ROOT/results/results.json (run_autograder calls it),
    which is written even where the run goes past its whole time limit (the backstop of `ending_on_signals`:
    round 59's a03 held the judge for minutes, and Gradescope got no results)."""
    started = time.monotonic()
    limit = Settings(time_limit=settings["timeout"]).run_limit(len(settings["exercises"] or catalog.EXERCISES))
    try:
        with ending_on_signals(after=limit + overrun(limit)):
            results = gradescope.run(root, **settings)
    except Stopped as stop:
        why = (f"it ran {overrun(limit):g} s past its time limit of {limit:g} s and was stopped"
               if stop.signum == OVERRUN_SIGNAL else f"it was stopped by {stop.name}")
        results = gradescope.write_results(root, gradescope.failed(why), started)
    click.echo(f"{results['score']:g} points: wrote {root / 'results' / 'results.json'}")


def _shard(ctx, param, value):
    try:
        return None if value is None else classbook.parse_shard(value)
    except classbook.ClassbookError as error:
        raise click.BadParameter(str(error)) from None


def _roster(ctx, param, value):
    try:
        return None if value is None else classbook.read_roster(value)
    except classbook.ClassbookError as error:
        raise click.BadParameter(str(error)) from None


ROSTER = SharedOption(
    "--roster", type=click.Path(exists=True, dir_okay=False, path_type=Path), callback=_roster,
    help="CSV of the class (student_id, name, email): a row per rostered student, `missing` for one "
         "without a submission; the class's folders are matched by id, email or name (one key for the class).")
ROSTER_OPTION = ROSTER()
RELEASED_STUBS = Path("exercises")  # what `release` writes: the stubs an anonymised example is diffed against
STUBS = click.option(  # the class report's, in `class-report` and `batch --class-report`
    "--stubs", type=click.Path(file_okay=False, path_type=Path), default=RELEASED_STUBS, show_default=True,
    help="The released stubs, for the class report: an example shows the student's lines that differ from them, "
         "and --similarity does not count them.")
FEEDBACK_OPTION = click.option(
    "--feedback", type=click.Path(file_okay=False, path_type=Path),
    help="Also write a feedback page per student into this folder (STUDENT.html, self-contained).")


@main.command(cls=InstructorCommand, name="batch",
              short_help="Grade a class, a folder per student, into a gradebook.")
@click.argument("submissions_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=Path("grades.csv"),
              show_default=True, help="The CSV gradebook; a JSON per student goes in a folder beside it "
                                      "(grades.csv -> grades/).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True,
              help="Students graded at the same time.")
@CLASS_TIMEOUT
@click.option("--student-timeout", type=click.FloatRange(min=0, min_open=True),
              help="Seconds one student's whole grading may take: their grader's --total-timeout, so that it "
                   "reports what it graded by then and the rest as out of time.  "
                   f"[default: {len(catalog.EXERCISES)} × --timeout + 60, one --timeout per exercise]")
@DEVICE()
@SEED(help="Seed of the random test inputs.")
@NO_PERF(help="Skip the performance tiers (faster; no tier column).")
@click.option("--force", is_flag=True, help="Regrade students who already have a report.")
@click.option("--shard", metavar="K/N", callback=_shard,
              help="Grade only shard K of N (K from 0 to N-1; a student's shard is a hash of their "
                   "folder name); combine the shards' outputs with `lumen-grade merge`.")
@ROSTER_OPTION
@FEEDBACK_OPTION
@COURSE(help="The course file (TOML) the students' reports follow: each mistake shows every hint level it "
             "allows at grading time.")
@click.option("--class-report", is_flag=True,
              help="Also write the class report beside the CSV (class-report.html, class-report.json, "
                   "misconceptions.csv; see `lumen-grade class-report --help`).")
@STUBS
def batch_command(submissions_dir, out, feedback, class_report, stubs, **settings):
    """Grade every student folder in SUBMISSIONS_DIR (.py files or notebooks, at any depth), in
    parallel, into a CSV gradebook. Run it again to resume where it stopped.

    Exit codes: 0 every student has a row, 1 a row is an error (the grader failed on a student, or a
    roster row several folders claim), 2 a usage error, 130 interrupted (the gradebook holds the
    students finished).
    """
    if out.suffix.lower() != ".csv":
        raise click.UsageError(f"--out {out}: name a .csv file (the JSON reports go in a folder beside it)")
    if settings["shard"] and settings["roster"]:
        raise click.UsageError("--roster applies to the whole class: give it to `lumen-grade merge`, "
                               "not to one --shard")
    if settings["shard"] and class_report:
        raise click.UsageError("--class-report is about the whole class: run `lumen-grade class-report` on "
                               "the output of `lumen-grade merge`, not on one --shard")
    if class_report and feedback and os.path.abspath(feedback) == os.path.abspath(out.parent):  # round 82's a06
        raise click.UsageError(f"--feedback {feedback} is where --class-report writes (beside {out.name}): a student "
                               "named class-report would have one page for both; give the pages a folder of their own")
    for option, path in (("--out", out), ("--feedback", feedback)):
        if path is not None and batch.inside(path, submissions_dir):  # round 83's a15: a student named grades
            raise click.UsageError(
                f"{option} {path} is inside the class folder {submissions_dir}, where a student's folder of the same "
                f"name would be read as the grader's own (the reports of --out go in {batch.reports_folder(out).name}/ "
                "beside it): write outside the class folder, e.g. --out ../grades.csv")
    if settings["device"] == "cuda":
        from grader.grading import runner  # imports torch

        try:
            runner.resolve_devices("cuda")
        except runner.DeviceUnavailable as error:
            raise click.UsageError(str(error)) from None
    everyone = batch.students(submissions_dir)
    if not everyone:
        raise click.UsageError(f"no student folders in {submissions_dir}: give the folder that holds one "
                               "sub-folder per student")
    if _one_students_folder(submissions_dir, everyone):
        click.echo(f"warning: {submissions_dir} looks like one student's folder (it holds exercise files, or only "
                   f"{DEFAULTS.submission}/): batch grades each folder in it as a student; give the folder that holds "
                   "one folder per student", err=True)
    if settings["roster"]:
        _check_roster(settings["roster"], [student.name for student in everyone])
    try:
        records = batch.run(submissions_dir, out, batch.Settings(**settings),
                            progress=lambda line: click.echo(line, err=True))
    except batch.Interrupted as stop:
        click.echo(f"interrupted: {stop.done} of {stop.total} students are in {out}; run the same "
                   "command again to grade the rest", err=True)
        click.get_current_context().exit(130)
    except OSError as error:  # a full disk (round 83's a11): no traceback, and what to do
        raise click.ClickException(f"cannot write the gradebook or a student's record beside {out} ({error}): "
                                   "the students recorded so far are kept; make room and run the same command "
                                   "again") from None
    if feedback:
        _write_feedback(feedback, records)
    if class_report:
        _write_class_report([batch.reports_folder(out)], out.parent, roster=settings["roster"],
                            submissions=submissions_dir, stubs=stubs)
    shard = f" (shard {settings['shard'][0]}/{settings['shard'][1]})" if settings["shard"] else ""
    click.echo(f"{_gradebook_counts(records, settings['roster'])} in {out}{shard}; "
               f"reports in {batch.reports_folder(out)}/" + _not_on_roster(records, settings["roster"], out))
    click.get_current_context().exit(1 if _error_rows(records, settings["roster"]) else 0)


def _error_rows(records, roster):
    """Whether a row of the gradebook is an error: a student the grader failed on, or a roster row that several
    folders claim or whose folder is on several rows (round 84's a08: exit 0 beside such a row)."""
    return any(record["status"] == "error" for _, record in classbook.gradebook_records(records, roster))


def _one_students_folder(folder, everyone):
    """Whether the class folder given to batch looks like one student's (round 86 gave `submissions/20260001`, and
    batch graded a student named `exercises`): exercise files in it, or `exercises/` its only folder."""
    try:
        files_here = any(find_file(exercise, folder) for exercise in catalog.EXERCISES)
    except SubmissionError:  # too large to look through: no guess
        files_here = False
    return files_here or [student.name for student in everyone] == [Path(DEFAULTS.submission).name]


def _gradebook_counts(records, roster):
    """"3 students (2 graded, 1 missing)": the rows of the gradebook `records` make, by status."""
    rows = classbook.gradebook_records(records, roster)
    statuses = Counter(record["status"] for _, record in rows)
    return f"{len(rows)} students ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))})"


def _not_on_roster(records, roster, out):
    """What became of the folders on no roster row: graded, their reports kept, no row in the CSV."""
    unknown = classbook.match_roster(roster, records).left_out() if roster else []
    return (f"; {len(unknown)} folder(s) not on the roster graded but not in the CSV (reports kept in "
            f"{batch.reports_folder(out)}/): {', '.join(unknown)}") if unknown else ""


def _check_roster(roster, names, incomplete=False):
    """Say how the folders meet the roster: those on no row, the students several folders claim
    (`incomplete`: `names` are those of the shards given, and some are missing)."""
    matching = classbook.match_roster(roster, names)
    if matching.unknown:
        click.echo(f"warning: {len(matching.unknown)} folder(s) not on the roster (the class's folders are named "
                   f"by {matching.by}), graded but not in the CSV (their reports are kept): "
                   f"{', '.join(matching.unknown)}", err=True)
    for student, folders in matching.claimed.items():
        click.echo(f"warning: {len(folders)} folders claim student {student} ({', '.join(folders)}): their row is "
                   "an error until one is renamed; each is graded under its own name", err=True)
    for folder, students in dict(matching.shared.values()).items():
        click.echo(f"warning: the folder {folder} is named after {len(students)} roster rows ({', '.join(students)}): "
                   "their rows are errors until the roster tells them apart", err=True)
    absent = len(roster) - len(matching.matched) - len(matching.claimed) - len(matching.shared)
    if absent:
        click.echo(f"{absent} rostered student(s) without a submission"
                   f"{' in the shards given (the missing ones may hold some)' if incomplete else ''}: status "
                   "`missing`", err=True)


def _write_feedback(folder, records):
    from grader.reports import html as feedback  # the HTML page

    folder.mkdir(parents=True, exist_ok=True)
    for name, record in records.items():
        files.write_replacing(folder / f"{name}.html", feedback.render_record(record))
    click.echo(f"wrote {len(records)} feedback page(s) into {folder}/", err=True)


@main.command(cls=InstructorCommand, name="merge",
              short_help="Combine `batch --shard K/N` outputs into one gradebook.")
@click.argument("shard_outputs", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The merged CSV gradebook; the students' JSON reports are copied into a folder beside it.")
@ROSTER_OPTION
@FEEDBACK_OPTION
def merge_command(shard_outputs, out, roster, feedback):
    """Merge SHARD_OUTPUTS (each a shard's grades.csv, or the folder holding it with its reports
    folder) into one gradebook, as one unsharded `batch` would have written it.

    Refuses a student graded by two shards, a shard given twice and shards graded with different
    settings or on different devices. Students a shard did not finish, and shards not given, are
    listed as missing.

    Exit codes: 0 complete, 1 written but students are missing or a row is an error, 2 refused (nothing
    written)."""
    if out.suffix.lower() != ".csv":
        raise click.UsageError(f"--out {out}: name a .csv file (the JSON reports go in a folder beside it)")
    try:
        merged = classbook.merge(shard_outputs)
    except classbook.ClassbookError as error:
        raise click.UsageError(str(error)) from None
    if roster:
        _check_roster(roster, list(merged.records), incomplete=bool(merged.missing))
    reports = batch.reports_folder(out)
    reports.mkdir(parents=True, exist_ok=True)
    for name, record in merged.records.items():
        files.write_replacing(reports / f"{name}.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    files.write_replacing(out, classbook.gradebook_csv(merged.records, roster, shards_left_out=bool(merged.left_out)))
    if feedback:
        _write_feedback(feedback, merged.records)
    for line in merged.missing:
        click.echo(f"missing: {line}", err=True)
    click.echo(f"merged {len(merged.shards)} shard(s): {_gradebook_counts(merged.records, roster)} in {out}"
               + (f"; {len(merged.missing)} missing (listed above)" if merged.missing else "")
               + _not_on_roster(merged.records, roster, out))
    click.get_current_context().exit(1 if merged.missing or _error_rows(merged.records, roster) else 0)


# -- instructors: the class report -----------------------------------------------------------------

def _write_class_report(grades, out, *, roster=None, names=False, submissions=None, stubs=RELEASED_STUBS,
                        similarity=False):
    """Read the records of `grades` (one folder, or the previous grading then this one), write the
    class report into `out` and say where."""
    from grader.course import class_report

    if submissions is not None and not stubs.is_dir():
        click.echo(f"warning: no stubs folder {stubs}: the misconceptions are shown without examples "
                   "(pass --stubs, the released exercises/)", err=True)
        stubs = None
    try:
        readings = [class_report.read_grades(folder) for folder in grades]
        records, unreadable = readings[-1]
        summary = class_report.build(records, roster=roster, names=names, unreadable=unreadable,
                                     submissions=submissions, stubs=stubs,
                                     previous=readings[0][0] if len(readings) == 2 else None, similarity=similarity)
        written = class_report.write(summary, out)
    except (class_report.ClassReportError, classbook.ClassbookError) as error:
        raise click.UsageError(str(error)) from None
    except OSError as error:
        raise click.ClickException(f"cannot write the class report into {out}: {error}") from None
    if similarity and summary["similarity"]["code_note"]:
        click.echo(f"warning: {summary['similarity']['code_note']}", err=True)
    outside = classbook.match_roster(roster, [*records, *(name for name, _ in unreadable)]).left_out() if roster else []
    click.echo(f"class report of {summary['students']['graded']} graded students ({len(summary['misconceptions'])} "
               f"misconceptions): wrote {', '.join(str(path) for path in written)}"
               + (f"; left out, not on the roster: {', '.join(outside)}" if outside else ""), err=True)


@main.command(cls=InstructorCommand, name="class-report",
              short_help="What the class got wrong: a page, a JSON and a CSV.")
@click.argument("grades", nargs=-1, required=True, metavar="GRADES_DIR...",
                type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(file_okay=False, path_type=Path),
              help="Folder to write the report into.  [default: the folder holding GRADES_DIR, beside grades.csv]")
@ROSTER(help="CSV of the class (student_id, name, email): students are shown by their id, and rostered "
             "students who never submitted are listed.")
@click.option("--names", is_flag=True, help="Show each student's name beside their roster id (default: ids only).")
@click.option("--submissions", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The class folder (a sub-folder per student, as given to batch): for the anonymised examples "
                   "and --similarity's code comparison.")
@STUBS
@click.option("--similarity", is_flag=True,
              help="Also list pairs of students for review (never a verdict): code unusually alike beyond the stub "
                   "(needs the extra lumen-attention-kit[similarity]) and rare misconceptions shared.")
def class_report_command(grades, out, roster, names, submissions, stubs, similarity):
    """Instructors: what did the class get wrong? From the records `batch` (or `merge`) wrote,
    GRADES_DIR (the grades/ folder, or grades.csv beside it), write class-report.html (one
    self-contained page), class-report.json and misconceptions.csv (a row per student and
    misconception). Give two, OLD NEW, to see per misconception who fixed it, kept it or newly shows it.

    Exit codes: 0 written, 1 it could not be written, 2 a usage error (nothing written)."""
    if names and not roster:
        raise click.UsageError("--names shows the roster's names: give --roster too")
    if len(grades) > 2:
        raise click.UsageError("give one GRADES_DIR, or two (the previous grading, then this one) for the trend")
    last = grades[-1]
    _write_class_report(list(grades), out or (last.parent if last.suffix.lower() == ".csv" else last.resolve().parent),
                        roster=roster, names=names, submissions=submissions, stubs=stubs, similarity=similarity)


# -- instructors: release and check ----------------------------------------------------------------

SOLUTIONS_OPTION = click.option(
    "--solutions", type=click.Path(exists=True, file_okay=False, path_type=Path), default=Path("solutions"),
    show_default=True, help="The instructor solutions, with BEGIN/END SOLUTION markers.")


@main.command(cls=InstructorCommand, name="release",
              short_help="Write exercises/ and its notebooks from solutions/.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("exercises"),
              show_default=True, help="Folder to write the student files and notebooks/ into.")
@SOLUTIONS_OPTION
@click.option("--readme", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="The README whose exercise table (between its two marker lines) is rewritten from the "
                   "catalogue; by default the README.md beside --out, where there is one.")
@click.option("--force", is_flag=True,
              help="Overwrite files that are not an earlier release (this can destroy a student's work).")
def release_command(out, solutions, readme, force):
    """Instructors: write the student files and notebooks from the solutions (the code between the
    BEGIN/END SOLUTION markers becomes a stub; each exercise's declaration in grader/catalog/ has
    its notebook's introduction), and the README's table of exercises from the catalogue.

    Refuses to overwrite a folder that is not an earlier release, or files changed since it."""
    from grader.course import release  # imports nbformat: not needed by the other commands

    given = readme is not None
    readme = readme or Path(os.path.normpath(out / os.pardir / "README.md"))
    try:
        release.check_exercise_table(readme)
        no_table = None
    except release.NoExerciseTable as error:
        if given:
            raise click.UsageError(str(error)) from None
        no_table = error
    try:
        done = release.release(solutions, out, force=force)
        table_changed = no_table is None and release.write_exercise_table(readme)
    except release.ReleaseRefused as error:
        raise click.UsageError(f"{error}. Keep a copy elsewhere if it matters, then pass --force to "
                               "overwrite.") from None
    except (release.ReleaseError, OSError) as error:
        raise click.UsageError(str(error)) from None
    changed = ", ".join(path.relative_to(out).as_posix() for path in done.changed) or "nothing"
    click.echo(f"released {len(done.paths)} files into {out} (changed: {changed})")
    if no_table is not None:
        click.echo(f"no exercise table written: {no_table} (pass --readme FILE to name the README)")
    else:
        click.echo(f"{readme}: its exercise table {'rewritten from' if table_changed else 'already is'} the catalogue")


@main.command(cls=InstructorCommand, name="check",
              short_help="Is the kit sound? Reference, solutions, stubs, mutants.")
@click.argument("exercises", nargs=-1, callback=_exercise_list)
@SOLUTIONS_OPTION
@SEED(help="Seed of the random test inputs.")
@CLASS_TIMEOUT
def check_command(exercises, solutions, seed, timeout):
    """Instructors: is the kit sound? Checks, on every available device, the reference against the
    float64 oracle and torch's built-ins, that the solutions score full marks, that the untouched
    stubs score zero, that every misconception mutant is caught and told apart from the others,
    that every graded function is called with sizes that separate the common slips, and that every
    rule a stub writes is graded (and every graded rule written). EXERCISES: all unless named.

    Exit codes: 0 all holds, 1 something does not (the table names it), 2 a usage error."""
    from grader.course import check  # imports torch

    started = time.monotonic()
    rows = check.run(solutions, exercises, seed=seed, time_limit=timeout,
                     progress=lambda step: click.echo(f"checking {step} ...", err=True))
    click.echo(check.render(rows, seconds=time.monotonic() - started), nl=False)
    click.get_current_context().exit(0 if check.passed(rows) else 1)
