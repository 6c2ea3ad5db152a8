"""A class that always finishes: whatever a student's folder holds (a tree too deep or too large, a
link, a pipe, a socket, a device, a hard link onto the answer key, names that are not UTF-8 or hold
newlines, a folder named like the kit's own files), that student gets a row with a one-line reason,
the others are graded, the shard still merges, and nothing is left in TMPDIR. The same rule reads a
student's file in `lumen-grade`, `batch` and Gradescope."""

import json
import os
import shutil
import socket
import stat
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS
from grader import catalog
from grader.cli.main import main
from grader.course import batch, classbook, gradescope
from grader.grading import submission
from grader.grading.settings import DEFAULTS
from grader.sandbox import files

SOLUTION = SOLUTIONS / "exercise3_scaling.py"
EXERCISE3 = catalog.find("exercise3")


_NESTED = []  # the deep trees made by `nest`, removed after each test (see `remove_deep_trees`)


@pytest.fixture(autouse=True)
def remove_deep_trees():
    """pytest's own clean-up of old temporary folders (shutil.rmtree) recurses, and a tree past
    Python's recursion limit would make every later pytest run on this machine fail at exit."""
    yield
    while _NESTED:
        files.remove_tree(_NESTED.pop())


def nest(folder, depth):
    """`depth` folders one in another under `folder`, made relative to each other (no long paths)."""
    os.makedirs(folder, exist_ok=True)
    _NESTED.append(folder)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


def hard_link_to_solution(path):
    """A hard link at `path` onto the kit's solution, or a skip where this user may not make one
    (fs.protected_hardlinks: an ordinary user cannot link a root-owned file it cannot write)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        os.link(SOLUTION, path)
    except PermissionError:
        pytest.skip("this user may not hard-link the kit's files here (fs.protected_hardlinks): there is "
                    "nothing for the grader to refuse")


@pytest.fixture
def fresh_tmpdir(tmp_path, monkeypatch):
    """TMPDIR set to an empty folder, for this process (tempfile reads it again) and its graders."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


