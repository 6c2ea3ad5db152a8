"""A synthetic class built from the kit's corpora, for the class report's tests and benchmark.

Grading is the expensive part, so each distinct corpus file is graded once: a few "variant"
students (every solution, every stub, two sets of one-mistake files from tests/submissions, and two
with one file only, so that the others are missing files) go through `batch` for real. Students
are then composed from those records: a pick of a variant per exercise, the exercise's entry taken
from that variant's report, the totals added up again, so every composed record is what `batch`
would have written for that student's files (and passes the report schema's loader).
"""

import copy
import json
import random
import re
from pathlib import Path

from grader import catalog
from grader.course import batch, classbook

ROOT = Path(__file__).resolve().parents[2]
SUBMISSIONS = ROOT / "tests" / "submissions"
EXERCISES = [catalog.find(str(number)) for number in (1, 2, 3, 4, 5)]  # the synthetic class's exercises

# variant -> {exercise number: the corpus file}; "missing" has exercise 1 only
VARIANTS = {
    "solution": {e.number: ROOT / "solutions" / e.file_name for e in EXERCISES},
    "stub": {e.number: ROOT / "exercises" / e.file_name for e in EXERCISES},
    "wrong_a": {1: SUBMISSIONS / "exercise1" / "wrong_qvk_order.py",
                2: SUBMISSIONS / "exercise2" / "wrong_keys_times_queries.py",
                3: SUBMISSIONS / "exercise3" / "wrong_no_scale.py",
                4: SUBMISSIONS / "exercise4" / "wrong_inverted_causal.py",
                5: SUBMISSIONS / "exercise5" / "wrong_no_scale.py"},
    "wrong_b": {1: SUBMISSIONS / "exercise1" / "wrong_linear_layout.py",
                2: SUBMISSIONS / "exercise2" / "wrong_dot_T.py",
                3: SUBMISSIONS / "exercise3" / "wrong_divide_by_dk.py",
                4: SUBMISSIONS / "exercise4" / "wrong_minus_1e9.py",
                5: SUBMISSIONS / "exercise5" / "wrong_naive_exp.py"},
    "missing": {1: ROOT / "solutions" / EXERCISES[0].file_name},  # exercises 2-5 missing
    "missing_first": {2: ROOT / "solutions" / EXERCISES[1].file_name},  # exercise 1 missing
}
# what the corpus says each one-mistake file gets wrong (its README's names): the tests check the
# graded records show it, then use it to expect the trends
EXPECTED = {("wrong_a", 1): "qkv-order-swapped", ("wrong_a", 2): "scores-transposed",
            ("wrong_a", 3): "missing-scale", ("wrong_a", 4): "mask-inverted", ("wrong_a", 5): "missing-scale",
            ("wrong_b", 1): "projection-transposed", ("wrong_b", 2): "scores-transpose-all-dims",
            ("wrong_b", 3): "scale-by-dk", ("wrong_b", 4): "mask-fill-finite", ("wrong_b", 5): "softmax-unstable"}
PICKS = ("solution", "stub", "wrong_a", "wrong_b", "missing")  # what a student's exercise can be


def grade_variants(work):
    """{variant: its record}, each variant graded once by `batch` (no timing: tiers are perf's)."""
    folder = Path(work, "variants")
    for variant, chosen in VARIANTS.items():
        (folder / variant).mkdir(parents=True)
        for number, source in chosen.items():
            (folder / variant / catalog.find(str(number)).file_name).write_bytes(source.read_bytes())
    return batch.run(folder, Path(work, "variants.csv"), batch.Settings(jobs=2, no_perf=True, timeout=120.0))


def compose(student, picks, variants):
    """The record of a student whose exercise N is `picks[N]` (a variant), from the variants' records."""
    entries = {entry["id"]: entry for entry in variants["missing"]["report"]["exercises"]}
    notes = []
    for number, variant in picks.items():
        exercise = catalog.find(str(number))
        if variant == "missing":
            variant = "missing_first" if number == 1 else "missing"
        else:
            notes.append(f"{exercise.id}: graded {exercise.file_name}")
        taken = variants[variant]["report"]["exercises"]
        entries[exercise.id] = next(e for e in taken if e["id"] == exercise.id)
    report = dict(variants["missing"]["report"])
    report["exercises"] = copy.deepcopy([entries[e.id] for e in catalog.EXERCISES if e.id in entries])
    report["score"] = sum(e["score"] for e in report["exercises"])
    report["max_score"] = sum(e["max_score"] for e in report["exercises"])
    return {"student": student, "status": "graded", "message": "", "seconds": 1.0, "files": notes, "report": report}


