"""The hint ladder's engine (grader.course.ladder): attempts by content, `hint`, the policy's caps,
the state beside the submission, and Gradescope's earlier uploads.

The level texts are written elsewhere (grader.diagnosis.hints); these tests give the ladder
diagnoses whose levels they choose (`fake_levels`), so that they hold whatever texts exist today.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest import ROOT
from grader import catalog
from grader.course import ladder
from grader.diagnosis import hints
from grader.grading.results import ExerciseResult, GradeReport
from grader.grading.settings import Policy, Settings

EX3 = catalog.find("exercise3")
MISTAKE = "fake-mistake"
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def fake_levels(monkeypatch):
    """hints.ladder gives the levels a diagnosis lists in its "fake_levels" (all four by default)."""
    def fake(diagnosis):
        return [{"level": n, "kind": hints.KINDS[n - 1], "text": f"level {n} of {diagnosis['id']}"}
                for n in diagnosis.get("fake_levels", (1, 2, 3, 4))]

    monkeypatch.setattr(hints, "ladder", fake)


def verdict(*diagnoses):
    result = ExerciseResult(EX3.id, EX3.title, EX3.file_name, diagnoses=list(diagnoses))
    return GradeReport([result], "cpu", 0)


def diagnosis(levels=(1, 2, 3, 4), mistake=MISTAKE):
    return {"id": mistake, "message": f"the remedy of {mistake}", "fake_levels": levels}


class Student:
    """A student's folder with exercise 3's file, graded (the verdict made up) through the ladder."""

    def __init__(self, folder, policy=Policy()):
        self.folder, self.policy = folder, policy
        self.file = folder / EX3.file_name
        self.save("version 1")

    def save(self, text):
        self.file.write_text(f"# {text}\n", encoding="utf-8")

    def grade(self, *diagnoses, hint=None, every=None, attempt=True, engine=None):
        engine = engine or ladder.Ladder(self.policy, self.folder, now=NOW)
        found = ladder.digests([EX3], Settings(submission=self.folder))
        graded, notes = engine.apply(verdict(*(diagnoses or [diagnosis()])), found, hint=hint, hints=every,
                                     attempt=attempt)
        self.notes = notes
        return graded.exercises[0].diagnoses[0] if graded.exercises[0].diagnoses else None


def test_an_unchanged_file_stays_at_level_1_and_each_changed_version_climbs_one(tmp_path, fake_levels):
    student = Student(tmp_path)
    assert student.grade()["level"] == 1
    assert student.grade()["level"] == 1  # graded again, unchanged
    student.save("version 2")
    assert student.grade()["level"] == 2
    student.save("version 3")
    shown = student.grade()
    assert (shown["level"], shown["shown"], shown["attempts"]) == (3, [3], 3)
    student.save("version 1")  # back to a version seen before: no new attempt
    assert student.grade()["level"] == 3
    assert student.notes == []


def test_hint_climbs_one_level_at_once_and_stops_at_the_last(tmp_path, fake_levels):
    student = Student(tmp_path)
    assert student.grade()["level"] == 1
    assert student.grade(hint=ladder.NEXT)["level"] == 2
    assert student.grade()["level"] == 2  # the hint asked for is kept
    assert student.grade(hint=ladder.NEXT)["level"] == 3
    assert student.grade(hint=ladder.NEXT)["level"] == 4
    assert student.grade(hint=ladder.NEXT)["level"] == 4
    assert student.notes == [f"no further hint for exercise3 ({MISTAKE}): this is its last level"]


def test_deleting_the_lumen_folder_starts_again(tmp_path, fake_levels):
    student = Student(tmp_path)
    student.grade()
    student.save("version 2")
    student.grade()
    assert student.grade(hint=ladder.NEXT)["level"] == 3
    state = tmp_path / ".lumen" / "ladder.json"
    assert state.is_file() and state.stat().st_size < 4096  # small
    for path in (tmp_path / ".lumen").iterdir():
        path.unlink()
    (tmp_path / ".lumen").rmdir()
    assert student.grade()["level"] == 1


def test_the_state_holds_hashes_not_code(tmp_path, fake_levels):
    student = Student(tmp_path)
    student.save("the student's own secret code")
    student.grade()
    text = (tmp_path / ".lumen" / "ladder.json").read_text(encoding="utf-8")
    assert "secret" not in text
    kept = json.loads(text)["exercises"][EX3.id][MISTAKE]
    assert kept["bumps"] == 0 and [len(version) for version in kept["versions"]] == [64]


def test_each_mistake_climbs_its_own_ladder(tmp_path, fake_levels):
    student = Student(tmp_path)
    student.grade(diagnosis())
    student.save("version 2")
    assert student.grade(diagnosis())["level"] == 2
    assert student.grade(diagnosis(mistake="another-mistake"))["level"] == 1  # a new mistake starts at the first


def test_levels_a_diagnosis_lacks_are_skipped_and_one_level_is_all_it_shows(tmp_path, fake_levels):
    student = Student(tmp_path)
    assert student.grade(diagnosis((4,)))["level"] == 4  # only the remedy: today's message
    student.save("version 2")
    assert student.grade(diagnosis((4,)))["level"] == 4
    (tmp_path / "other").mkdir()
    other = Student(tmp_path / "other")
    assert other.grade(diagnosis((1, 3, 4)))["level"] == 1
    other.save("version 2")
    assert other.grade(diagnosis((1, 3, 4)))["level"] == 3  # no example yet: the next level there is


def test_the_course_caps_the_level_before_the_due_date_and_lifts_it_after(tmp_path, fake_levels):
    policy = Policy(first_level=2, highest_level=3, highest_level_after_due=4, due=NOW + timedelta(days=1))
    student = Student(tmp_path, policy)
    assert student.grade()["level"] == 2
    for version in range(2, 6):
        student.save(f"version {version}")
        shown = student.grade()
    assert (shown["level"], shown["allowed"]) == (3, 3)
    assert student.grade(hint=ladder.NEXT)["level"] == 3
    assert student.notes == [f"no further hint for exercise3 ({MISTAKE}): the course shows hints up to level 3 now"]
    late = ladder.Ladder(policy, tmp_path, now=NOW + timedelta(days=2))
    assert student.grade(engine=late)["level"] == 4


def test_a_diagnosis_whose_levels_are_all_above_the_cap_shows_none(tmp_path, fake_levels):
    student = Student(tmp_path, Policy(highest_level=3))
    shown = student.grade(diagnosis((4,)))
    assert (shown["level"], shown["shown"], shown["allowed"]) == (None, [], 3)


def test_hints_all_shows_every_level_allowed_and_the_report_keeps_them_all(tmp_path, fake_levels):
    student = Student(tmp_path, Policy(highest_level=3))
    shown = student.grade(every=ladder.ALL)
    assert shown["shown"] == [1, 2, 3] and shown["level"] == 1
    assert [hint["level"] for hint in shown["hints"]] == [1, 2, 3, 4]  # for staff: the JSON keeps every level


def test_a_watch_save_keeps_the_level(tmp_path, fake_levels):
    student = Student(tmp_path)
    assert student.grade(attempt=False)["level"] == 1  # the first version seen is recorded
    student.save("version 2")
    assert student.grade(attempt=False)["level"] == 1  # a save is not an attempt
    assert student.grade()["level"] == 2  # grading it is


@pytest.mark.parametrize("damage", [b"garbage", b'{"version": 1, "exercises": {"exercise3": {"m": {"bumps": -1}}}}',
                                    b'{"version": 99, "exercises": {}}', b"\xff\xfe", b"[" * 200_000])
def test_a_damaged_state_file_is_said_once_and_grading_goes_on(tmp_path, fake_levels, damage):
    student = Student(tmp_path)
    (tmp_path / ".lumen").mkdir()
    (tmp_path / ".lumen" / "ladder.json").write_bytes(damage)
    engine = ladder.Ladder(Policy(), tmp_path, now=NOW)
    assert student.grade(engine=engine)["level"] == 1
    assert len(student.notes) == 1 and "is not the ladder's state" in student.notes[0]
    assert json.loads((tmp_path / ".lumen" / "ladder.json").read_text())["version"] == ladder.STATE_VERSION
    assert student.grade(engine=engine)["level"] == 1 and student.notes == []


def test_a_state_that_cannot_be_written_is_said_once_and_grading_goes_on(tmp_path, fake_levels):
    student = Student(tmp_path)
    (tmp_path / ".lumen").write_text("a file where the folder would be", encoding="utf-8")
    engine = ladder.Ladder(Policy(), tmp_path, now=NOW)
    assert student.grade(engine=engine)["level"] == 1
    assert len(student.notes) == 1 and "cannot save it" in student.notes[0]
    student.save("version 2")
    assert student.grade(engine=engine)["level"] == 1 and student.notes == []  # said once; no climbing


def test_a_link_as_the_state_file_is_never_followed(tmp_path, fake_levels):
    student = Student(tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("precious", encoding="utf-8")
    (tmp_path / ".lumen").mkdir()
    (tmp_path / ".lumen" / "ladder.json").symlink_to(elsewhere)
    assert student.grade()["level"] == 1
    assert elsewhere.read_text(encoding="utf-8") == "precious"
    assert not (tmp_path / ".lumen" / "ladder.json").is_symlink()  # replaced by the state, not written through


def test_a_link_as_the_state_folder_is_never_followed(tmp_path, fake_levels):
    """bob's `.lumen` -> alice's: grading bob neither climbs alice's ladder nor reads it (round 23's a9)."""
    (tmp_path / "alice").mkdir(), (tmp_path / "bob").mkdir()
    alice, bob = Student(tmp_path / "alice"), Student(tmp_path / "bob")
    alice.grade()
    kept = (tmp_path / "alice" / ".lumen" / "ladder.json").read_bytes()
    (tmp_path / "bob" / ".lumen").symlink_to(tmp_path / "alice" / ".lumen")
    for version in ("version 2", "version 3"):
        bob.save(version)
        assert bob.grade()["level"] == 1  # nothing kept: every version is bob's first
    assert len(bob.notes) == 1 and "is a link" in bob.notes[0]
    assert (tmp_path / "alice" / ".lumen" / "ladder.json").read_bytes() == kept
    assert sorted(os.listdir(tmp_path / "alice" / ".lumen")) == ["ladder.json"]


def test_the_state_is_written_into_the_folder_opened_whatever_its_path_becomes(tmp_path, monkeypatch):
    """Round 55's note: `.lumen` swapped for a link between the check that it is none and the write (a student's
    process racing a grading by root) would have had the state written into the link's target. The folder is
    opened first (never a link) and the state written into that very folder."""
    from grader.sandbox import files

    state, elsewhere = tmp_path / ".lumen", tmp_path / "classmate"
    state.mkdir(), elsewhere.mkdir()
    write = files.write_replacing

    def swapped_then_written(name, data, dir_fd):
        state.rename(tmp_path / "opened"), state.symlink_to(elsewhere)  # after the folder was opened
        return write(name, data, dir_fd=dir_fd)

    monkeypatch.setattr(files, "write_replacing", swapped_then_written)
    files.in_own_folder(state / "ladder.json", "{}\n")
    assert (tmp_path / "opened" / "ladder.json").read_text() == "{}\n" and os.listdir(elsewhere) == []
    with pytest.raises(files.UnsafeFile, match="is a link"):
        files.in_own_folder(state / "ladder.json", "{}\n")  # a link already: refused, nothing written


def test_a_read_only_folder_as_an_unprivileged_user_grades_anyway():
    """Root writes anywhere: the read-only folder is a user's (uid 65534), in a child process."""
    top = Path(tempfile.mkdtemp(prefix="lumen-ladder-"))  # pytest's own tmp_path is root's alone (0700)
    try:
        os.chmod(top, 0o755)
        folder = top / "readonly"
        folder.mkdir()
        (folder / EX3.file_name).write_text("# mine\n", encoding="utf-8")
        os.chmod(folder, 0o555)
        script = (
            "import sys; from pathlib import Path\n"
            "from grader import catalog; from grader.course import ladder\n"
            "from grader.grading.results import ExerciseResult, GradeReport\n"
            "from grader.grading.settings import Policy, Settings\n"
            "ex = catalog.find('exercise3'); folder = Path(sys.argv[1])\n"
            "d = {'id': 'a-finding', 'message': 'what the analyser saw'}\n"
            "v = GradeReport([ExerciseResult(ex.id, ex.title, ex.file_name, diagnoses=[d])], 'cpu', 0)\n"
            "engine = ladder.Ladder(Policy(), folder)\n"
            "for _ in range(2):\n"
            "    found = ladder.digests([ex], Settings(submission=folder))\n"
            "    graded, notes = engine.apply(v, found)\n"
            "    print(graded.exercises[0].diagnoses[0]['level'], bool(found[ex.id]), len(notes), *notes)\n")
        # as root, a user's process (setpriv); already a user (CI's unprivileged pass), this one's own
        drop = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"] if os.geteuid() == 0 else []
        done = subprocess.run([*drop, sys.executable, "-c", script, str(folder)], capture_output=True, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        first, second = done.stdout.splitlines()
        level = first.split()[0]
        assert first.startswith(f"{level} True 1 hint ladder: cannot save it in") and "Permission denied" in first
        assert second == f"{level} True 0"  # the same level, and said once
        assert not (folder / ".lumen").exists()
    finally:
        os.chmod(top / "readonly", 0o755)
        shutil.rmtree(top)


@pytest.mark.parametrize("name", ["exercise3_scaling.ipynb", "exercise3_scaling.IPYNB"])  # round 62's a03
def test_a_notebook_version_is_its_code_not_its_outputs(tmp_path, name):
    import nbformat

    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("x = 1")]
    path = tmp_path / name
    nbformat.write(notebook, path)
    before = ladder.digest(path)
    notebook.cells[0].outputs = [nbformat.v4.new_output("stream", text="ran again")]
    notebook.cells[0].execution_count = 7
    nbformat.write(notebook, path)
    assert ladder.digest(path) == before
    notebook.cells[0].source = "x = 2"
    nbformat.write(notebook, path)
    assert ladder.digest(path) != before


