"""Class scale: `batch --shard K/N`, `merge`, `--roster` and the gradebook's columns. The shard
assignment, roster and merge rules on records made by hand; then a real class graded in three
shards and merged, against the same class graded by one unsharded batch, row for row."""

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS, unwrapped
from grader import catalog
from grader.course import classbook
from grader.cli.main import main
from grader.grading import results
from grader.reports import FORMULA_STARTS
from grader.reports.json_report import render as render_json
from test_batch import CORRECT, make_class, read_csv
from test_formats import WRONG_SCALING


def record(student, score=None, max_score=8.0, status="graded"):
    """A record as `batch` writes it (valid: `merge` checks it as `batch` checks its resume records)."""
    report = None
    if score is not None:
        tests = [results.TestResult("passed", "passed", score), results.TestResult("failed", "failed", max_score - score)]
        verdict = results.GradeReport([results.ExerciseResult("exercise3", "Scale by √d_k", "exercise3_scaling.py", tests)], "cpu", 0,
                              containment={"level": "kernel", "layers": []})
        report = json.loads(render_json(verdict))  # as the writer writes it
    return {"student": student, "status": status, "message": "", "seconds": 1.0, "files": [], "report": report}


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


# -- shards ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["3", "1/0", "4/4", "-1/3", "a/b", "1/2/3"])
def test_a_bad_shard_is_refused(text):
    with pytest.raises(classbook.ClassbookError):
        classbook.parse_shard(text)
    result = CliRunner().invoke(main, ["batch", str(SOLUTIONS), "--shard", text])
    assert result.exit_code == 2 and "--shard" in result.output


def test_shards_split_a_class_once_and_stay_put_when_students_join():
    names = [f"student{i:03d}" for i in range(300)]
    shards = [set(classbook.select([Path(n) for n in names], (k, 4))) for k in range(4)]
    assert set().union(*shards) == {Path(n) for n in names}
    assert sum(map(len, shards)) == len(names)  # each student in exactly one shard
    assert all(50 <= len(shard) <= 100 for shard in shards)  # roughly even (expected 75)
    late = names + [f"late{i}" for i in range(50)]
    for k in range(4):  # a late student moves nobody
        assert {Path(n) for n in names} & set(classbook.select([Path(n) for n in late], (k, 4))) == shards[k]


def test_the_shard_of_a_name_does_not_depend_on_the_python_process():
    """Python's hash() of a str is salted per process; the shard must not be (machines must agree)."""
    code = "from grader.course.classbook import shard_of; print([shard_of(n, 7) for n in ('alice', 'bob', 'Zoë')])"
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2")}
    assert len(seen) == 1
    # pinned (sha256sum of the name, first 8 bytes, mod 7): a new rule would move every class's students
    assert seen.pop().strip() == "[1, 1, 3]"


# -- roster and columns ----------------------------------------------------------------------------

def write_roster(path, text):
    path.write_text(text, encoding="utf-8")
    return classbook.read_roster(path)


def test_a_roster_gives_every_student_a_row_and_missing_ones_zero_of_the_full_points(tmp_path):
    roster = write_roster(tmp_path / "roster.csv", "\ufeffStudent ID,Name,Email,Section\n"
                          "s1,Alice Liddell,alice@uni.edu,A\ns2,Bob Builder,bob@uni.edu,A\ns3,Carol Ann,carol@uni.edu,B\n")
    records = {"Alice@uni.edu": record("Alice@uni.edu", 6.0), "bob@uni.edu": record("bob@uni.edu", 8.0),
               "zed": record("zed", 1.0)}
    matching = classbook.match_roster(roster, records)
    assert (matching.matched, matching.unknown, matching.by) == ({"s1": "Alice@uni.edu", "s2": "bob@uni.edu"}, ["zed"],
                                                                 "email")
    table = rows(classbook.gradebook_csv(records, roster))
    assert list(table[0]) == ["student_id", "name", "email", "student", "status",
                              *(exercise.id for exercise in catalog.EXERCISES),
                              "total", "max_score", "percent", "tier", "containment", "message"]
    assert [(r["student_id"], r["student"], r["status"], r["total"], r["max_score"], r["percent"]) for r in table] == [
        ("s1", "Alice@uni.edu", "graded", "6", "8", "75.0"),
        ("s2", "bob@uni.edu", "graded", "8", "8", "100.0"),
        ("s3", "", "missing", "0", "8", "0.0"),  # the full points, as the graded reports carry them
    ]
    assert table[2]["name"] == "Carol Ann" and table[2]["email"] == "carol@uni.edu"


