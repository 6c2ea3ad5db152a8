"""One deadline for a whole grading run (issue 10, point 3): `--total-timeout` covers importing the
student's file, the tests, the timing and the report, wherever the submission spends its time. The
run then ends with a report that says which limit ran out, every child is gone and every temporary
folder removed. Every other way a run ends (a broken suite, a stuck judge, SIGTERM or SIGHUP to
`batch`) leaves no child and no temporary folder either, as root and as a user."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, SOLUTIONS, names_itself, unwrapped
from test_batch import gone_all, make_class, marked, read_csv, unique_marker
from test_containment import _as_nobody

pytestmark = pytest.mark.privileges  # who may kill and remove what the children made: root or a user

PER_EXERCISE = 300  # --timeout: far beyond what any of these runs may take
NAME_ITSELF = "import math\n\nimport torch\n\n\ndef _spin():\n    {name}\n    while True:\n        pass\n\n\n"
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
         "--format", "json", "--timeout", str(PER_EXERCISE), "--total-timeout", str(total), "--score-reaching", *extra],
        env={**os.environ, "TMPDIR": str(folder / "tmp")}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)


# an instructor's suite, in the judge: it says it was reached (the run's limit may end a slow start before it)
STUCK_SUITE = "import time\n\n\ndef test_stuck():\n    open({reached!r}, 'w').close()\n    time.sleep(600)\n"
STUCK_LIMITS = (2, 10, 30)  # --total-timeout of the stuck run: longer only where a loaded machine's start took it


def _stuck(folder, total):
    """A run of the solution of exercise 3 whose one suite never ends, started; and the file its suite writes."""
    reached = folder / "reached"
    (folder / "suites").mkdir(parents=True)
    (folder / "suites" / "test_exercise3_stuck.py").write_text(STUCK_SUITE.format(reached=str(reached)))
    return _start(folder / "run", (SOLUTIONS / "exercise3_scaling.py").read_text(), total, "--suites",
                  str(folder / "suites"), "--no-builtin-suites", "--no-perf"), reached


@pytest.mark.skipif(sys.platform != "linux", reason="process names in /proc: Linux")
def test_one_deadline_covers_import_tests_timing_and_the_judge(tmp_path):
    """The same submission spending its time in each phase in turn, graded with --timeout 300 and a
    --total-timeout of a few seconds: each run ends long before any per-exercise limit, with a report
    naming the whole run's limit, no process of the student's left and no temporary folder. And the
    grader's own process stuck (an instructor's suite that sleeps: suites run in the judge, where no
    child's deadline reaches): a backstop stops that run a little past the limit, exit 124. The four
    runs at once, to keep the suite fast."""
    markers = {phase: unique_marker()[:11] + phase[0] for phase in PHASES}
    started = time.monotonic()
    runs = {phase: _start(tmp_path / phase, NAME_ITSELF.format(name=names_itself(markers[phase])) + code, total)
            for phase, (code, total) in PHASES.items()}
    stuck, reached = _stuck(tmp_path / "judge-2", STUCK_LIMITS[0])
    reports = {}
    for phase, process in runs.items():
        stdout, stderr = process.communicate(timeout=PER_EXERCISE)
        assert process.returncode == (0 if phase == "perf" else 1), stderr
        assert "Traceback" not in stderr
        reports[phase] = json.loads(stdout)["exercises"][0]
    _, stderr = stuck.communicate(timeout=PER_EXERCISE)
    assert time.monotonic() - started < PER_EXERCISE / 2
    used = STUCK_LIMITS[0]
    for total in STUCK_LIMITS[1:]:  # the suite not reached within the limit: again with a longer one
        if reached.exists():
            break
        stuck, reached = _stuck(tmp_path / f"judge-{total}", total)
        _, stderr = stuck.communicate(timeout=PER_EXERCISE)
        used = total
    assert reached.exists(), "the stuck suite was never reached"

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

    assert stuck.returncode == 124, stderr
    assert f"past the time limit of the whole run ({used} s, --total-timeout)" in " ".join(stderr.split())
    assert "Traceback" not in stderr

    for phase in PHASES:
        assert gone_all(markers[phase]), phase
    for run in [*PHASES, *(f"judge-{total}/run" for total in STUCK_LIMITS if (tmp_path / f"judge-{total}").exists())]:
        assert not list((tmp_path / run / "tmp").iterdir()), run


def test_the_total_timeout_is_explained_in_help():
    from click.testing import CliRunner

    from grader.cli.main import main

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


# -- every other way a run ends ------------------------------------------------------------------


@pytest.mark.skipif(sys.platform != "linux", reason="process names in /proc: Linux")
def test_a_batch_told_to_stop_ends_every_child_and_removes_its_folders(tmp_path):
    """`batch` in a terminal that is closed (SIGHUP; SIGTERM and Ctrl-C take the same path, and
    test_batch tests them) while a student's code spins at import: it stops as on Ctrl-C, and
    neither the student's process nor a folder of the batch or of its graders is left."""
    marker = unique_marker()
    folder = make_class(tmp_path / "class", {"amy": {"notes.txt": "no code yet"},
                                             "zed": {"exercise3_scaling.py": NAME_ITSELF.format(
                                                 name=names_itself(marker)) + "_spin()\n"}})
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
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted: 1 of 2 students" in stderr
    assert {name: row["status"] for name, row in read_csv(out).items()} == {"amy": "no files", "zed": "not graded yet"}
    assert gone_all(marker)
    assert not list(temp.iterdir())


