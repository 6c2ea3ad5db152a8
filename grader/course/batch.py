"""`lumen-grade batch`: grade a whole class, one sub-folder per student, several at a time.

Each student is graded by a process of its own, `python -m grader all --format json`, on a private
copy of just their exercise files (found at any depth, .py or notebooks, as on Gradescope), under a
time limit per student: a submission that crashes, hangs or attacks the grader costs its own row,
never the batch. The gradebook is a CSV (student, status, a score per exercise, total, tier) with
one JSON per student in a folder beside it (grades.csv -> grades/). A student who has a JSON there
is skipped on the next run (resume) unless `force`. Both are replaced atomically after every
student, so an interrupted batch (Ctrl-C) leaves a consistent gradebook of the students done.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from grader import catalog
from grader.course import classbook
from grader.grading import submission
from grader.grading.results import clean_text
from grader.grading.settings import DEFAULTS, RUN_MARGIN, Policy, overrun
from grader.sandbox import containment, files
from grader.course.gradescope import as_submitted, stage, submitted_name
from grader.reports import schema

POLL = 0.05  # seconds between looks at the running graders
STARTUP = 60.0  # seconds a grader may take to start (Python, torch) on a loaded machine
STAGING = "submission"  # a job's copy of the student's files, in the job's folder (the grader's working folder)
_KIT_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding grader/
STDERR_TAIL = 600  # characters of a failed grader's stderr kept as the row's message
PROCESS_WARNING = ("WARNING: containment level 'process': this machine could not confine the students' code "
                   "by the kernel (not root, and no Landlock or no user namespace for this user), so a submission "
                   "could read or change other students' files and the gradebook. Grade on Linux >= 5.13 as a "
                   "user who may make user namespaces, or as root (see docs/security.md).")


@dataclass
class Settings:
    """How to grade the class: the `batch` command's options."""

    jobs: int = 1
    timeout: float = DEFAULTS.time_limit  # seconds per exercise, passed to the grader
    student_timeout: float = None  # seconds for one student's whole run; None: from `timeout`
    seed: int = DEFAULTS.seed
    device: str = DEFAULTS.device
    no_perf: bool = False  # skip the performance tiers
    force: bool = False
    shard: tuple = None  # (K, N): grade only the students of shard K of N (grader/course/classbook.py)
    roster: list = None  # classbook.Rostered entries: the gradebook gets a row per rostered student
    policy: Policy = None  # the course file's (--course): its students' reports show every hint level it allows

    @property
    def student_limit(self):
        """Seconds for one student's run, which their grader is given as its --total-timeout: it
        ends the run itself then and reports what it graded, the rest as out of time."""
        return self.student_timeout or len(catalog.EXERCISES) * self.timeout + RUN_MARGIN

    @property
    def kill_after(self):
        """Seconds after which a student's grader that has not ended is killed: past its own forced
        stop (`overrun` after its limit, counted from when it has imported torch) by STARTUP."""
        return self.student_limit + overrun(self.student_limit) + STARTUP


@dataclass(frozen=True)
class Student:
    """A student's folder in the class folder, and the name the gradebook knows it by
    (`classbook.student_name`: the folder's name, printable)."""

    name: str
    folder: Path


class Interrupted(Exception):
    """Ctrl-C: the running graders were stopped; the gradebook holds the students finished."""

    def __init__(self, done, total):
        super().__init__(f"{done} of {total} students graded")
        self.done, self.total = done, total


def reports_folder(out):
    """Where the per-student JSON reports go: beside the CSV, named after it."""
    return Path(out).with_suffix("")


def inside(path, folder):
    """Whether `path` is `folder` or lies in it: a batch writes nothing in the class folder, where a student's
    folder could bear the name of its reports (round 83's a15: a student named `grades` had their planted
    records read as classmates' grades)."""
    return Path(os.path.abspath(path)).resolve().is_relative_to(Path(folder).resolve())


def students(submissions):
    """The Students of a class folder, by name; hidden folders left out. A link to a folder is listed
    too, so that its row says it was not graded through it (`_Job`)."""
    return sorted((Student(classbook.student_name(path.name), path) for path in Path(submissions).iterdir()
                   if path.is_dir() and not path.name.startswith(".")), key=lambda student: student.name)