@pytest.mark.parametrize("text, error", [
    ("id,name\ns1,A\n", "no email column"),
    ("id,name,email\ns1,A,a@x\ns1,B,b@x\n", "twice"),
    ("id,name,email\n,A,a@x\n", "no student id"),
])
def test_a_bad_roster_is_a_usage_error(tmp_path, text, error):
    (tmp_path / "roster.csv").write_text(text)
    with pytest.raises(classbook.ClassbookError, match=error):
        classbook.read_roster(tmp_path / "roster.csv")
    (tmp_path / "class" / "s1").mkdir(parents=True)
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--roster", str(tmp_path / "roster.csv")])
    assert result.exit_code == 2 and error in unwrapped(result.output)


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"], ids=["=", "+", "-", "@", "tab", "CR"])
def test_no_gradebook_cell_is_read_as_a_spreadsheet_formula(tmp_path, start):
    """OWASP's CSV injection advice: a cell starting with = + - @, a tab or a carriage return gets a
    leading single quote (the spreadsheet shows it as text), whichever column it is in."""
    evil = f"{start}cmd|' /C calc'!A0"
    records = {evil: dict(record(evil, 6.0), message=evil), "s2": record("s2", 8.0)}
    table = rows(classbook.gradebook_csv(records))
    assert [(r["student"], r["message"], r["total"]) for r in table] == [(f"'{evil}", f"'{evil}", "6"), ("s2", "", "8")]
    # a roster's cells too (the roster reader strips a leading tab or CR: those arrive harmless)
    roster = write_roster(tmp_path / "roster.csv", f'id,name,email\n"{evil}","{evil}","{evil}"\ns2,"Bob, Jr.",b@x\n')
    by_roster = rows(classbook.gradebook_csv(records, roster))
    for table in (table, by_roster):
        assert all(not cell.startswith(FORMULA_STARTS) for r in table for cell in r.values()), table
    if start.strip():
        assert by_roster[0]["student_id"] == by_roster[0]["name"] == by_roster[0]["email"] == f"'{evil}"
    # everything else is as it was: numbers, a comma inside a cell (the csv module quotes it)
    assert (by_roster[1]["name"], by_roster[1]["total"], by_roster[1]["student"]) == ("Bob, Jr.", "8", "s2")


def test_a_rosters_fields_carry_no_control_characters(tmp_path):
    """Round 82's a08: a name registered with a right-to-left override, an ANSI clear-screen and a NUL reached
    grades.csv and the class report as they were (`cat grades.csv` cleared the terminal)."""
    (tmp_path / "roster.csv").write_text("student_id,name,email\ns1,Ada \u202eecalevoL\x1b[2J\x00X,a@x.edu\n")
    [entry] = classbook.read_roster(tmp_path / "roster.csv")
    assert entry.name == "Ada \ufffdecalevoL\ufffd[2J\ufffdX" and entry.student_id == "s1"


def test_a_folder_two_roster_rows_could_claim_is_on_none():
    roster = [classbook.Rostered("s1", "Sam", "sam@x"), classbook.Rostered("s2", "Sam", "sam2@x")]
    matching = classbook.match_roster(roster, ["Sam"])
    assert (matching.matched, matching.unknown) == ({}, ["Sam"])


ROSTER = [classbook.Rostered("1001", "Alice", "alice@x.edu"), classbook.Rostered("1002", "Bob", "bob@x.edu"),
          classbook.Rostered("1003", "Mallory", "mallory@x.edu")]


