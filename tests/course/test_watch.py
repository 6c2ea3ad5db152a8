"""`lumen-grade watch`: a report now, another after every save, a clean stop on Ctrl-C."""

import os
import queue
import signal
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from conftest import EXERCISES, ROOT, SOLUTIONS
from grader import catalog
from grader.grading import runner
from grader.course import watch
from grader.cli.main import main
from grader.grading.settings import Settings

EX3 = catalog.find("exercise3")
WAIT = 120  # seconds to wait for a report: generous, this is not a speed test


class Output:
    """A process's stdout read line by line on a thread, so the test can wait for what it needs."""

    def __init__(self, stream):
        self.lines, self.seen = queue.Queue(), []
        threading.Thread(target=lambda: [self.lines.put(line) for line in stream], daemon=True).start()

    def until(self, predicate):
        """Read until a line satisfies predicate; returns every line read so far."""
        while True:
            line = self.lines.get(timeout=WAIT)
            self.seen.append(line)
            if predicate(line):
                return self.seen


def save(path, source):
    """Save like an editor: new content, and a modification time that has surely moved on."""
    path.write_bytes(source.read_bytes())
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))


def test_watch_regrades_each_save_and_stops_cleanly_on_ctrl_c(tmp_path):
    """Started as a script's background job is (SIGINT ignored), Ctrl-C still stops it cleanly."""
    student = tmp_path / EX3.file_name
    student.write_bytes((EXERCISES / EX3.file_name).read_bytes())
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "watch", "exercise3", "--submission", str(tmp_path), "--device", "cpu",
         "--no-perf", "--interval", "0.1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        output = Output(process.stdout)
        reports = lambda: [line for line in output.seen if line.startswith("Total: ")]  # noqa: E731
        output.until(lambda line: line.rstrip().endswith("Ctrl-C to stop."))  # the status, after the report
        assert reports() == ["Total: 0/19 — 0 of 1 exercise(s) passed\n"]
        save(student, SOLUTIONS / EX3.file_name)  # the first rewrite: solved
        output.until(lambda line: line.startswith("Total: ") and len(reports()) == 2)
        save(student, EXERCISES / EX3.file_name)  # the second: back to the stub
        output.until(lambda line: line.startswith("Total: ") and len(reports()) == 3)
        assert reports()[1:] == ["Total: 19/19 — 1 of 1 exercise(s) passed\n",
                                 "Total: 0/19 — 0 of 1 exercise(s) passed\n"]
        assert "✓ exercise3  Scale by √d_k  19/19\n" in output.seen
        output.until(lambda line: line.rstrip().endswith("Ctrl-C to stop.") and len(reports()) == 3)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=WAIT) == 0
        assert output.until(lambda line: line.strip())[-1] == "stopped watching.\n"
        errors = process.stderr.read()
        assert "Traceback" not in errors and errors == "", errors
    finally:
        process.kill()
        process.wait()


def test_watcher_grades_only_what_changed_in_one_warm_process(launcher, tmp_path):
    """In-process: each changed file is graded alone, the others keep their last verdict."""
    for name in ("exercise2_scoring.py", "exercise3_scaling.py"):
        (tmp_path / name).write_bytes((EXERCISES / name).read_bytes())
    exercises = [catalog.find("2"), EX3]
    options = Settings(submission=tmp_path, device="cpu", time_limit=20.0, perf=False)
    shown = []
    watcher = watch.Watcher(exercises, options, lambda report, graded, seconds: shown.append((report, graded)))
    watcher.launcher = launcher  # the session's zygote, already warm
    before = watch.snapshot(exercises, options)
    watcher.grade(exercises)
    assert watcher.changed(before) == ([], before)
    save(tmp_path / EX3.file_name, SOLUTIONS / EX3.file_name)
    changed, after = watcher.changed(before)
    assert changed == [EX3] and after != before
    watcher.grade(changed)
    (first, graded_first), (second, graded_second) = shown
    assert graded_first == ["exercise2", "exercise3"] and graded_second == ["exercise3"]
    assert [e.passed for e in second.exercises] == [False, True]
    assert second.exercises[0] is first.exercises[0]  # exercise 2 was not graded again


def test_watch_usage_errors():
    runner_ = CliRunner()
    unknown = runner_.invoke(main, ["watch", "exercise99"])
    assert unknown.exit_code == 2 and "unknown exercise 'exercise99'" in unknown.output
    notebook = EXERCISES / "notebooks" / f"{EX3.stem}.ipynb"
    several = runner_.invoke(main, ["watch", "--notebook", str(notebook)])
    assert several.exit_code == 2 and "--notebook FILE needs the exercise" in several.output
    missing = runner_.invoke(main, ["watch", "3", "--submission", "/nonexistent-folder"])
    assert missing.exit_code == 2 and "no folder" in missing.output


def test_watch_help_describes_its_argument():
    text = " ".join(CliRunner().invoke(main, ["watch", "--help"]).output.split())
    assert "EXERCISE: the one to watch" in text and "without it, every exercise is watched" in text


@pytest.mark.parametrize("name", ["exercise3_scaling.py", "exercise3_scaling.ipynb"])
def test_snapshot_follows_the_file_grading_would_pick(tmp_path, name):
    options = Settings(submission=tmp_path, perf=False)
    assert watch.snapshot([EX3], options) == {"exercise3": ("None", None, None)}
    (tmp_path / name).write_text("x = 1\n")
    ((path, mtime, size),) = watch.snapshot([EX3], options).values()
    assert path == str(tmp_path / name) and mtime and size == 6


def test_the_status_line_fits_the_terminal():
    everything = [exercise.id for exercise in catalog.EXERCISES]
    line = watch.status_line(everything, 2.345, width=60)
    assert line.startswith(f"watching: {len(everything)} exercises graded ") and " (2.35 s);" in line
    assert max(map(len, line.split("\n"))) <= 60
    one = watch.status_line(["exercise3"], 0.63)
    assert one.startswith("watching: exercise3 graded ") and "\n" not in one and len(one) <= 80