@pytest.mark.skipif(sys.platform != "linux", reason="Landlock and setpriv: Linux")
def test_a_users_grader_removes_the_folders_its_children_locked(request):
    """Graded by a user (uid 65534, where the children run as that same user), a submission that
    makes folders in its scratch folder and tries to take every right on them away (chmod 0): the
    child's allowlist refuses it, and the grader removes everything it made (as root, removing
    ignores the modes anyway; `files.remove_tree` restores them where a child could chmod)."""
    prefix, reason = _as_nobody()
    if prefix is None:
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="lumen-nobody-"))  # a folder 65534 can reach
    folder.chmod(0o777)
    request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
    (folder / "submission").mkdir()
    (folder / "submission" / "exercise3_scaling.py").write_text(
        "import os, tempfile\n\nlocked = os.path.join(tempfile.gettempdir(), 'locked', 'inner')\n"
        "os.makedirs(locked)\nopen(os.path.join(locked, 'notes'), 'w').close()\n"
        "try:\n    os.chmod(locked, 0)\n    os.chmod(os.path.dirname(locked), 0)\nexcept PermissionError as error:\n"
        "    print('refused', error)\nprint('made', locked)\n")
    (folder / "tmp").mkdir()
    (folder / "tmp").chmod(0o777)
    done = subprocess.run([*prefix, sys.executable, "-m", "grader", "exercise3", "--submission",
                           str(folder / "submission"), "--device", "cpu", "--no-perf", "--format", "json"],
                          capture_output=True, text=True, timeout=120, cwd=folder,
                          env={**os.environ, "TMPDIR": str(folder / "tmp"), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 1, done.stderr
    graded = json.loads(done.stdout)["exercises"][0]
    assert "refused [Errno 1] not allowed in the grader: chmod" in graded["output"], graded
    assert f"made {folder / 'tmp'}/" in graded["output"], graded  # in the folder looked at below
    assert not list((folder / "tmp").iterdir())


def test_a_watch_told_to_stop_removes_its_folders(tmp_path):
    """`lumen-grade watch` in a terminal that is closed (SIGHUP; SIGTERM takes the same path): it
    stops, exit 128 + the signal, and leaves no temporary folder (its children die with it)."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "exercise3_scaling.py").write_text((SOLUTIONS / "exercise3_scaling.py").read_text())
    (tmp_path / "tmp").mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "watch", "exercise3", "--submission", str(tmp_path / "submission"),
         "--device", "cpu", "--no-perf"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "TMPDIR": str(tmp_path / "tmp"), "PYTHONUNBUFFERED": "1"})
    watchdog = threading.Timer(120, process.kill)  # never waits for ever on a report that does not come
    watchdog.start()
    try:
        shown = ""
        for line in process.stdout:
            shown += line
            if "Ctrl-C to stop." in unwrapped(shown):  # the first report is out (wrapped to any width)
                break
        assert process.poll() is None, shown
        process.send_signal(signal.SIGHUP)
        assert process.wait(timeout=30) == 128 + signal.SIGHUP
        assert "Traceback" not in process.stderr.read()
    finally:
        watchdog.cancel()
        process.kill()
        process.wait()
    assert not list((tmp_path / "tmp").iterdir())
