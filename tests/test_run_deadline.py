"""One deadline for a whole grading run (issue 10, point 3): `--total-timeout` covers importing the
student's file, the tests, the timing and the report, wherever the submission spends its time. The
run then ends with a report that says which limit ran out, every child is gone and every temporary
folder removed. Every other way a run ends (a broken suite, Ctrl-C, SIGTERM or SIGHUP to `batch`)
leaves no child and no temporary folder either."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import SOLUTIONS
from test_batch import gone_all, make_class, marked, read_csv, unique_marker

PER_EXERCISE = 300  # --timeout: far beyond what any of these runs may take
NAME_ITSELF = "import ctypes, math\n\n\ndef _spin():\n    ctypes.CDLL(None).prctl(15, {marker!r})\n    while True:\n        pass\n\n\n"
SCALED = "def scaled_scores(q, k):\n    return q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))\n"
PHASES = {  # where the submission spends its time -> (its code after NAME_ITSELF, --total-timeout)
    "import": ("_spin()\n", 4),
    "tests": ("def scale_scores(scores, d_k):\n    _spin()\n\n\n" + SCALED, 4),
    # right on every test (tiny inputs), endless on the performance cases' (4 x 8 x 128 x 128 scores)
    "perf": ("def scale_scores(scores, d_k):\n    if scores.numel() > 200_000:\n        _spin()\n"
             "    return scores / math.sqrt(d_k)\n\n\n" + SCALED, 12),
}


def _start(folder, code, total, *extra):
    folder.mkdir(parents=True)
    (folder / "submission").mkdir()
    (folder / "submission" / "exercise3_scaling.py").write_text(code)
    (folder / "tmp").mkdir()
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "exercise3", "--submission", str(folder / "submission"), "--device", "cpu",
         "--format", "json", "--timeout", str(PER_EXERCISE), "--total-timeout", str(total), *extra],
        env={**os.environ, "TMPDIR": str(folder / "tmp")}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)


@pytest.mark.skipif(sys.platform != "linux", reason="process names in /proc: Linux")
def test_one_deadline_covers_import_tests_and_timing(tmp_path):
    """The same submission spending its time in each phase in turn, graded with --timeout 300 and a
    --total-timeout of a few seconds (the three runs at once, to keep the suite fast): each run ends
    long before any per-exercise limit, with a report naming the whole run's limit, no process of
    the student's left and no temporary folder."""
    markers = {phase: unique_marker()[:11] + phase[0] for phase in PHASES}
    started = time.monotonic()
    runs = {phase: _start(tmp_path / phase, NAME_ITSELF.format(marker=markers[phase].encode()) + code, total)
            for phase, (code, total) in PHASES.items()}
    reports = {}
    for phase, process in runs.items():
        stdout, stderr = process.communicate(timeout=PER_EXERCISE)
        assert process.returncode == (0 if phase == "perf" else 1), stderr
        assert "Traceback" not in stderr
        reports[phase] = json.loads(stdout)["exercises"][0]
    assert time.monotonic() - started < PER_EXERCISE / 2

    imported = reports["import"]
    assert "importing it did not finish" in imported["error"] and "--total-timeout 4 s" in imported["error"]
    assert {test["status"] for test in imported["tests"]} == {"not_run", "skipped"}  # skipped: the GPU's

    tested = reports["tests"]
    first, *rest = [test for test in tested["tests"] if test["status"] != "skipped"]
    assert first["status"] == "timeout" and "--total-timeout 4 s" in first["message"], first
    assert "infinite loop" in first["message"]
    assert rest and all(test["status"] == "timeout" and test["message"].startswith("not run: the time limit of "
                                                                                  "the whole run") for test in rest)
    timed = reports["perf"]
    assert timed["passed"] and timed["score"] == timed["max_score"]
    assert timed["tier"]["id"] == "not-timed" and "--total-timeout 12 s" in timed["tier"]["message"], timed["tier"]

    for phase in PHASES:
        assert gone_all(markers[phase]), phase
        assert not list((tmp_path / phase / "tmp").iterdir()), phase


def test_the_total_timeout_is_explained_in_help():
    from click.testing import CliRunner

    from grader.cli import main

    shown = " ".join(CliRunner().invoke(main, ["exercise3", "--help"]).output.split())
    assert "--total-timeout" in shown and "the whole run" in shown and "per exercise" in shown


def test_a_broken_instructor_suite_is_a_grader_error_that_leaves_nothing_behind(tmp_path):
    """A --suites file that cannot be imported: the run says which file, exits 1, and its folders
    and children are gone (pytest stops such a run as "interrupted": it is not a Ctrl-C)."""
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_exercise3_extra.py").write_text("raise RuntimeError('this suite is broken')\n")
    process = _start(tmp_path / "run", "x = 1\n", 60,
                     "--suites", str(suites), "--no-perf")
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 1, stderr
    assert "the hidden suites could not run" in stderr and "test_exercise3_extra.py" in stderr, stderr
    assert "Aborted" not in stderr and "Traceback" not in stderr
    assert not list((tmp_path / "run" / "tmp").iterdir())


# -- batch, stopped -------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="process names in /proc: Linux")
@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_stopping_a_batch_ends_every_child_and_removes_its_folders(tmp_path, stop):
    """`batch` told to stop (a cancelled CI job, a closed terminal) while a student's code spins at
    import: it stops as on Ctrl-C, and neither the student's process nor a staging folder is left."""
    marker = unique_marker()
    folder = make_class(tmp_path / "class", {"amy": {"notes.txt": "no code yet"},
                                             "zed": {"exercise3_scaling.py": NAME_ITSELF.format(
                                                 marker=marker.encode()) + "_spin()\n"}})
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "grades.csv"
    process = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out),
                                "--jobs", "2", "--device", "cpu", "--no-perf"],
                               env={**os.environ, "TMPDIR": str(temp)}, stderr=subprocess.PIPE, text=True)
    give_up = time.monotonic() + 120
    while not ((tmp_path / "grades" / "amy.json").exists() and marked(marker)):
        assert process.poll() is None and time.monotonic() < give_up, process.communicate()
        time.sleep(0.1)
    process.send_signal(getattr(signal, stop))
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted: 1 of 2 students" in stderr
    assert list(read_csv(out)) == ["amy"]
    assert gone_all(marker)
    assert not list(temp.iterdir())


def test_a_run_stuck_in_the_judge_is_stopped_past_its_deadline(tmp_path):
    """The grader's own process stuck (here an instructor's suite that sleeps: suites run in the
    judge, where no child's deadline reaches): a backstop stops the run a little past the whole
    run's limit, exit 124, with its children and temporary folders gone."""
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "test_exercise3_stuck.py").write_text("import time\n\n\ndef test_stuck():\n    time.sleep(600)\n")
    process = _start(tmp_path / "run", (SOLUTIONS / "exercise3_scaling.py").read_text(), 2,
                     "--suites", str(suites), "--no-builtin-suites", "--no-perf")
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 124, stderr
    assert "past the time limit of the whole run (2 s, --total-timeout)" in " ".join(stderr.split())
    assert "Traceback" not in stderr
    assert not list((tmp_path / "run" / "tmp").iterdir())
