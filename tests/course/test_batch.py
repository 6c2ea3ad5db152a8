"""`lumen-grade batch`: a generated class (correct, wrong, broken, hanging, hostile, empty) graded
by real grader processes; the CSV gradebook and JSON reports, resume, the per-student time limit,
and Ctrl-C. Kept small (a handful of students, --jobs 2): every student costs a process."""

import csv
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS, names_itself, unwrapped
from grader import catalog
from grader.cli.main import main
from grader.grading import results
from grader.reports.json_report import render as render_json
from test_formats import WRONG_SCALING
from test_gradescope_bundle import as_notebook

CORRECT = (SOLUTIONS / "exercise3_scaling.py").read_text()
HANGS = "def scale_scores(scores, d_k):\n    while True:\n        pass\n\n\nscaled_scores = scale_scores\n"
KILLS_ITS_PARENT = "import os, signal\n\nos.kill(os.getppid(), signal.SIGKILL)\n"


def hangs_at_import(marker):
    """A submission that names its process `marker` (conftest.names_itself), then never finishes
    importing."""
    return f"import torch\n\n{names_itself(marker)}\nwhile True:\n    pass\n"


def marked(marker):
    """The processes named `marker` (see hangs_at_import) that still run (zombies aside)."""
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                name, state = stat.read().rsplit(")", 1)
            if name.split("(", 1)[1] == marker and state.split()[0] != "Z":
                found.append(int(entry))
        except (OSError, IndexError):
            continue
    return found


def unique_marker():
    return f"lumen-{os.getpid() % 10000}-{time.monotonic_ns() % 10000}"


def make_class(folder, students):
    """students: name -> {relative path: text}; one folder per student."""
    for student, files in students.items():
        (folder / student).mkdir(parents=True)
        for name, text in files.items():
            (folder / student / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / student / name).write_text(text)
    return folder


def batch(*args):
    return CliRunner().invoke(main, ["batch", *map(str, args)])


def read_csv(path):
    with open(path, newline="", encoding="utf-8") as file:
        return {row["student"]: row for row in csv.DictReader(file)}


def gone_all(marker, wait=5.0):
    give_up = time.monotonic() + wait
    while marked(marker) and time.monotonic() < give_up:
        time.sleep(0.05)
    return not marked(marker)


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """The class graded once, shared by the tests that read its gradebook."""
    folder = make_class(tmp_path_factory.mktemp("class") / "submissions", {
        "alice": {"hw3/attention/exercise3_scaling.py": CORRECT,
                  "hw2/exercise2_scoring.ipynb": as_notebook((SOLUTIONS / "exercise2_scoring.py").read_text())},
        "bob": {"exercise3_scaling.py": WRONG_SCALING},
        "carol": {"exercise3_scaling.py": "def scale_scores(:\n"},
        "dave": {"exercise3_scaling.py": HANGS},
        "eve": {"README.md": "I will hand it in tomorrow"},
        "mallory": {"exercise3_scaling.py": KILLS_ITS_PARENT},
    })
    out = folder.parent / "grades.csv"
    result = batch(folder, "--jobs", 2, "--timeout", 2, "--device", "cpu", "--no-perf", "--out", out,
                   "--feedback", folder.parent / "feedback")
    return folder, out, result


def test_every_student_gets_a_row_and_a_report(graded_class):
    folder, out, result = graded_class
    rows = read_csv(out)
    assert list(rows) == ["alice", "bob", "carol", "dave", "eve", "mallory"]
    assert list(next(iter(rows.values()))) == ["student", "status", *(e.id for e in catalog.EXERCISES),
                                               "total", "max_score", "percent", "tier", "containment", "message"]
    reports = {path.stem: json.loads(path.read_text()) for path in (out.parent / "grades").glob("*.json")}
    assert set(reports) == set(rows)
    for name, record in reports.items():
        assert record["student"] == name and record["status"] == rows[name]["status"]
        if record["report"]:  # the CSV is the JSON report, summed independently here
            assert float(rows[name]["total"]) == sum(float(rows[name][e.id]) for e in catalog.EXERCISES)
            assert {e["id"]: f"{e['score']:g}" for e in record["report"]["exercises"]} == \
                {e.id: rows[name][e.id] for e in catalog.EXERCISES}
    statuses = {name: record["status"] for name, record in reports.items()}
    assert result.exit_code == (1 if "error" in statuses.values() else 0), result.output
    progress = [line.split(":")[0].split() for line in result.stderr.splitlines() if line.startswith("[")]
    assert [count for count, _ in progress] == [f"[{n}/6]" for n in range(1, 7)]  # a line as each finishes
    assert sorted(name for _, name in progress) == list(rows)