def run(submissions, out, settings, progress=lambda line: None):
    """Grade every student of `submissions` not graded yet; returns {student: record}.

    A record is what the student's JSON holds: student, status (graded, timeout, error or
    no files), message, seconds, the files graded, and the grader's JSON report (None unless
    graded). `progress` gets a line per student."""
    out = Path(out)
    reports = reports_folder(out)
    reports.mkdir(parents=True, exist_ok=True)
    everyone = classbook.select(students(submissions), settings.shard)
    if settings.shard:
        classbook.write_manifest(reports, settings.shard, everyone, {
            "seed": settings.seed, "device": settings.device, "timeout": settings.timeout,
            "no_perf": settings.no_perf})
    records = {} if settings.force else _load_records(reports, everyone)
    if records:
        progress(f"skipping {len(records)} student(s) already graded (--force regrades them)")
    if containment.expected_level() != containment.KERNEL:
        progress(PROCESS_WARNING)
    _write_gradebook(out, records, settings.roster, everyone)
    queue = deque(student for student in everyone if student.name not in records)
    # `kill`, a cancelled CI job or a closed terminal: the same clean stop as Ctrl-C
    stops = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    saved = {signum: signal.signal(signum, _interrupt) for signum in stops}
    running, total, finished = [], len(queue), 0
    jobs = tempfile.mkdtemp(prefix="lumen-batch-")  # 0700: the students' job folders, each named at random

    def finish(job):
        """Record a student: their JSON first (the resume marker), then the whole CSV."""
        nonlocal finished
        record = job.record()
        files.write_replacing(reports / f"{job.student.name}.json", json.dumps(record, indent=2, ensure_ascii=False) + "\n")
        records[job.student.name] = record
        _write_gradebook(out, records, settings.roster, everyone)
        finished += 1
        row = classbook.row(record)
        progress(f"[{finished}/{total}] {record['student']}: {row['total'] or '-'}/{row['max_score'] or '-'} "
                 f"({record['status']}, {record['seconds']:.1f} s)")
        if row["containment"] == containment.PROCESS:
            progress(PROCESS_WARNING)

    try:
        while queue or running:
            while queue and len(running) < settings.jobs:
                running.append(_Job(queue.popleft(), settings, jobs))
                running[-1].start()  # once listed, so Ctrl-C finds it
            for job in [job for job in running if job.done()]:
                running.remove(job)
                finish(job)
            time.sleep(POLL if running else 0)
    except KeyboardInterrupt:
        for job in running:
            job.stop()
        running = []
        _write_gradebook(out, records, settings.roster, everyone)
        raise Interrupted(len(records), len(everyone)) from None
    finally:
        for job in running:  # the batch itself failed (a gradebook it cannot write): no grader outlives it
            job.stop()
        for signum, previous in saved.items():
            signal.signal(signum, previous)
        files.remove_tree(jobs)
    return records


def _interrupt(signum, frame):
    raise KeyboardInterrupt