def test_the_release_and_the_staging_of_batch_and_gradescope_ignore_the_lumen_folder(tmp_path):
    from grader.course import gradescope, release

    (tmp_path / ".lumen").mkdir()
    (tmp_path / ".lumen" / EX3.file_name).write_text("# not the student's answer\n", encoding="utf-8")
    (tmp_path / ".lumen" / "ladder.json").write_text("{}", encoding="utf-8")
    staging = Path(tempfile.mkdtemp(prefix="lumen-staged-"))
    try:
        assert gradescope.stage(tmp_path, staging) == ({}, [])  # no candidate file, nothing to note
    finally:
        shutil.rmtree(staging)
    assert release.unsafe_files(tmp_path, {EX3.file_name: b""}) == []  # only a ladder there: no one's work


# -- Gradescope: the earlier uploads ----------------------------------------------------------------

def metadata(*uploads, due="2026-12-15T23:00:00.000000-07:00", created="2026-12-01T10:00:00.000000-07:00"):
    """A submission_metadata.json as Gradescope documents it (gradescope-autograders.readthedocs.io,
    "Submission Metadata"): each previous submission's `results` is the results.json written for it."""
    return {"id": 123456, "created_at": created,
            "assignment": {"due_date": due, "late_due_date": None, "id": 25828, "title": "Attention",
                           "total_points": "190.0"},
            "submission_method": "upload", "users": [{"email": "s@example.com", "id": 1234, "name": "S"}],
            "previous_submissions": [{"submission_time": "2026-11-30T14:24:48.087023-07:00", "score": 2.0,
                                      "results": upload} for upload in uploads]}


