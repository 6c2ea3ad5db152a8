"""`lumen-grade watch`: a report now, another after every save, a clean stop on Ctrl-C."""

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import EXERCISES, ROOT, SOLUTIONS, unwrapped
from grader import catalog
from grader.course import watch
from grader.perf import judge as perf
from grader.reports import text as report
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
        env={**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "80"},  # lines read as written: a set width
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    try:
        output = Output(process.stdout)
        reports = lambda: [line for line in output.seen if line.startswith("Total: ")]  # noqa: E731
        output.until(lambda line: line.rstrip().endswith("Ctrl-C to stop."))  # the status, after the report
        assert reports() == ["Total: 0/21 — 0 of 1 exercise(s) passed\n"]
        save(student, SOLUTIONS / EX3.file_name)  # the first rewrite: solved
        output.until(lambda line: line.startswith("Total: ") and len(reports()) == 2)
        save(student, EXERCISES / EX3.file_name)  # the second: back to the stub
        output.until(lambda line: line.startswith("Total: ") and len(reports()) == 3)
        assert reports()[1:] == ["Total: 21/21 — 1 of 1 exercise(s) passed\n",
                                 "Total: 0/21 — 0 of 1 exercise(s) passed\n"]
        assert "✓ exercise3  Scale by √d_k  21/21\n" in output.seen
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
    assert unknown.exit_code == 2 and "unknown exercise 'exercise99'" in unwrapped(unknown.output)
    notebook = EXERCISES / "notebooks" / f"{EX3.stem}.ipynb"
    several = runner_.invoke(main, ["watch", "--notebook", str(notebook)])
    assert several.exit_code == 2 and "--notebook FILE needs the exercise" in unwrapped(several.output)
    missing = runner_.invoke(main, ["watch", "3", "--submission", "/nonexistent-folder"])
    assert missing.exit_code == 2 and "no folder" in unwrapped(missing.output)


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


def test_watch_shows_the_verdict_first_then_the_tier(launcher, tmp_path):
    """With the tiers on, a passed file is drawn at once with "timing…" in its tier's place, then
    again with the tier measured: an old tier never stands beside a new verdict."""
    (tmp_path / EX3.file_name).write_bytes((SOLUTIONS / EX3.file_name).read_bytes())
    options = Settings(submission=tmp_path, device="cpu", time_limit=20.0, perf=True)
    shown = []
    watcher = watch.Watcher([EX3], options, lambda report, graded, seconds: shown.append(report))
    watcher.launcher = launcher
    watcher.grade([EX3])
    first, last = shown
    assert first.exercises[0].passed and first.exercises[0].tier["id"] == "timing"
    assert "timing…" in report.render_text(first, color=False, width=100)
    assert last.exercises[0].tier["id"] in {tier_id for tier_id, *_ in perf.TIERS} | {"not-timed"}
    assert first.containment == last.containment == launcher.level  # the header's [kernel] or [process]


WATCH_AND_GRADE = r"""
import json, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1]]
from grader import catalog
from grader.course import watch
from grader.grading import runner
from grader.grading.settings import Settings
options = Settings(submission=Path(sys.argv[2]), device="cpu", suites=[Path(sys.argv[3])], perf=False)
exercises = [catalog.find("exercise3")]
graded, shown = runner.grade(exercises, options), []
with watch.Watcher(exercises, options, lambda report, names, seconds: shown.append(report)) as watcher:
    watcher.grade(exercises)
print(json.dumps({run: [verdict.containment_level, verdict.exercises[0].output]
                  for run, verdict in (("grade", graded), ("watch", shown[-1]))}))
"""


@pytest.mark.parametrize("user", ["root", "nobody"])
def test_watch_confines_the_code_as_grading_does(user, request):
    """`watch` said [process] where `lumen-grade exercise3` said [kernel]: its header dropped the
    level, and its children were not kept out of the --suites folder. The same file, reading the
    instructor's suites folder at import, graded both ways: the same level, refused both times.
    The folder lies inside a tree the children may read (this interpreter's), where only the
    list of confidential trees keeps it out."""
    from test_containment import _as_nobody

    prefix = []
    if user == "nobody":
        prefix, reason = _as_nobody()
        if prefix is None:
            pytest.skip(reason)
    folder, inside = (Path(tempfile.mkdtemp(prefix="lumen-watch-test-", dir=where)) for where in (None, sys.prefix))
    for made in (folder, inside):
        request.addfinalizer(lambda made=made: shutil.rmtree(made, ignore_errors=True))
        made.chmod(0o777)
    suites = inside / "suites"
    suites.mkdir()
    (suites / "answers.txt").write_text("the-answer-key\n")
    (folder / "submission").mkdir()
    secret = suites / "answers.txt"
    (folder / "submission" / EX3.file_name).write_text(
        f"try:\n    print('read:', open({str(secret)!r}).read())\nexcept OSError:\n    print('refused')\n\n"
        + (SOLUTIONS / EX3.file_name).read_text())
    for path in [suites, folder / "submission", *suites.iterdir(),
                 *(folder / "submission").iterdir()]:
        path.chmod(0o777 if path.is_dir() else 0o644)
    done = subprocess.run([*prefix, sys.executable, "-c", WATCH_AND_GRADE, str(ROOT), str(folder / "submission"),
                           str(suites)], capture_output=True, text=True, timeout=300, cwd=folder,
                          env={**os.environ, "TMPDIR": str(folder)})
    assert done.returncode == 0, done.stderr
    runs = json.loads(done.stdout.splitlines()[-1])
    assert runs["watch"][0] == runs["grade"][0], runs
    for level, output in runs.values():
        assert "refused" in output and "the-answer-key" not in output, runs


def test_watch_piped_to_a_file_writes_each_report_once(tmp_path, monkeypatch):
    """Output that is not a terminal is not redrawn but added to: with the tiers on (the default),
    the first grading is written once, finished, not first as a draft and then again."""
    (tmp_path / EX3.file_name).write_bytes((EXERCISES / EX3.file_name).read_bytes())

    def grade_once(self, rounds=None):
        self.grade(self.exercises)
        raise KeyboardInterrupt  # as Ctrl-C after the first report

    monkeypatch.setattr(watch.Watcher, "run", grade_once)
    result = CliRunner().invoke(main, ["watch", "3", "--submission", str(tmp_path), "--device", "cpu"])
    assert result.exit_code == 0, result.output
    assert [line for line in result.output.splitlines() if line.startswith("Total: ")] == [
        "Total: 0/21 — 0 of 1 exercise(s) passed"]
    assert result.output.count("Ctrl-C to stop.") == 1 and result.output.endswith("stopped watching.\n")


def test_a_watcher_without_drafts_draws_only_the_finished_report(launcher, tmp_path):
    (tmp_path / EX3.file_name).write_bytes((SOLUTIONS / EX3.file_name).read_bytes())
    options = Settings(submission=tmp_path, device="cpu", time_limit=20.0, perf=True)
    shown = []
    watcher = watch.Watcher([EX3], options, lambda report, graded, seconds: shown.append(report), drafts=False)
    watcher.launcher = launcher
    watcher.grade([EX3])
    (only,) = shown
    assert only.exercises[0].passed and only.exercises[0].tier["id"] != "timing"