def test_scores_follow_the_submissions(graded_class):
    folder, out, _ = graded_class
    rows = read_csv(out)
    reports = {name: json.loads((out.parent / "grades" / f"{name}.json").read_text()) for name in rows}

    def exercise_of(name, exercise_id="exercise3"):
        return next(e for e in reports[name]["report"]["exercises"] if e["id"] == exercise_id)

    alice = exercise_of("alice")
    assert alice["passed"] and alice["score"] == alice["max_score"] > 0
    assert reports["alice"]["files"] == ["exercise2: graded hw2/exercise2_scoring.ipynb",
                                         "exercise3: graded hw3/attention/exercise3_scaling.py"]
    assert exercise_of("alice", "exercise2")["passed"]  # from the notebook
    bob = exercise_of("bob")
    assert 0 < bob["score"] < bob["max_score"] == alice["max_score"]  # right shape, wrong scale
    carol = exercise_of("carol")
    assert carol["score"] == 0 and "SyntaxError" in carol["error"]
    dave = exercise_of("dave")
    assert dave["score"] == 0 and {t["status"] for t in dave["tests"]} - {"skipped"} == {"timeout"}
    assert rows["eve"]["status"] == "no files" and rows["eve"]["total"] == "0"
    assert reports["eve"]["report"] is None
    mallory = reports["mallory"]  # killing its parent may crash the grader: that student's row only
    assert mallory["status"] in ("graded", "error")
    assert mallory["report"] is None or exercise_of("mallory")["score"] == 0


def test_files_are_named_as_in_the_students_folder(graded_class):
    """Never the grader's temporary staging copy: in the JSON records, the CSV and the feedback pages
    (which merge makes again from the records), every file is named relative to the student's folder."""
    folder, out, _ = graded_class
    reports = {path.stem: json.loads(path.read_text()) for path in (out.parent / "grades").glob("*.json")}
    files = {exercise["id"]: exercise["file"] for exercise in reports["alice"]["report"]["exercises"]}
    assert files["exercise3"] == "hw3/attention/exercise3_scaling.py"
    assert files["exercise2"] == "hw2/exercise2_scoring.ipynb"
    assert files["exercise1"] == catalog.find("exercise1").file_name  # not handed in: the name to hand in
    missing = next(e for e in reports["alice"]["report"]["exercises"] if e["id"] == "exercise1")
    assert missing["error"].startswith("no exercise1_projection.py (or exercise1_projection.ipynb) anywhere in "
                                       "your submission"), missing["error"]
    pages = {path.stem: path.read_text(encoding="utf-8") for path in (out.parent / "feedback").glob("*.html")}
    assert set(pages) == set(reports)
    assert "<code>hw3/attention/exercise3_scaling.py</code>" in pages["alice"]
    for text in [*map(json.dumps, reports.values()), *pages.values(), out.read_text()]:
        assert "lumen-batch-" not in text and "submission/exercise" not in text


def test_every_student_has_the_same_max_score(graded_class):
    """A missing exercise, a syntax error, a hang, no files at all: one maximum for the class."""
    folder, out, _ = graded_class
    rows = read_csv(out)
    assert len({row["max_score"] for row in rows.values()}) == 1, rows
    alice = json.loads((out.parent / "grades" / "alice.json").read_text())["report"]
    handed_in = sum(e["max_score"] for e in alice["exercises"] if e["id"] in ("exercise2", "exercise3"))
    assert float(rows["eve"]["max_score"]) == alice["max_score"] > handed_in  # the exercises not handed in count