def test_the_ladder_climbs_across_uploads_from_the_previous_results(tmp_path, fake_levels):
    """A simulated first, second and third upload with the same mistake in three versions: levels 1, 2, 3."""
    uploads, levels = [], []
    for version in (1, 2, 3):
        (tmp_path / EX3.file_name).write_text(f"# version {version}\n", encoding="utf-8")
        found = ladder.digests([EX3], Settings(submission=tmp_path))
        engine = ladder.Ladder(Policy(), history=ladder.history(metadata(*uploads)), now=NOW)
        graded, _ = engine.apply(verdict(diagnosis()), found)
        levels.append(graded.exercises[0].diagnoses[0]["level"])
        uploads.append({"score": 2.0, "tests": [], "extra_data": {ladder.RECORD_KEY: ladder.record(graded, found)}})
    assert levels == [1, 2, 3]
    assert not (tmp_path / ".lumen").exists()  # nothing written beside the upload
    again = ladder.Ladder(Policy(), history=ladder.history(metadata(*uploads)), now=NOW)
    assert again.apply(verdict(diagnosis()), found)[0].exercises[0].diagnoses[0]["level"] == 3  # same file again


@pytest.mark.parametrize("odd", [None, [], {"previous_submissions": "x"}, {"previous_submissions": [None, 3, {}]},
                                 {"previous_submissions": [{"results": {"extra_data": {"ladder": []}}}]},
                                 {"previous_submissions": [{"results": {"extra_data": {"ladder": {
                                     "exercise3": {"digest": 5, "mistakes": ["m"]}}}}}]}])