class _Job:
    """One student's grading process, from staging their files to reading its verdict, which
    arrives over a pipe (the grader's stdout), never through a file a child could reach.

    The job's folder has a random name in the batch's `jobs` folder (0700), and its grader's
    command line names no path (its working folder is the job's): another student's code that
    reads command lines in /proc learns neither where this student's copies are nor the class
    folder's name from it (see docs/security.md, "What a child can learn")."""

    def __init__(self, student, settings, jobs):
        self.student, self.settings = student, settings
        self.started = time.monotonic()
        self.folder = Path(tempfile.mkdtemp(dir=jobs, prefix=""))
        self.process, self.stderr, self.outcome, self.notes, self.staged = None, None, None, [], {}
        self.reader, self.stdout, self.overflow = None, bytearray(), False

    def start(self):
        """Stage the student's files and start their grader; a student with no files needs none.
        Whatever their folder holds, a student whose files cannot be staged, or whose grader cannot
        start, gets an error with a line that says why, and the batch goes on."""
        try:
            self._start()
        except Exception as error:  # the class must finish: this student's row says what went wrong
            self.outcome = ("error", f"the batch could not grade this folder ({type(error).__name__}: {error})")

    def _start(self):
        staging = self.folder / STAGING
        staging.mkdir()
        if self.student.folder.is_symlink():  # to solutions/ or a classmate: their files, not this student's
            self.outcome = ("error", f"{self.student.folder.name} is a link to another folder, not a student's own "
                                     "folder: not graded through it (copy the student's files in)")
            return
        try:
            self.staged, self.notes = stage(self.student.folder, staging)
        except submission.SubmissionError as error:  # the walk's bounds, a file refused: said for the student
            self.outcome = ("error", str(error))
            return
        except OSError as error:
            self.outcome = ("error", f"could not read the submission: {error.strerror or error}")
            return
        if not self.staged:  # the notes name what bears an exercise's name but is no file (a link, a pipe)
            self.outcome = ("no files", "; ".join(["no exercise files anywhere in this folder", *self.notes]))
            return
        if all(staged.refusal for staged in self.staged.values()):  # each file found was refused: nothing to run
            self.outcome = ("error", "; ".join(self.notes))
            return
        settings = self.settings
        command = [sys.executable, "-m", "grader", "all", "--submission", STAGING, "--format", "json",
                   "--device", settings.device, "--seed", str(settings.seed), "--timeout", str(settings.timeout),
                   "--total-timeout", str(settings.student_limit), *(["--no-perf"] if settings.no_perf else []),
                   "--hints", "all", *course_option(settings.policy)]
        env = dict(os.environ)
        env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // settings.jobs)))
        env["LUMEN_PARENT_PID"] = str(os.getpid())  # the grader dies with this batch
        env["TMPDIR"] = str(self.folder / "tmp")  # its temporary folders go with the job's, even once killed
        # the job's folder is the grader's working folder, not the batch's: found where it is installed
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_KIT_ROOT, env.get("PYTHONPATH")]))
        (self.folder / "tmp").mkdir()
        self.stderr = open(self.folder / "stderr.txt", "wb")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=self.stderr, start_new_session=True, env=env, cwd=self.folder)
        self.reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.reader.start()

    def _read_stdout(self):
        """Keep at most classbook.MAX_REPORT_BYTES of what the grader writes, and drain the rest."""
        with self.process.stdout as pipe:
            while chunk := pipe.read1(1 << 16):
                if len(self.stdout) + len(chunk) > classbook.MAX_REPORT_BYTES:
                    self.overflow = True
                else:
                    self.stdout += chunk

    def done(self):
        """True once the grader has exited, or was stopped for running past the student's limit."""
        if self.process is None or self.process.poll() is not None:
            return True
        if time.monotonic() - self.started > self.settings.kill_after:
            self.outcome = ("timeout", f"the grader had not ended {self.settings.kill_after:g} s after it started, "
                                       f"past the limit of {self.settings.student_limit:g} s per student "
                                       "(--student-timeout), and was stopped")
            _kill_tree(self.process.pid)
            return True
        return False

    def stop(self):
        """Ctrl-C: end the grader and everything it started, and forget its files."""
        if self.process is not None:
            _kill_tree(self.process.pid)
        self._close()

    def record(self):
        """What became of the student, once the grader is done; removes the job's files."""
        status, message, report = (*self.outcome, None) if self.outcome else self._read_report()
        self._close()
        return {"student": self.student.name, "status": status, "message": clean_text(message, newlines=False),
                "seconds": round(time.monotonic() - self.started, 2), "files": self.notes, "report": report}

    def _read_report(self):
        """(status, message, report) of a grader that exited: graded when it wrote a valid report."""
        self.reader.join(timeout=10)
        failure = "its report is over the size limit" if self.overflow else None
        if failure is None:
            try:
                report = schema.load(bytes(self.stdout), "its report")
                return "graded", "", as_in_folder(report, self.student.folder, self.folder / STAGING,
                                                  self.staged)
            except (ValueError, UnicodeDecodeError) as error:
                failure = f"no valid report ({error})" if self.stdout else "no report"
        self.stderr.flush()
        try:
            tail = files.read_regular(self.folder / "stderr.txt", 1 << 20, follow=False, head=True)
        except OSError:
            tail = b""
        tail = tail[-STDERR_TAIL:].decode(errors="replace").strip()
        return "error", f"the grader exited with status {self.process.returncode} and {failure}: {tail}", None

    def _close(self):
        if self.process is not None:
            self.process.wait()
            self.stderr.close()
            if self.reader is not None:
                self.reader.join(timeout=10)
        files.remove_tree(self.folder)