def test_a_second_run_resumes_and_force_regrades(graded_class, tmp_path):
    folder, out, _ = graded_class
    before = {path.name: path.read_text() for path in (out.parent / "grades").iterdir()}
    result = batch(folder, "--out", out, "--device", "cpu")
    assert "skipping 6 student(s) already graded" in result.stderr
    assert not [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert {path.name: path.read_text() for path in (out.parent / "grades").iterdir()} == before
    assert set(read_csv(out)) == {"alice", "bob", "carol", "dave", "eve", "mallory"}

    empty = make_class(tmp_path / "late", {"zoe": {"notes.txt": "nothing yet"}})
    late_out = tmp_path / "late.csv"
    assert "[1/1] zoe" in batch(empty, "--out", late_out).stderr
    assert "skipping 1" in batch(empty, "--out", late_out).stderr
    assert "[1/1] zoe" in batch(empty, "--out", late_out, "--force").stderr


def grade_a_hanging_student(tmp_path):
    """(the batch's result, the student's marker) of a student whose import never ends, graded with
    --timeout 60 and --student-timeout 10."""
    marker = unique_marker()
    folder = make_class(tmp_path / "class", {"hang": {"exercise3_scaling.py": hangs_at_import(marker)}})
    result = batch(folder, "--out", tmp_path / "grades.csv", "--device", "cpu", "--timeout", 60,
                   "--student-timeout", 10)
    assert result.exit_code == 0, result.output
    return read_csv(tmp_path / "grades.csv")["hang"], marker


@pytest.mark.privileges
def test_a_student_past_the_time_limit_is_stopped_by_their_graders_total_timeout(tmp_path):
    row, marker = grade_a_hanging_student(tmp_path)
    assert row["status"] == "graded" and row["total"] == "0"  # the grader ended its run at the limit itself
    report = json.loads((tmp_path / "grades" / "hang.json").read_text())["report"]
    (scaling,) = [exercise for exercise in report["exercises"] if exercise["id"] == "exercise3"]
    assert "importing it did not finish" in scaling["error"] and "--total-timeout 10 s" in scaling["error"]
    assert gone_all(marker)  # the student's process, in a session of its own, too


@pytest.mark.privileges
def test_a_grader_that_does_not_end_at_its_limit_is_stopped_with_everything_it_started(tmp_path, monkeypatch):
    from grader.course import batch as batch_module

    monkeypatch.setattr(batch_module.Settings, "kill_after", property(lambda settings: 3.0))  # before its own 10 s
    row, marker = grade_a_hanging_student(tmp_path)
    assert row["status"] == "timeout" and row["total"] == "0" and "--student-timeout" in row["message"]
    assert gone_all(marker)


@pytest.mark.privileges
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "kill"])
def test_ctrl_c_leaves_a_consistent_gradebook(tmp_path, stop):
    marker = unique_marker()
    folder = make_class(tmp_path / "class", {"amy": {"notes.txt": "no code yet"},
                                             "zed": {"exercise3_scaling.py": hangs_at_import(marker)}})
    out = tmp_path / "grades.csv"
    process = subprocess.Popen([sys.executable, "-m", "grader", "batch", str(folder), "--out", str(out),
                                "--jobs", "2", "--device", "cpu"], stderr=subprocess.PIPE, text=True,
                               # Ctrl-C reaches it even where the suite itself runs with SIGINT ignored
                               # (a background job of a script, nohup)
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    give_up = time.monotonic() + 120
    while not ((out.parent / "grades" / "amy.json").exists() and marked(marker)):
        assert process.poll() is None and time.monotonic() < give_up
        time.sleep(0.1)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "interrupted: 1 of 2 students" in stderr
    table = read_csv(out)  # zed, stopped while graded, waits: not graded yet (round 80), never missing
    assert list(table) == ["amy", "zed"] and [row["status"] for row in table.values()] == ["no files", "not graded yet"]
    assert sorted(os.listdir(out.parent / "grades")) == ["amy.json"]
    assert not [name for name in os.listdir(tmp_path) if name.endswith((".partial", ".tmp"))]
    assert gone_all(marker)


@pytest.mark.parametrize("args, message", [
    (["--out", "grades.txt"], "name a .csv file"),
    (["--jobs", "0"], "--jobs"),
    # round 82's a06: a student named class-report had one page for their feedback and the class report
    (["--out", "out/grades.csv", "--class-report", "--feedback", "out"], "is where --class-report writes"),
])
def test_usage_errors(tmp_path, args, message):
    folder = make_class(tmp_path / "class", {"amy": {}})
    result = batch(folder, *args)
    assert result.exit_code == 2 and message in unwrapped(result.output)


def test_a_folder_without_student_folders_is_a_usage_error(tmp_path):
    result = batch(tmp_path)
    assert result.exit_code == 2 and "no student folders" in result.output
    assert batch(tmp_path / "missing").exit_code == 2
    assert batch(tmp_path, "--device", "tpu").exit_code == 2


def test_cuda_without_a_gpu_is_a_usage_error(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    result = batch(make_class(tmp_path / "class", {"amy": {}}), "--device", "cuda")
    assert result.exit_code == 2 and "no CUDA device" in result.output


def test_the_gradebook_is_rebuilt_from_the_reports_with_measured_tiers(tmp_path):
    """Resuming rebuilds the CSV from the JSON reports; tiers (fabricated here) fill the tier column."""
    folder = make_class(tmp_path / "class", {"tia": {"exercise3_scaling.py": CORRECT}})
    def exercise(number, title, score, top, tier):
        test = results.TestResult("t", "passed" if score == top else "failed", top)
        return results.ExerciseResult(f"exercise{number}", title, f"exercise{number}.py", [test], tier=tier)

    report = json.loads(render_json(results.GradeReport([
        exercise(3, "Scale", 19.0, 19.0, {"id": "on-par", "name": "on par", "ratio": 1.1}),
        exercise(5, "Softmax", 0.0, 2.0, {"id": "not-timed", "name": "not timed", "ratio": None}),
    ], "cpu", 0, containment={"level": "kernel", "layers": []})))
    (tmp_path / "grades").mkdir()
    (tmp_path / "grades" / "tia.json").write_text(json.dumps(
        {"student": "tia", "status": "graded", "message": "", "seconds": 1.0, "files": [], "report": report}))
    result = batch(folder, "--out", tmp_path / "grades.csv")
    assert result.exit_code == 0 and "skipping 1" in result.stderr
    row = read_csv(tmp_path / "grades.csv")["tia"]
    assert (row["exercise3"], row["exercise5"], row["exercise1"]) == ("19", "0", "")
    assert (row["total"], row["max_score"], row["tier"]) == ("19", "21", "exercise3: on par")
    assert row["containment"] == "kernel"


def test_a_gradebook_that_cannot_be_written_is_an_error_without_a_traceback(tmp_path, monkeypatch):
    """Round 83's a11: a full disk ended batch with an OSError's traceback; it says what to do now."""
    from grader.course import batch

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    (tmp_path / "class" / "ann").mkdir(parents=True)
    monkeypatch.setattr(batch, "run", full)
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out" / "g.csv")])
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert "No space left on device): the students recorded so far are kept; make room and run the same command " \
        "again" in unwrapped(result.output)


def test_one_students_folder_given_as_the_class_is_warned_of(tmp_path):
    """Round 86: `batch submissions/20260001` graded a student named `exercises`, with no word."""
    (tmp_path / "s1" / "exercises").mkdir(parents=True)
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "s1"), "--out", str(tmp_path / "out" / "g.csv"),
                                       "--no-perf"])
    assert f"warning: {tmp_path / 's1'} looks like one student's folder" in unwrapped(result.output), result.output