def random_picks(rng):
    """A student's picks: mostly right, some stubs and one-mistake files, a few files missing."""
    picks = {e.number: rng.choices(PICKS, weights=(5, 1, 2, 2, 1))[0] for e in EXERCISES}
    if set(picks.values()) == {"missing"}:  # a student with no file at all is batch's "no files"
        picks[EXERCISES[0].number] = "stub"
    return picks


def make_class(variants, count, seed=0):
    """(records, picks) of `count` composed students s000, s001, …; picks[student][N] is the variant."""
    rng = random.Random(seed)
    picks = {f"s{i:03d}": random_picks(rng) for i in range(count)}
    return {student: compose(student, chosen, variants) for student, chosen in picks.items()}, picks


# -- a class on disk: a roster, the reports folder and the students' files ------------------------

FIRST = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "John", "Margaret", "Niklaus"]
LAST = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Backus", "Hamilton", "Wirth"]
CLASS_SIZE = 60  # on the roster: 57 composed students, one with no files, one whose grading failed, one absent
COMPOSED = 57


def roster_entries(count=CLASS_SIZE):
    return [classbook.Rostered(f"u{1000 + i}", f"{FIRST[i % 10]} {LAST[i // 10 % 10]}", f"student{i}@uni.example")
            for i in range(count)]


def folder_of(entry, i):
    """A student's folder, named by email (in the case each student typed it), as an LMS export names a
    whole class by one key."""
    return entry.email.upper() if i % 3 == 1 else entry.email


def write_class(work, variants, picks_by_index, roster):
    """A graded class on disk: work/grades (the records of the students of `picks_by_index`, then
    one with no files and one whose grading failed) and work/class (their files, each signed with
    the student's name, email and id); returns {folder: picks}. The roster's last is absent."""
    reports, sources = Path(work, "grades"), Path(work, "class")
    reports.mkdir(parents=True)
    picks = {}
    for i, chosen in picks_by_index.items():
        folder = folder_of(roster[i], i)
        (reports / f"{folder}.json").write_text(json.dumps(compose(folder, chosen, variants)))
        picks[folder] = chosen
        (sources / folder).mkdir(parents=True)
        for number, variant in chosen.items():
            source = VARIANTS[variant].get(number) if variant != "missing" else None
            if source is not None:
                (sources / folder / catalog.find(str(number)).file_name).write_text(source.read_text() + signature(roster[i]))
    nothing, broken = folder_of(roster[COMPOSED], COMPOSED), folder_of(roster[COMPOSED + 1], COMPOSED + 1)
    for folder, status, message in ((nothing, "no files", "no exercise files anywhere in this folder"),
                                    (broken, "error", "the grader exited with status 1 and no report: boom")):
        record = classbook.missing_record(folder) | {"student": folder, "status": status, "message": message}
        (reports / f"{folder}.json").write_text(json.dumps(record))
    (sources / nothing).mkdir()
    return picks


def signature(entry):
    """A student signs their file: in a comment, a string and a variable name."""
    return (f"\n# {entry.name} <{entry.email}>, {entry.student_id}\n"
            f"{entry.name.split()[0].lower()}_was_here = 'by {entry.name}'\n")


def expected_misconceptions(chosen):
    """What the corpus says a student's files get wrong: {misconception: {exercise numbers}}."""
    found = {}
    for number, variant in chosen.items():
        if (variant, number) in EXPECTED:
            found.setdefault(EXPECTED[(variant, number)], set()).add(number)
    return found


# -- near-copies, for the similarity leads ---------------------------------------------------------

COPIED = ROOT / "tests" / "honest" / "exercise5" / "max_shift_einsum_additive.py"
RENAMES = {"top": "row_max", "total": "denominator", "scores": "logits", "weights": "probs", "e": "expd"}


def near_copy(source):
    """`source` with its variables renamed and its two functions (and two lines) in the other order."""
    for old, new in RENAMES.items():
        source = re.sub(rf"\b{old}\b", new, source)
    head, first, second = re.split(r"\n(?=def )", source)
    lines = first.split("\n")
    lines[1], lines[2] = lines[2], lines[1]  # two lines of softmax swapped (the code need not run)
    return head + "\n" + second.rstrip("\n") + "\n\n\n" + "\n".join(lines)