def test_metadata_of_another_grader_or_none_counts_for_nothing(odd):
    assert ladder.history(odd) == {}


def test_gradescope_times_with_and_without_an_offset():
    assert ladder.moment("2018-07-31T23:00:00.000000-07:00") == datetime(2018, 8, 1, 6, 0, tzinfo=timezone.utc)
    assert ladder.moment("2018-07-31T23:00:00Z") == datetime(2018, 7, 31, 23, 0, tzinfo=timezone.utc)
    assert ladder.moment("not a time") is None and ladder.moment(None) is None


def test_a_hint_with_a_new_version_climbs_one_level_not_two(tmp_path, fake_levels):
    student = Student(tmp_path)
    assert student.grade()["level"] == 1
    student.save("version 2")
    assert student.grade(hint=ladder.NEXT)["level"] == 2  # the new version's step is the hint's
    assert student.grade()["level"] == 2


def test_a_batch_passes_its_course_file_to_each_students_grader(tmp_path):
    from grader.course import batch, policy

    assert batch.course_option(None) == [] and batch.course_option(Policy()) == []
    course = tmp_path / "course.toml"
    course.write_text("[hints]\nhighest_level = 2\n", encoding="utf-8")
    assert batch.course_option(policy.load(course)) == ["--course", str(course.resolve())]