def test_a_folder_named_after_a_classmate_another_way_than_the_class_takes_no_row():
    """Round 18's a2: while the class's folders are named by id, Mallory's folder named BOB@X.EDU does not
    become Bob's grade (Bob has not handed in): it is on no row, and Bob's row stays missing."""
    records = {"1001": record("1001", 6.0), "BOB@X.EDU": record("BOB@X.EDU", 8.0)}
    matching = classbook.match_roster(ROSTER, records)
    assert (matching.matched, matching.unknown, matching.by) == ({"1001": "1001"}, ["BOB@X.EDU"], "student id")
    table = {r["student_id"]: r for r in rows(classbook.gradebook_csv(records, ROSTER))}
    assert [table[s]["status"] for s in ("1001", "1002", "1003")] == ["graded", "missing", "missing"]


def test_two_folders_claiming_one_student_cost_that_row_only(tmp_path):
    """Round 18's a2: Bob's folder and Mallory's BOB@X.EDU both claim Bob once the class is named by email:
    Bob's row is an error naming both, and the rest of the class is graded as before (it used to stop
    the whole batch with a usage error)."""
    records = {"alice@x.edu": record("alice@x.edu", 6.0), "bob@x.edu": record("bob@x.edu", 7.0),
               "BOB@X.EDU": record("BOB@X.EDU", 8.0)}
    matching = classbook.match_roster(ROSTER, records)
    assert matching.claimed == {"1002": ["BOB@X.EDU", "bob@x.edu"]} and matching.matched == {"1001": "alice@x.edu"}
    table = {r["student_id"]: r for r in rows(classbook.gradebook_csv(records, ROSTER))}
    assert (table["1001"]["status"], table["1001"]["total"]) == ("graded", "6")
    assert table["1002"]["status"] == "error" and "2 folders claim this student" in table["1002"]["message"]
    assert table["1002"]["total"] == "" and table["1003"]["status"] == "missing"


def test_a_classmate_registered_under_another_case_of_an_email_takes_no_row():
    """Round 83's a07: Eve registered ALICE@X.EDU; the folders alice@x.edu and ALICE@X.EDU were each on both rows,
    so on none, and Alice's row said "missing, no submission". Each folder now takes the row its name is written on;
    where two rows are written alike, both rows say so."""
    roster = [*ROSTER, classbook.Rostered("6666", "Eve", "ALICE@X.EDU")]
    records = {"alice@x.edu": record("alice@x.edu", 6.0), "ALICE@X.EDU": record("ALICE@X.EDU", 1.0),
               "bob@x.edu": record("bob@x.edu", 7.0)}
    table = {r["student_id"]: r for r in rows(classbook.gradebook_csv(records, roster))}
    assert (table["1001"]["total"], table["6666"]["total"], table["1002"]["total"]) == ("6", "1", "7")
    twice = [*ROSTER, classbook.Rostered("6666", "Eve", "alice@x.edu")]
    del records["ALICE@X.EDU"]
    matching = classbook.match_roster(twice, records)
    table = {r["student_id"]: r for r in rows(classbook.gradebook_csv(records, twice))}
    assert matching.shared["1001"] == ("alice@x.edu", ["1001", "6666"]) and "alice@x.edu" in matching.unknown
    for student in ("1001", "6666"):
        assert table[student]["status"] == "error" and table[student]["total"] == "", table[student]
        assert table[student]["message"] == ("the folder 'alice@x.edu' is named after 2 roster rows (1001, 6666): "
                                             "graded, but on no row until the roster tells them apart")


def test_a_row_whose_points_are_held_for_review_says_so():
    """Round 86: an exercise held for a person's review was a plain 0 in grades.csv, status graded, no message."""
    held = record("ann", 0.0)
    for test in held["report"]["exercises"][0]["tests"]:
        test["status"], test["message"] = "failed", results.held_message("exercise3_scaling.py, line 3: import gc")
    assert classbook.row(held)["message"] == "held for review: exercise3"
    assert classbook.row(record("bob", 6.0))["message"] == ""