def course_option(policy):
    """The grader's --course for a batch graded under `policy`: no ladder is climbed (the grader reads a
    copy of the student's files, never their .lumen/), each report shows every hint level allowed."""
    return [] if policy is None or policy.source is None else ["--course", str(Path(policy.source).resolve())]


GROWN_CHARS = 2000  # the length a string of a report may grow to where the student's names replace the staged ones


def as_in_folder(report, student, staging, staged):
    """The report with every file named as the student knows it, relative to their folder: the
    grader graded the copies `staged` into `staging` (a temporary folder), which is no name of theirs
    and is gone once the batch is done. Each exercise's file, ignored copies and missing-file error
    follow `gradescope.as_submitted`; a staged path left in any other text is replaced too."""
    for exercise in report["exercises"]:
        exercise.update(as_submitted(student, staged, catalog.find(exercise["id"])))
    names = {str(Path(folder, name)): submitted_name(student, source) for folder in (staging, STAGING)
             for sources, *_ in staged.values() for name, source in sources.items()}
    return _replaced(report, {**names, str(staging): "your submission"})


def _replaced(value, names):
    """`value` (JSON) with each key of `names` in its strings replaced by its value, longest first; a string that
    grows is cut at twice its length, or GROWN_CHARS (a message repeating a staged name 60 times, each made a path
    of thousands of characters, made a record of 43 MB: round 83's a02)."""
    if isinstance(value, str):
        replaced = value
        for old in sorted(names, key=len, reverse=True):
            replaced = replaced.replace(old, names[old])
        most = max(2 * len(value), GROWN_CHARS)
        return replaced if len(replaced) <= most else replaced[:most - 1] + "…"
    if isinstance(value, list):
        return [_replaced(item, names) for item in value]
    if isinstance(value, dict):
        return {key: _replaced(item, names) for key, item in value.items()}
    return value


def _kill_tree(pid):
    """SIGKILL a process and all it started, even children that left its process group (the
    sandbox's children start sessions of their own): the tree is read from /proc and frozen
    before anything is killed, so nothing is orphaned out of reach on the way."""
    victims = []
    for _ in range(2):  # a second pass catches what forked while the first was stopping things
        for victim in [pid, *_descendants(pid)]:
            if victim not in victims:
                victims.append(victim)
                _signal(victim, signal.SIGSTOP)
    for victim in victims:
        _signal(victim, signal.SIGKILL)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _signal(pid, number):
    try:
        os.kill(pid, number)
    except (ProcessLookupError, PermissionError):
        pass


def _descendants(pid):
    """Every process below `pid`, from /proc (Linux; elsewhere none, and the group kill remains)."""
    children = {}
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            stat = Path("/proc", entry, "stat").read_text() if entry.isdigit() else ""
        except OSError:  # the process ended meanwhile
            continue
        if stat:
            parent = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the command's name
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _load_records(reports, everyone):
    """The records already written for these students: only regular files (never through a link,
    never a pipe that would stall the batch), bounded, and valid; any other counts as not graded."""
    records = {}
    for student in everyone:
        record, _ = classbook.read_record(reports, student.name)
        if record is not None:
            records[student.name] = record
    return records


def _write_gradebook(out, records, roster, everyone):
    """The gradebook of the students graded so far; the others of `everyone` not graded yet (round 80)."""
    pending = [student.name for student in everyone if student.name not in records]
    files.write_replacing(Path(out), classbook.gradebook_csv(records, roster, pending))