def bind_socket(folder, name):
    """A Unix socket file `name` in `folder`, bound from inside it: a socket's address holds at most
    108 bytes, fewer than a temporary folder's path may have."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(name)
    finally:
        os.chdir(here)


def hostile_class(folder):
    """{student folder name (bytes): the row's expected status} of a class made under `folder`."""
    os.makedirs(folder)
    code = SOLUTION.read_bytes()
    expected = {}

    def student(name, status):
        path = os.path.join(os.fsencode(folder), name)
        os.makedirs(path)
        expected[name] = status
        return path

    nest(os.fsdecode(student(b"deep", "error")), 1100)  # once a RecursionError that ended the batch
    sym = student(b"symlink", "no files")
    os.symlink(SOLUTION, os.path.join(sym, b"exercise3_scaling.py"))
    os.mkfifo(os.path.join(student(b"fifo", "no files"), b"exercise3_scaling.py"))
    bind_socket(student(b"socket", "no files"), b"exercise3_scaling.py")
    if os.geteuid() == 0:
        os.mknod(os.path.join(student(b"device", "no files"), b"exercise3_scaling.py"),
                 stat.S_IFCHR | 0o600, os.makedev(1, 3))  # /dev/null's numbers
    # graded: a folder named like the shard's manifest, and names that are not UTF-8 or hold newlines
    with open(os.path.join(student(b"_shard", "graded"), b"exercise3_scaling.py"), "wb") as file:
        file.write(code)
    # a long name, and a folder named as the gradebook knows it: two students, two rows (once one)
    with open(os.path.join(student(b"v" * 240, "graded"), b"exercise3_scaling.py"), "wb") as file:
        file.write(code)
    student(os.fsencode(classbook.student_name("v" * 240)), "no files")
    inside = os.path.join(student(b"Jos\xe9\nline", "graded"), b"a\nb", b"\xff\xfe")
    os.makedirs(inside)
    with open(os.path.join(inside, b"exercise3_scaling.py"), "wb") as file:
        file.write(code)
    return expected


def grade_class(folder, out, *args):
    return CliRunner().invoke(main, ["batch", str(folder), "--out", str(out), "--device", "cpu", "--no-perf",
                                     "--jobs", "2", *map(str, args)])


def records_of(out):
    return {path.stem: json.loads(path.read_text(encoding="utf-8"))
            for path in batch.reports_folder(out).glob("*.json")}


@pytest.mark.privileges
def test_a_hostile_class_finishes_a_row_each_and_leaves_nothing_in_tmpdir(tmp_path, fresh_tmpdir):
    expected = hostile_class(tmp_path / "class")
    out = tmp_path / "out" / "grades.csv"
    result = grade_class(tmp_path / "class", out, "--shard", "0/1")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == 1, result.output  # the students marked error
    records = records_of(out)
    assert {name: record["status"] for name, record in records.items()} == {
        classbook.student_name(os.fsdecode(name)): status for name, status in expected.items()}
    assert "more than 32 levels deep" in records["deep"]["message"]
    for name in ("symlink", "fifo", "socket", "device"):
        if name in records:
            kind = {"symlink": "a link", "fifo": "a pipe", "socket": "a socket", "device": "a device"}[name]
            assert f"exercise3_scaling.py: it is {kind}, not a file" in records[name]["message"]
    assert all("\n" not in record["message"] for record in records.values())
    odd = records["Jos%E9%0Aline"]
    assert odd["report"]["score"] == odd["report"]["exercises"][2]["max_score"] > 0
    # a newline in a folder's name is a space where the name is shown (round 83's a12 forged lines with it)
    assert odd["report"]["exercises"][2]["file"] == "a b/\ufffd\ufffd/exercise3_scaling.py"
    assert records["_shard"]["report"]["score"] > 0
    assert os.listdir(fresh_tmpdir) == []
    merged = CliRunner().invoke(main, ["merge", str(out), "--out", str(tmp_path / "merged.csv")])
    # the student _shard did not overwrite the manifest (a refusal, 2); 1: a row is an error (deep's), as in batch
    assert merged.exit_code == 1 and "missing" not in merged.output, merged.output
    assert f"{len(expected)} students" in merged.output


@pytest.mark.privileges
def test_a_hard_link_onto_the_answer_key_is_refused_by_lumen_grade_batch_and_gradescope(tmp_path, fresh_tmpdir):
    """The refusal costs that exercise alone, as `lumen-grade all` does: in `batch` and Gradescope
    the student's other file is graded; a student whose only file is refused gets a row `error`."""
    hard_link_to_solution(tmp_path / "class" / "mallory" / "sub" / "exercise3_scaling.py")
    os.link(tmp_path / "class" / "mallory" / "sub" / "exercise3_scaling.py", tmp_path / "class" / "trudy.py")
    (tmp_path / "class" / "trudy").mkdir()
    os.rename(tmp_path / "class" / "trudy.py", tmp_path / "class" / "trudy" / "exercise3_scaling.py")
    (tmp_path / "class" / "mallory" / "exercise2_scoring.py").write_bytes((SOLUTIONS / "exercise2_scoring.py").read_bytes())
    refusal = "is a link to one of the grader's own files, not your code"
    alone = CliRunner().invoke(main, ["exercise3", "--submission", str(tmp_path / "class" / "mallory" / "sub"),
                                      "--device", "cpu", "--no-perf", "--format", "json"])
    assert alone.exit_code == 1 and refusal in alone.output
    assert json.loads(alone.output)["score"] == 0
    out = tmp_path / "grades.csv"
    assert grade_class(tmp_path / "class", out).exit_code == 1  # trudy's row is an error
    records = records_of(out)
    why = f"cannot grade sub/exercise3_scaling.py: exercise3_scaling.py {refusal}: submit the file you wrote"
    exercises = {exercise["id"]: exercise for exercise in records["mallory"]["report"]["exercises"]}
    assert records["mallory"]["status"] == "graded" and exercises["exercise2"]["score"] == 17
    assert exercises["exercise3"]["score"] == 0 and exercises["exercise3"]["error"] == why
    assert exercises["exercise3"]["handed_in"] and exercises["exercise3"]["file"] == "sub/exercise3_scaling.py"
    assert {test["status"] for test in exercises["exercise3"]["tests"]} - {"skipped"} == {"not_run"}  # skipped: CUDA
    assert records["trudy"]["status"] == "error" and records["trudy"]["report"] is None
    assert records["trudy"]["message"] == why.replace("sub/", "").join(["exercise3: ", ""])
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    for name in ("sub/exercise3_scaling.py", "exercise2_scoring.py"):
        os.link(tmp_path / "class" / "mallory" / name, root / "submission" / Path(name).name)
    results = gradescope.run(root, exercises=[EXERCISE3, catalog.find("exercise2")], no_perf=True)
    assert results["score"] == 17 and refusal in results["output"] and "not your fault" not in results["output"]
    assert os.listdir(fresh_tmpdir) == []


def test_a_hard_link_onto_the_bundles_own_solution_is_refused_on_gradescope(tmp_path, fresh_tmpdir):
    """Round 25's a16: the bundle's self-test solution (<root>/source/selftest) is the answer key too."""
    (tmp_path / "source" / "selftest").mkdir(parents=True)
    (tmp_path / "submission").mkdir()
    shutil.copyfile(SOLUTION, tmp_path / "source" / "selftest" / "exercise3_scaling.py")
    os.link(tmp_path / "source" / "selftest" / "exercise3_scaling.py", tmp_path / "submission" / "exercise3_scaling.py")
    results = gradescope.run(tmp_path, exercises=[EXERCISE3], no_perf=True)
    assert results["score"] == 0 and "is a link to one of the grader's own files" in results["output"]
    assert os.listdir(fresh_tmpdir) == []


def test_gradescope_tells_the_student_when_their_upload_is_too_deep(tmp_path, fresh_tmpdir):
    nest(tmp_path / "submission", 40)
    (tmp_path / "submission" / "exercise3_scaling.py").write_bytes(SOLUTION.read_bytes())
    results = gradescope.run(tmp_path, exercises=[EXERCISE3], no_perf=True)
    assert results["score"] == 0 and "more than 32 levels deep" in results["output"]
    assert "not your fault" not in results["output"]
    assert os.listdir(fresh_tmpdir) == []


# -- the walk --------------------------------------------------------------------------------------

def test_the_walk_is_bounded_in_depth_entries_and_bytes_and_never_recurses(tmp_path, monkeypatch):
    nest(tmp_path / "deep", 5000)  # far past Python's recursion limit
    with pytest.raises(submission.TreeTooLarge, match="more than 32 levels deep"):
        submission.listing(tmp_path / "deep", nested=True)
    assert submission.listing(tmp_path / "deep").files == ()  # one level only: no bound reached
    wide = tmp_path / "wide"
    wide.mkdir()
    for number in range(30):
        (wide / f"notes{number}.txt").write_text("")
    monkeypatch.setattr(DEFAULTS, "tree_entries", 20)
    with pytest.raises(submission.TreeTooLarge, match="more than 20 files and folders"):
        submission.listing(wide, nested=True)
    monkeypatch.setattr(DEFAULTS, "tree_entries", 100)
    (wide / "exercise3_scaling.py").write_bytes(SOLUTION.read_bytes())
    (wide / "exercise4_masking.py").write_bytes(SOLUTION.read_bytes())
    monkeypatch.setattr(DEFAULTS, "tree_bytes", SOLUTION.stat().st_size + 1)
    (tmp_path / "staged").mkdir()
    with pytest.raises(submission.TreeTooLarge, match="together"):
        gradescope.stage_files(wide, tmp_path / "staged")


def test_ignored_folders_do_not_count_against_the_depth(tmp_path):
    nest(tmp_path / "student" / "node_modules", 100)
    nest(tmp_path / "student" / ".git", 100)
    (tmp_path / "student" / "exercise3_scaling.py").write_text("x = 1\n")
    assert submission.candidates(EXERCISE3, tmp_path / "student", nested=True) == [
        tmp_path / "student" / "exercise3_scaling.py"]


def test_lumen_grade_says_what_an_exercise_file_that_is_not_a_file_is(tmp_path):
    os.symlink(SOLUTION, tmp_path / "exercise3_scaling.py")
    os.mkfifo(tmp_path / "exercise4_masking.py")
    for exercise, kind in (("exercise3", "a link"), ("exercise4", "a pipe")):
        with pytest.raises(submission.SubmissionError, match=f"is {kind}, not a file"):
            submission.prepare(catalog.find(exercise), tmp_path, tmp_path)


@pytest.mark.privileges
def test_remove_tree_removes_any_tree_a_child_left_and_follows_no_link(tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("mine")
    tree = tmp_path / "scratch"
    nest(tree, 3000)
    (tree / "locked").mkdir()
    (tree / "locked" / "inner").mkdir()
    os.symlink(victim, tree / "link")
    os.symlink(victim, tree / "locked" / "link")
    os.mkfifo(tree / "pipe")
    os.chmod(tree / "locked" / "inner", 0)
    os.chmod(tree / "locked", 0)
    os.chmod(victim, 0o751)
    files.remove_tree(tree)
    assert not os.path.lexists(tree)
    assert (victim / "keep.txt").read_text() == "mine" and stat.S_IMODE(victim.stat().st_mode) == 0o751


# -- names and the shard's own files ---------------------------------------------------------------

@pytest.mark.parametrize("folder, name", [
    ("alice", "alice"), ("Zoë Ñ", "Zoë Ñ"), ("_shard", "_shard"),
    (os.fsdecode(b"Jos\xe9"), "Jos%E9"), ("a\nb\tc", "a%0Ab%09c"), ("50%", "50%25"), ("a\\b", "a%5Cb"),
    ("\u202eevil", "%E2%80%AEevil"),
])
def test_a_student_is_known_by_a_printable_name_no_other_folder_has(folder, name):
    assert classbook.student_name(folder) == name
    assert classbook.is_student_name(name)


def test_a_long_folder_name_is_cut_and_stays_unique():
    one, other = classbook.student_name("x" * 300), classbook.student_name("x" * 299)
    assert one != other and len(one.encode()) <= classbook.MAX_NAME_BYTES
    assert one.startswith("x" * 100)
    # a folder named as a long name is cut is not known by that name (round 12's attack)
    impostor = classbook.student_name(one)
    assert impostor != one and len(impostor.encode()) <= classbook.MAX_NAME_BYTES
    for short in ("ab~" + "0" * 16, "é" * 60 + "~0123456789abcdef"):  # too short to be a cut name: kept
        assert classbook.student_name(short) == short
    several = ["é" * 120, "x" + "é" * 119, "xé" * 80 + "é"]  # cut inside a character, or not
    names = {classbook.student_name(folder) for folder in several}
    assert len(names) == 3 and all(classbook.student_name(name) != name for name in names)


def test_merge_still_reads_a_shard_written_with_the_old_manifest_name(tmp_path):
    out = tmp_path / "shard" / "grades.csv"
    (tmp_path / "class" / "amy").mkdir(parents=True)
    assert grade_class(tmp_path / "class", out, "--shard", "0/1").exit_code == 0
    reports = batch.reports_folder(out)
    assert sorted(os.listdir(reports)) == ["_shard.manifest", "amy.json"]
    os.rename(reports / classbook.MANIFEST, reports / classbook.OLD_MANIFEST)
    merged = CliRunner().invoke(main, ["merge", str(out), "--out", str(tmp_path / "merged.csv")])
    assert merged.exit_code == 0 and "1 students (1 no files)" in merged.output, merged.output


def test_gradescope_says_which_upload_is_a_link_not_a_file(tmp_path):
    (tmp_path / "submission" / "hw").mkdir(parents=True)
    os.symlink(SOLUTION, tmp_path / "submission" / "hw" / "exercise3_scaling.py")
    results = gradescope.run(tmp_path, exercises=[EXERCISE3], no_perf=True)
    assert results["score"] == 0
    assert "exercise3: not graded hw/exercise3_scaling.py: it is a link, not a file" in results["output"]


def test_the_class_report_finds_a_folder_by_its_printable_name(tmp_path):
    from grader.course import class_report

    (tmp_path / os.fsdecode(b"Jos\xe9")).mkdir()
    (tmp_path / "amy").mkdir()
    assert class_report.student_folder(tmp_path, "Jos%E9") == tmp_path / os.fsdecode(b"Jos\xe9")
    assert class_report.student_folder(tmp_path, "amy") == tmp_path / "amy"


def test_the_class_report_never_reads_a_folder_named_as_a_classmates_gradebook_name(tmp_path):
    """Round 59's a02: `alice<TAB>b` is `alice%09b` in the gradebook; a folder literally named `alice%09b`
    (known as `alice%2509b`) was read as hers, and --similarity showed the two as one code."""
    from grader.course import class_report

    (tmp_path / "alice\tb").mkdir()
    (tmp_path / "alice%09b").mkdir()
    assert class_report.student_folder(tmp_path, "alice%09b") == tmp_path / "alice\tb"
    assert class_report.student_folder(tmp_path, "alice%2509b") == tmp_path / "alice%09b"


def test_a_folder_that_cannot_be_read_is_said(tmp_path, monkeypatch):
    """Round 25: a file inside a folder the grader cannot read was skipped without a word ("no files")."""
    (tmp_path / "alice" / "locked").mkdir(parents=True)
    (tmp_path / "alice" / "locked" / "exercise3_scaling.py").write_bytes(SOLUTION.read_bytes())
    scandir = os.scandir

    def refusing(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return scandir(path)

    monkeypatch.setattr(submission.os, "scandir", refusing)
    (tmp_path / "staged").mkdir()
    staged, notes = gradescope.stage(tmp_path / "alice", tmp_path / "staged", [EXERCISE3])
    assert staged == {} and notes == ["not searched: the folder locked could not be read"]


def test_a_student_folder_that_is_a_link_is_not_graded_through_it(tmp_path, fresh_tmpdir):
    """Round 27, a07: `bob -> solutions/` got full marks from the answer key, `carol -> alice` got
    alice's files. Each link gets a row `error` that says why; alice is graded as ever."""
    from grader.course import class_report

    (tmp_path / "class" / "alice").mkdir(parents=True)
    (tmp_path / "class" / "alice" / "exercise3_scaling.py").write_bytes(SOLUTION.read_bytes())
    os.symlink(SOLUTIONS, tmp_path / "class" / "bob")
    os.symlink("alice", tmp_path / "class" / "carol")
    out = tmp_path / "grades.csv"
    result = grade_class(tmp_path / "class", out)
    assert result.exit_code == 1, result.output
    records = records_of(out)
    assert records["alice"]["status"] == "graded" and records["alice"]["report"]["score"] > 0
    for name in ("bob", "carol"):
        assert records[name]["status"] == "error" and records[name]["report"] is None
        assert records[name]["message"].startswith(f"{name} is a link to another folder, not a student's own folder")
        assert "\n" not in records[name]["message"]
        assert class_report.student_source(tmp_path / "class" / name, EXERCISE3) is None
    assert class_report.student_source(tmp_path / "class" / "alice", EXERCISE3) is not None
    assert os.listdir(fresh_tmpdir) == []


def test_a_file_of_the_kit_reached_through_a_folder_link_is_refused(tmp_path):
    """Round 27, a07: the hard-link check was waved for any file whose real path is in the kit; it is
    waved only where the path as given is in the kit (`--submission solutions`)."""
    os.symlink(SOLUTIONS, tmp_path / "bob")
    with pytest.raises(files.UnsafeFile, match="is a link to one of the grader's own files"):
        files.read_submission(tmp_path / "bob" / SOLUTION.name)
    assert files.read_submission(SOLUTION) == SOLUTION.read_bytes()
    alone = CliRunner().invoke(main, ["exercise3", "--submission", str(SOLUTIONS), "--device", "cpu", "--no-perf",
                                      "--format", "json"])
    assert alone.exit_code == 0 and json.loads(alone.output)["score"] == json.loads(alone.output)["max_score"]
    linked = CliRunner().invoke(main, ["exercise3", "--submission", str(tmp_path / "bob"), "--device", "cpu",
                                       "--no-perf", "--format", "json"])  # a CI repository's `exercises -> kit`
    assert linked.exit_code == 1 and json.loads(linked.output)["score"] == 0
    assert "is a link to one of the grader's own files" in linked.output


def test_telling_a_stub_from_work_reads_a_few_small_files(tmp_path, monkeypatch):
    """Round 82's a03: beside a notebook, each .py copy of the exercise was parsed to tell whether it is still the
    stub: copies of 2 MiB cost 30 s and 1.3 GB each, in the one process of `batch` that starts every student's
    grading. Only the shallowest few are read, and none larger than a stub can be."""
    import ast

    parsed, parse = [], ast.parse
    monkeypatch.setattr(ast, "parse", lambda source, *args, **kwargs: parsed.append(len(source)) or parse(
        source, *args, **kwargs))
    exercise = catalog.find("3")
    released = SOLUTIONS.parent / "exercises"
    shutil.copyfile(released / "notebooks" / f"{exercise.stem}.ipynb", tmp_path / f"{exercise.stem}.ipynb")
    shutil.copyfile(released / exercise.file_name, tmp_path / exercise.file_name)  # the stub as released
    for k in range(8):
        (tmp_path / "old" / f"v{k}").mkdir(parents=True)
        (tmp_path / "old" / f"v{k}" / exercise.file_name).write_text("x = 1\n" * (files.MAX_SOURCE_BYTES // 7))
    order = submission.candidates(exercise, tmp_path, nested=True)
    assert order[-1] == tmp_path / exercise.file_name and order[-2].suffix == ".ipynb"  # the stub after the notebook
    assert len(parsed) <= submission.STUB_CHECKS and max(parsed) <= submission.STUB_BYTES, parsed


def test_many_copies_under_a_long_path_are_named_a_few_times_and_shortly(tmp_path, fresh_tmpdir):
    """Round 83's a02 to a05: copies of an exercise (or files misnamed after it) by the thousand, in folders of
    thousands of characters, were each named with their whole path in the student's record (45 MB), in Gradescope's
    output (7 MB) and in a gradebook cell (22 MB, past what csv reads), and a message repeating the staged file's
    name grew 110-fold where the student's path replaced it: merge then lost the student. Each name is cut to
    NAME_CHARS, at most NAMES_LISTED are listed, and a message grows at most to twice its length."""
    deep = tmp_path / "class" / "mallory"
    for level in range(12):
        deep = deep / f"{level:02d}{'z' * 240}"
    deep.mkdir(parents=True)
    for k in range(40):
        (deep / f"exercise3_scaling-Copy{k}.ipynb").write_text("{}")
        (deep / f"exercise2-{k}.py").write_text("")  # misnamed, for an exercise with no file
    found = submission.listing(tmp_path / "class" / "mallory", nested=True)
    notes = gradescope.not_file_notes(tmp_path / "class" / "mallory", found, [catalog.find("exercise2")])
    assert len(notes) == gradescope.NAMES_LISTED + 1 and max(map(len, notes)) < 2 * gradescope.NAME_CHARS, notes
    assert notes[-1] == f"exercise2: not graded: {40 - gradescope.NAMES_LISTED} more like those"
    (tmp_path / "staged").mkdir()
    staged, notes = gradescope.stage(tmp_path / "class" / "mallory", tmp_path / "staged", [EXERCISE3])
    assert len(notes) == 1 and len(notes[0]) < 8 * gradescope.NAME_CHARS and notes[0].endswith(" more)"), notes
    named = gradescope.as_submitted(tmp_path / "class" / "mallory", staged, EXERCISE3)
    assert len(named["file"]) <= gradescope.NAME_CHARS and len(named["ignored"]) == gradescope.NAMES_LISTED + 1
    assert named["ignored"][-1] == f"… and {40 - gradescope.NAMES_LISTED - 1} more"
    repeated = "submission/exercise3_scaling.py " * 60
    grown = batch._replaced({"message": repeated}, {"submission/exercise3_scaling.py": "x" * 3500})["message"]
    assert len(grown) == max(2 * len(repeated), batch.GROWN_CHARS) and grown.endswith("…")