def test_a_student_batch_has_not_graded_yet_is_never_missing():
    """Round 80: a batch stopped after two students wrote every other rostered student `missing`, with no
    name: the status of one who never handed in. A folder not graded yet is said so, by name, with no total."""
    records = {"1001": record("1001", 6.0)}
    table = {r["student_id"]: r for r in rows(classbook.gradebook_csv(records, ROSTER, pending=["1002"]))}
    assert [table[s]["status"] for s in ("1001", "1002", "1003")] == ["graded", "not graded yet", "missing"]
    assert (table["1002"]["student"], table["1002"]["total"]) == ("1002", "")
    plain = {r["student"]: r for r in rows(classbook.gradebook_csv(records, pending=["1002"]))}
    assert plain["1002"]["status"] == "not graded yet" and "same batch command again" in plain["1002"]["message"]


def test_a_row_without_a_roster_has_percent_and_failures_keep_empty_points():
    records = {"a": record("a", 3.0, 4.0), "b": record("b", status="no files"), "c": record("c", status="error")}
    table = {r["student"]: r for r in rows(classbook.gradebook_csv(records))}
    assert (table["a"]["total"], table["a"]["max_score"], table["a"]["percent"]) == ("3", "4", "75.0")
    assert (table["b"]["total"], table["b"]["max_score"], table["b"]["percent"]) == ("0", "4", "0.0")
    # the grader failed: no grade invented, but the class's one maximum (every row has it)
    assert (table["c"]["total"], table["c"]["max_score"], table["c"]["percent"]) == ("", "4", "")


# -- merge rules -------------------------------------------------------------------------------------

def shard_output(folder, shard, students, records, settings=None):
    """A shard's output as batch writes it: CSV, reports folder with the manifest and JSONs."""
    reports = folder / "grades"
    reports.mkdir(parents=True)
    classbook.write_manifest(reports, shard, [Path(s) for s in students], settings or {"seed": 0})
    for name, value in records.items():
        (reports / f"{name}.json").write_text(json.dumps(value))
    (folder / "grades.csv").write_text(classbook.gradebook_csv(records))
    return folder


def test_merge_refuses_a_student_graded_twice(tmp_path):
    first = shard_output(tmp_path / "a", (0, 2), ["ann"], {"ann": record("ann", 1.0)})
    second = shard_output(tmp_path / "b", (1, 2), ["ann"], {"ann": record("ann", 2.0)})
    result = CliRunner().invoke(main, ["merge", str(first), str(second), "--out", str(tmp_path / "all.csv")])
    assert result.exit_code == 2 and "'ann' is in two shard outputs" in unwrapped(result.output)
    assert not (tmp_path / "all.csv").exists()
    again = CliRunner().invoke(main, ["merge", str(first), str(first / "grades.csv"), "--out", str(tmp_path / "x.csv")])
    assert again.exit_code == 2 and "given twice" in unwrapped(again.output)


def test_merge_refuses_shards_graded_differently(tmp_path):
    first = shard_output(tmp_path / "a", (0, 2), [], {}, {"seed": 0})
    second = shard_output(tmp_path / "b", (1, 2), [], {}, {"seed": 1})
    result = CliRunner().invoke(main, ["merge", str(first), str(second), "--out", str(tmp_path / "all.csv")])
    assert result.exit_code == 2 and "other settings" in result.output


def test_merge_refuses_students_graded_on_different_devices(tmp_path):
    on_cpu, on_gpu = record("ann", 1.0), record("ben", 2.0)
    on_cpu["report"]["device"], on_gpu["report"]["device"] = "cpu", "cpu+cuda"
    first = shard_output(tmp_path / "a", (0, 2), ["ann"], {"ann": on_cpu})
    second = shard_output(tmp_path / "b", (1, 2), ["ben"], {"ben": on_gpu})
    result = CliRunner().invoke(main, ["merge", str(first), str(second), "--out", str(tmp_path / "all.csv")])
    assert result.exit_code == 2 and "different devices (cpu: ann; cpu+cuda: ben)" in unwrapped(result.output)


def test_merge_reports_missing_students_and_shards(tmp_path):
    first = shard_output(tmp_path / "a", (0, 3), ["ann", "ben"], {"ann": record("ann", 1.0)})
    second = shard_output(tmp_path / "b", (2, 3), ["cat"], {"cat": record("cat", 2.0)})
    out = tmp_path / "all.csv"
    result = CliRunner().invoke(main, ["merge", str(first), str(second), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "missing: ben (shard 0/3 did not finish grading them)" in result.stderr
    assert "missing: shard 1/3 (no output given: its students are missing)" in result.stderr
    assert sorted(read_csv(out)) == ["ann", "cat"]
    assert sorted(path.name for path in (tmp_path / "all").iterdir()) == ["ann.json", "cat.json"]
    # round 86: with a roster, a student of the shard left out was "missing, no submission", 0 points
    (tmp_path / "roster.csv").write_text("student_id,name,email\nann,Ann,a@x\ncat,Cat,c@x\ndan,Dan,d@x\n")
    result = CliRunner().invoke(main, ["merge", str(first), str(second), "--out", str(out), "--roster",
                                       str(tmp_path / "roster.csv")])
    rows = {row["student_id"]: row for row in csv.DictReader(out.open(encoding="utf-8"))}
    assert (rows["dan"]["status"], rows["dan"]["total"]) == (classbook.PENDING, ""), rows["dan"]
    assert rows["dan"]["message"] == "in none of the shards given: merge every shard's output"
    assert rows["ann"]["status"] == "graded" and result.exit_code == 1


def test_merge_of_something_else_is_a_usage_error(tmp_path):
    (tmp_path / "grades.csv").write_text("student\n")
    result = CliRunner().invoke(main, ["merge", str(tmp_path), "--out", str(tmp_path / "all.csv")])
    assert result.exit_code == 2 and "batch --shard" in unwrapped(result.output)


# -- a real class, sharded and not -------------------------------------------------------------------

def test_three_shards_and_a_merge_equal_one_batch_row_for_row(tmp_path):
    # shards of 3: judy 0, dave 1, alice and bob 2 (test_the_shard_of_a_name... pins the rule)
    folder = make_class(tmp_path / "submissions", {
        "alice": {"hw/exercise3_scaling.py": CORRECT},
        "bob": {"exercise3_scaling.py": WRONG_SCALING},
        "dave": {"exercise3_scaling.py": "def scale_scores(:\n"},
        "judy": {"notes.txt": "nothing yet"},
    })
    common = ["--jobs", "2", "--timeout", "20", "--device", "cpu", "--no-perf"]
    whole = CliRunner().invoke(main, ["batch", str(folder), "--out", str(tmp_path / "whole.csv"), *common])
    assert whole.exit_code == 0, whole.output
    outputs = []
    for k in range(3):
        out = tmp_path / f"shard-{k}" / "grades.csv"
        result = CliRunner().invoke(main, ["batch", str(folder), "--shard", f"{k}/3", "--out", str(out), *common])
        assert result.exit_code == 0, result.output
        assert f"(shard {k}/3)" in result.output
        outputs.append(out.parent)
    assert [len(read_csv(path / "grades.csv")) for path in outputs] == [1, 1, 2]
    merged = CliRunner().invoke(main, ["merge", *map(str, outputs), "--out", str(tmp_path / "merged.csv")])
    assert merged.exit_code == 0, merged.output
    whole_text = (tmp_path / "whole.csv").read_text()
    assert (tmp_path / "merged.csv").read_text() == whole_text  # row for row, byte for byte
    table = read_csv(tmp_path / "whole.csv")
    assert float(table["alice"]["exercise3"]) > float(table["bob"]["exercise3"]) > 0
    for row in (table["alice"], table["bob"]):
        assert float(row["percent"]) == pytest.approx(100 * float(row["total"]) / float(row["max_score"]), abs=0.05)
    assert table["judy"]["status"] == "no files"

    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,email\nalice,Alice,a@x\nbob,Bob,b@x\nkim,Kim,k@x\n")
    with_roster = CliRunner().invoke(main, ["merge", *map(str, outputs), "--out", str(tmp_path / "lms.csv"),
                                            "--roster", str(roster)])
    assert with_roster.exit_code == 0, with_roster.output
    assert "2 folder(s) not on the roster" in with_roster.stderr and "dave, judy" in with_roster.stderr
    # the roster applied by an unsharded batch (resuming: nobody regraded) gives the same gradebook
    resumed = CliRunner().invoke(main, ["batch", str(folder), "--out", str(tmp_path / "whole.csv"), *common,
                                        "--roster", str(roster)])
    assert resumed.exit_code == 0 and "skipping 4 student(s)" in resumed.stderr
    assert (tmp_path / "whole.csv").read_text() == (tmp_path / "lms.csv").read_text()
    lms = list(read_csv(tmp_path / "lms.csv").values())
    assert [(r["student_id"], r["status"]) for r in lms] == [("alice", "graded"), ("bob", "graded"), ("kim", "missing")]
    assert lms[2]["max_score"] == table["alice"]["max_score"] and lms[2]["total"] == "0"


def test_the_closing_counts_are_the_gradebooks_rows_and_a_folder_off_the_roster_is_named(tmp_path):
    """Roster a1, b2, c3; folders ann@x.edu and bob@x.edu (a1's and b2's emails) and dave (on no row). A resumed batch
    (the records already there: nothing is graded again) and a merge count the CSV's rows (2
    graded, c3 missing), not the folders, and say what became of dave; the class report counts
    the roster's graded students and never shows dave, who has no roster id to be shown by."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student_id,name,email\na1,Ann One,ann@x.edu\nb2,Bob Two,bob@x.edu\nc3,Cy Three,cy@x.edu\n")
    folders = ["ann@x.edu", "bob@x.edu", "dave"]
    make_class(tmp_path / "class", {name: {"exercise3_scaling.py": CORRECT} for name in folders})
    out = shard_output(tmp_path / "graded", (0, 1), folders, {name: record(name, 0.0) for name in folders}) / "grades.csv"
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--out", str(out), "--roster", str(roster),
                                       "--no-perf", "--device", "cpu"])
    assert result.exit_code == 0, result.output
    assert "skipping 3 student(s) already graded" in result.stderr
    table = read_csv(out)
    assert {r["student_id"]: r["status"] for r in table.values()} == {"a1": "graded", "b2": "graded", "c3": "missing"}
    said = unwrapped(result.stdout)
    assert f"3 students (2 graded, 1 missing) in {out}" in said
    assert "1 folder(s) not on the roster graded but not in the CSV" in said and said.endswith(": dave")

    merged = CliRunner().invoke(main, ["merge", str(out.parent), "--out", str(tmp_path / "all.csv"), "--roster", str(roster)])
    assert merged.exit_code == 0, merged.output
    assert "3 students (2 graded, 1 missing)" in unwrapped(merged.stdout) and unwrapped(merged.stdout).endswith(": dave")

    reported = CliRunner().invoke(main, ["class-report", str(out.parent / "grades"), "--roster", str(roster),
                                         "--out", str(tmp_path / "report")])
    assert reported.exit_code == 0, reported.output
    assert "class report of 2 graded students" in unwrapped(reported.stderr)
    assert "left out, not on the roster: dave" in unwrapped(reported.stderr)
    summary = json.loads((tmp_path / "report" / "class-report.json").read_text())
    assert summary["students"]["graded"] == 2 and summary["students"]["not_on_roster"] == 1
    assert summary["students"]["never_submitted"] == ["c3"]
    assert sorted(s["student"] for s in summary["stuck"]) == ["a1", "b2"]  # roster ids; dave is not shown
    for written in ("class-report.json", "class-report.html", "misconceptions.csv"):
        assert "dave" not in (tmp_path / "report" / written).read_text()
