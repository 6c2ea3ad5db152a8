"""`lumen-grade class-report`: a synthetic class of 60 students composed from graded corpus files
(tests/course/synthetic_class.py: each distinct file graded once by `batch`), a roster with a student
who never submitted; the report's counts against a direct count from the records and from the
files each student handed in, the trend between two gradings against the files changed, the
similarity leads on planted near-copies, and privacy (no name in an anonymised example)."""

import csv
import html
import html.parser
import io
import itertools
import json
import random
import re
import shutil
import statistics

import pytest
from click.testing import CliRunner

import synthetic_class
from grader import catalog
from grader.cli.main import main
from grader.course import class_report, classbook, similarity
from grader.grading import results
from grader.reports import class_page, class_tables, safe_cell

ROOT = synthetic_class.ROOT
CLASS_SIZE = synthetic_class.CLASS_SIZE
roster_entries, folder_of, write_class = synthetic_class.roster_entries, synthetic_class.folder_of, synthetic_class.write_class
expected_misconceptions, near_copy = synthetic_class.expected_misconceptions, synthetic_class.near_copy
COPIED = synthetic_class.COPIED


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    graded = synthetic_class.grade_variants(tmp_path_factory.mktemp("variants"))
    assert all(record["status"] == "graded" for record in graded.values()), graded
    return graded


@pytest.fixture(scope="module")
def klass(variants, tmp_path_factory):
    work = tmp_path_factory.mktemp("class")
    roster = roster_entries()
    rng = __import__("random").Random(23)
    picks = write_class(work, variants, {i: synthetic_class.random_picks(rng) for i in range(57)}, roster)
    records, unreadable = class_report.read_grades(work / "grades")
    summary = class_report.build(records, roster=roster, unreadable=unreadable, submissions=work / "class",
                                 stubs=ROOT / "exercises")
    return {"work": work, "roster": roster, "picks": picks, "records": records, "summary": summary}


def test_the_variants_show_what_the_corpus_says(variants):
    for (variant, number), misconception in synthetic_class.EXPECTED.items():
        entry = next(e for e in variants[variant]["report"]["exercises"] if e["id"] == f"exercise{number}")
        assert [d["id"] for d in entry["diagnoses"]] == [misconception], (variant, number)


def test_counts_equal_a_direct_count_from_the_records(klass):
    summary, records, picks = klass["summary"], klass["records"], klass["picks"]
    graded = {n: r for n, r in records.items() if r["status"] == "graded"}
    assert summary["students"]["records"] == 59 and summary["students"]["graded"] == len(graded) == 57
    assert summary["students"]["rostered"] == CLASS_SIZE
    assert summary["students"]["never_submitted"] == ["u1059"]
    assert summary["students"]["no_files"] == ["u1057"]
    assert [e["student"] for e in summary["errors"]] == ["u1058"] and "boom" in summary["errors"][0]["reason"]
    assert summary["containment"] == {graded[next(iter(graded))]["report"]["containment"]: 57}
    # misconceptions: students per id, straight from the reports' diagnoses ...
    direct = {}
    for name, record in graded.items():
        for key in {d["id"] for e in record["report"]["exercises"] for d in e["diagnoses"]}:
            direct.setdefault(key, set()).add(name)
    assert {m["id"]: m["students"] for m in summary["misconceptions"]} == {k: len(v) for k, v in direct.items()}
    # ... and from the files each student handed in
    from_files = {}
    for name, chosen in picks.items():
        for key in expected_misconceptions(chosen):
            from_files[key] = from_files.get(key, 0) + 1
    assert {m["id"]: m["students"] for m in summary["misconceptions"]} == from_files
    counts = [m["students"] for m in summary["misconceptions"]]
    assert counts == sorted(counts, reverse=True)
    for m in summary["misconceptions"]:
        assert m["share"] == pytest.approx(m["students"] / 57)
        numbers = {n for chosen in picks.values() for n in expected_misconceptions(chosen).get(m["id"], ())}
        assert [e["id"] for e in m["exercises"]] == [f"exercise{n}" for n in sorted(numbers)]
    # per exercise: who handed it in with work of their own (a stub as released apart: round 76's P4), passed,
    # the median and the histogram
    for stats in summary["exercises"]:
        number = catalog.find(stats["id"]).number
        handed_in = [n for n, chosen in picks.items() if chosen[number] not in ("missing", "stub")]
        stubs = sum(chosen[number] == "stub" for chosen in picks.values())
        scores = [next(e for e in graded[n]["report"]["exercises"] if e["id"] == stats["id"])["score"] for n in handed_in]
        assert (stats["submitted"], stats["untouched"]) == (len(handed_in), stubs) and stubs > 0
        assert stats["missing_file"] == 57 - len(handed_in) - stubs
        assert stats["passed"] == sum(picks[n][number] == "solution" for n in handed_in)
        assert stats["median"] == statistics.median(scores)
        assert sum(stats["histogram"]) == len(handed_in)
        assert stats["histogram"][-1] == stats["passed"]  # full marks only for the solution here
    # stuck: 0 on exercises 1 and 2, or a misconception on two exercises
    stuck = {s["student"] for s in summary["stuck"]}
    label = {folder_of(e, i): e.student_id for i, e in enumerate(klass["roster"])}
    def scored(name, number):
        return next(e["score"] for e in graded[name]["report"]["exercises"] if e["id"] == f"exercise{number}")

    expected = {label[n] for n, chosen in picks.items()
                if (n in graded and scored(n, 1) == scored(n, 2) == 0)
                or any(len(numbers) > 1 for numbers in expected_misconceptions(chosen).values())}
    assert stuck == expected and stuck
    not_started = {label[n] for n, chosen in picks.items() if all(chosen[k] in ("stub", "missing") for k in (1, 2))}
    reasons = {s["student"]: s["reasons"] for s in summary["stuck"]}
    assert not_started <= stuck and not_started and all(  # round 80: a stub as released is not "0 points"
        reasons[student][0].startswith("not started: exercise1 and exercise2") == (student in not_started)
        for student in stuck if reasons[student][0].startswith(("0 points", "not started")))
    # the recap: the three that would help most students
    assert [r["id"] for r in summary["recap"]] == [m["id"] for m in summary["misconceptions"][:3]]


def test_the_recap_heading_counts_what_it_lists(klass):
    """Round 70's P2: "three misconceptions" whatever the list held."""
    recap = klass["summary"]["recap"]
    assert len(recap) == 3 and "Lecture recap: three misconceptions to address" in class_page.render(klass["summary"])
    assert "Lecture recap: one misconception to address" in class_page.render({**klass["summary"], "recap": recap[:1]})


def test_the_csv_has_a_row_per_student_and_misconception(klass):
    rows = list(csv.DictReader(io.StringIO(class_tables.misconceptions_csv(klass["summary"]))))
    expected = sum(len(expected_misconceptions(chosen)) for chosen in klass["picks"].values())
    assert len(rows) == expected
    assert all(re.fullmatch(r"u10\d\d", row["student"]) for row in rows)


def test_a_cell_that_a_spreadsheet_would_run_is_defused():
    assert safe_cell("=HYPERLINK(\"http://x\")") == "'=HYPERLINK(\"http://x\")"
    assert [safe_cell(text) for text in ("+1", "-1", "@x", "\tx", "ok")] == ["'+1", "'-1", "'@x", "'\tx", "ok"]
    assert [safe_cell(text) for text in (" =1+2", "\u3000=1", "＝1+2", "ok =1")] == [  # round 25
        "' =1+2", "'\u3000=1", "'＝1+2", "ok =1"]
    summary = {"by_student": [{"student": "=cmd|' /C calc'!A0", "misconception": "m", "exercises": "exercise1",
                               "failed_tests": 1, "cause": "c", "section": "s"}]}
    (row,) = csv.DictReader(io.StringIO(class_tables.misconceptions_csv(summary)))
    assert row["student"].startswith("'=")


def test_no_name_leaks_into_the_anonymised_examples(klass):
    examples = [m["example"] for m in klass["summary"]["misconceptions"] if m["example"]]
    assert len(examples) == min(class_report.TOP_EXAMPLES, len(klass["summary"]["misconceptions"]))
    text = "\n".join(line for example in examples for line in example["lines"])
    for entry in klass["roster"]:
        for secret in (entry.student_id, entry.email, *entry.name.split()):
            assert secret.lower() not in text.lower(), secret
    assert "uni.example" not in text and "_was_here" in text  # the signature line is there, its name replaced
    stub_lines = {line.strip() for line in (ROOT / "exercises" / "exercise3_scaling.py").read_text().splitlines()}
    for example in examples:
        assert not any(line.strip() in stub_lines and line.strip() for line in example["lines"]
                       if example["exercise"] == "exercise3")


def test_the_default_page_shows_ids_and_names_only_when_asked(klass):
    page = class_report_page(klass["summary"])
    for entry in klass["roster"]:
        assert entry.name.split()[1] not in page and entry.email not in page
    assert "u1059" in page  # never submitted, by id
    named = class_report.build(klass["records"], roster=klass["roster"], names=True)
    assert "Never submitted" in class_report_page(named) and klass["roster"][59].name in class_report_page(named)


def class_report_page(summary):
    return class_page.render(summary)


class Page(html.parser.HTMLParser):
    """The parts of the page the tests check: tags seen, the SVGs' attributes, table rows."""

    def __init__(self):
        super().__init__()
        self.tags, self.svgs, self.rows, self.row, self.cell = [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "svg":
            self.svgs.append(dict(attrs))
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr":
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_the_page_is_self_contained_and_its_numbers_are_the_summarys(klass):
    summary = klass["summary"]
    page = Page()
    page.feed(class_report_page(summary))
    assert not any(tag in ("script", "link", "img", "iframe", "object") for tag, _ in page.tags)
    assert not any(key in ("src", "href") or key.startswith("on") for _, attrs in page.tags for key in attrs)
    # every chart has a text equivalent: an accessible name saying what it shows
    assert len(page.svgs) == len(summary["exercises"]) + 0 and page.svgs
    for svg in page.svgs:
        assert svg.get("role") == "img" and len(svg.get("aria-label", "")) > 20
    # the misconceptions table: id, students and share as in the summary
    ranked = [row for row in page.rows if len(row) == 6 and row[0].isdigit()]
    assert [(row[1], int(row[2]), row[3]) for row in ranked] == [
        (m["id"], m["students"], f"{100 * m['share']:.0f}%") for m in summary["misconceptions"]]
    # each histogram's band table adds up to the students who handed the exercise in
    for stats in summary["exercises"]:
        label = next(svg["aria-label"] for svg in page.svgs if svg["aria-label"].startswith(stats["id"] + ":"))
        assert f"scores of {stats['submitted']} students" in label
    exercises = {row[0]: row for row in page.rows if row and row[0] in {e["id"] for e in summary["exercises"]}
                 and len(row) == 8}
    for stats in summary["exercises"]:
        assert [int(cell) for cell in exercises[stats["id"]][2:5]] == [
            stats["submitted"], stats["untouched"], stats["missing_file"]]


def test_the_trend_matches_the_files_changed(variants, tmp_path):
    roster = roster_entries()
    rng = __import__("random").Random(7)
    before = {i: synthetic_class.random_picks(rng) for i in range(57)}
    after = {i: dict(chosen) for i, chosen in before.items()}
    for i in range(0, 57, 3):  # a third fixed one mistake ...
        wrong = [n for n, v in after[i].items() if v.startswith("wrong")]
        if wrong:
            after[i][wrong[0]] = "solution"
    for i in range(1, 57, 7):  # ... some broke a right one
        right = [n for n, v in after[i].items() if v == "solution"]
        if right:
            after[i][right[-1]] = "wrong_b"
    old = write_class(tmp_path / "old", variants, before, roster)
    new = write_class(tmp_path / "new", variants, after, roster)
    result = CliRunner().invoke(main, ["class-report", str(tmp_path / "old" / "grades"), str(tmp_path / "new" / "grades"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    trend = json.loads((tmp_path / "out" / "class-report.json").read_text())["trend"]
    assert trend["students_in_both"] == 57
    expected = {}
    for folder in new:
        was, now = set(expected_misconceptions(old[folder])), set(expected_misconceptions(new[folder]))
        for key in was | now:
            row = expected.setdefault(key, {"id": key, "before": 0, "now": 0, "fixed": 0, "kept": 0, "new": 0})
            row["before"] += key in was
            row["now"] += key in now
            row["fixed"] += key in was - now
            row["kept"] += key in was & now
            row["new"] += key in now - was
    assert {row["id"]: row for row in trend["misconceptions"]} == expected
    assert sum(row["fixed"] for row in expected.values()) > 0 and sum(row["new"] for row in expected.values()) > 0
    assert "Since the previous grading" in (tmp_path / "out" / "class-report.html").read_text()


# -- similarity ------------------------------------------------------------------------------------

HONEST5 = ROOT / "tests" / "honest" / "exercise5"
OWN_WORK = [ROOT / "solutions" / "exercise5_softmax.py", *sorted(HONEST5.glob("*.py")),
            *sorted((ROOT / "tests" / "submissions" / "exercise5").glob("alt_*.py"))]
def similarity_class(folder):
    """{student: file text} for exercise 5: own work, two planted near-copies, two bare stubs."""
    students = {f"own{i}": path.read_text() for i, path in enumerate(OWN_WORK) if path != COPIED}
    students["copy_a"] = COPIED.read_text()
    students["copy_b"] = near_copy(COPIED.read_text())
    stub = (ROOT / "exercises" / "exercise5_softmax.py").read_text()
    students["stub_a"], students["stub_b"] = stub, stub + "\n# I could not finish\n"
    for name, text in students.items():
        (folder / name).mkdir(parents=True)
        (folder / name / "exercise5_softmax.py").write_text(text)
    return students


@pytest.mark.skipif(not similarity.available(), reason="copydetect (the similarity extra) is not installed")
def test_similarity_lists_the_near_copies_first_and_not_a_pair_sharing_only_the_stub(tmp_path):
    students = similarity_class(tmp_path / "class")
    assert near_copy(COPIED.read_text()) != COPIED.read_text()
    who = class_report.Identities(list(students))
    files = class_report.class_files({name: tmp_path / "class" / name for name in students})
    stub = (ROOT / "exercises" / "exercise5_softmax.py").read_text()
    leads = similarity.code_pairs(files, {"exercise5": stub}, who)
    assert leads and leads[0]["students"] == ["copy_a", "copy_b"], leads
    assert not any({"stub_a", "stub_b"} & set(lead["students"]) for lead in leads), leads
    evidence = leads[0]["evidence"]
    assert evidence["exercise"] == "exercise5" and all(evidence["lines"])


@pytest.mark.skipif(not similarity.available(), reason="copydetect (the similarity extra) is not installed")
def test_two_students_who_handed_in_the_released_notebooks_are_no_lead(tmp_path):
    """Round 86: two students who handed back the released notebooks were a lead of "100% of their own code in
    common": the notebooks' code is the release's too, and counts as the stubs do."""
    for name in ("nb_a", "nb_b"):
        shutil.copytree(ROOT / "exercises" / "notebooks", tmp_path / name)
    who = class_report.Identities(["nb_a", "nb_b"])
    files = class_report.class_files({name: tmp_path / name for name in ("nb_a", "nb_b")})
    assert all(len(texts) == 2 for texts in files.values())
    stubs = {e.id: class_report.stub_source(ROOT / "exercises", e) for e in catalog.EXERCISES}
    assert similarity.code_pairs(files, stubs, who)  # the .py stubs alone: a lead, as round 86 saw
    released = {e.id: class_report.released_code(ROOT / "exercises", e) for e in catalog.EXERCISES}
    assert similarity.code_pairs(files, released, who) == []


def test_a_file_is_read_as_python_reads_it_in_the_encoding_its_coding_line_names(tmp_path):
    """Round 77's a07: a copy saved as UTF-7 (its coding line says so, its text base64 to the eye) is graded as
    its original; the class report reads it so too, so that the similarity leads compare it as the copy it is.
    A file that names no text encoding is read as UTF-8, its bad bytes replaced."""
    text = COPIED.read_text()
    saved = {"alice": text.encode(), "bob": b"# coding: utf-7\n" + text.encode("utf-7"),
             "carol": b"# coding: hex\n" + text.encode()}
    for name, data in saved.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "exercise5_softmax.py").write_bytes(data)
    assert text.encode("utf-7") != text.encode()
    files = class_report.class_files({name: tmp_path / name for name in saved})["exercise5"]
    assert files["alice"] == text and files["bob"] == "# coding: utf-7\n" + text
    assert files["carol"] == "# coding: hex\n" + text


def test_the_evidence_lines_are_those_the_copied_ranges_touch():
    """Round 72's a06: the lines were found by testing every line against every range (minutes for a file of
    one range a line); found by bisection now, they are the same lines as that plain scan's."""
    rng = random.Random(0)
    who = class_report.Identities(["nobody_here"])
    for _ in range(200):
        source = "".join(rng.choice(["x = 1\n", "\n", "def f():\r\n", "  return 2", "y\n\n"])
                         for _ in range(rng.randrange(1, 12)))
        starts = sorted(rng.randrange(len(source) + 1) for _ in range(rng.randrange(4)))
        ranges = [(start, start + rng.randrange(8)) for start in starts]
        slices = ([start for start, _ in ranges], [end for _, end in ranges])
        ends = list(itertools.accumulate(len(line) for line in source.splitlines(keepends=True)))
        touched = sorted({number for start, end in ranges for number, stop in enumerate(ends)
                          if (ends[number - 1] if number else 0) < end and start < stop})
        plain = [source.splitlines()[n] for n in touched][:similarity.EVIDENCE_LINES]
        assert similarity._lines(source, slices, who) == plain, (source, ranges)


def test_similarity_lists_pairs_sharing_rare_misconceptions(variants):
    picks = {f"s{i:02d}": {n: "solution" for n in (1, 2, 3, 4, 5)} for i in range(40)}
    picks["s01"].update({4: "wrong_b", 5: "wrong_b"})
    picks["s02"].update({4: "wrong_b", 5: "wrong_b"})
    picks["s03"].update({3: "wrong_b"})
    records = {name: synthetic_class.compose(name, chosen, variants) for name, chosen in picks.items()}
    summary = class_report.build(records, similarity=True)
    leads = summary["similarity"]
    assert leads["code"] is None and "submissions" in leads["code_note"]
    assert leads["misconceptions"] == [{"students": ["s01", "s02"], "shared": ["mask-fill-finite", "softmax-unstable"],
                                        "class_count": {"mask-fill-finite": 2, "softmax-unstable": 2}}]
    assert "similarity" not in class_report.build(records)  # off by default


# -- the commands ----------------------------------------------------------------------------------

def write_roster(path, roster):
    path.write_text("student_id,name,email\n" + "".join(f"{e.student_id},{e.name},{e.email}\n" for e in roster))
    return path


def test_class_report_command_writes_the_three_files(klass, tmp_path):
    roster = write_roster(tmp_path / "roster.csv", klass["roster"])
    result = CliRunner().invoke(main, ["class-report", str(klass["work"] / "grades"), "--roster", str(roster),
                                       "--submissions", str(klass["work"] / "class"), "--stubs", str(ROOT / "exercises"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "out" / "class-report.json").read_text())
    assert written == json.loads(json.dumps(klass["summary"]))
    assert (tmp_path / "out" / "misconceptions.csv").read_bytes().decode() == class_tables.misconceptions_csv(klass["summary"])
    assert (tmp_path / "out" / "class-report.html").read_text().startswith("<!DOCTYPE html>")


def test_class_report_command_refuses_what_it_cannot_read(tmp_path, klass):
    empty = tmp_path / "empty"
    empty.mkdir()
    for args in ([str(empty)], [str(klass["work"] / "grades")] * 3, [str(klass["work"] / "grades"), "--names"],
                 [str(tmp_path / "absent")]):
        result = CliRunner().invoke(main, ["class-report", *args, "--out", str(tmp_path / "out")])
        assert result.exit_code == 2 and "Traceback" not in result.output, (args, result.output)
    assert not (tmp_path / "out").exists()


def test_a_record_of_an_older_kit_is_a_grading_error_not_a_crash(klass, tmp_path):
    shutil.copytree(klass["work"] / "grades", tmp_path / "grades")
    some = next(p for p in sorted((tmp_path / "grades").glob("*.json")) if json.loads(p.read_text())["report"])
    old = json.loads(some.read_text())
    del old["report"]["schema_version"]
    some.write_text(json.dumps(old))
    records, unreadable = class_report.read_grades(tmp_path / "grades")
    assert [name for name, _ in unreadable] == [some.stem] and "older version" in unreadable[0][1]
    summary = class_report.build(records, unreadable=unreadable)
    assert any(e["student"] == some.stem and "older version" in e["reason"] for e in summary["errors"])


def test_batch_class_report_writes_it_beside_the_gradebook(tmp_path):
    (tmp_path / "class" / "alice" / "notes").mkdir(parents=True)  # a student with no exercise file: no grader run
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out" / "grades.csv"),
                                       "--class-report"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "class-report.json").read_text())
    assert summary["students"]["no_files"] == ["alice"] and summary["students"]["graded"] == 0
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--shard", "0/2", "--class-report"])
    assert result.exit_code == 2 and "merge" in result.output
    # the stubs its examples are diffed against: batch takes --stubs as its warning says (round 70's P1)
    for stubs, warned in ((tmp_path / "no-stubs", True), (ROOT / "exercises", False)):
        result = CliRunner().invoke(main, ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out" / "grades.csv"),
                                           "--class-report", "--stubs", str(stubs)])
        assert result.exit_code == 0 and ("no stubs folder" in result.output) == warned, result.output


def test_each_cause_and_section_is_the_catalogues(klass):
    from grader.diagnosis.misconceptions import BY_ID

    for m in klass["summary"]["misconceptions"]:
        message = BY_ID[m["id"]].message
        assert message.startswith(m["cause"] + ":") or message.startswith(m["cause"] + ";") or m["cause"] in message
        assert len(m["cause"]) < len(message) and f"see '{m['section']}'" in message
    both = "qkv-order-swapped | scores-transposed"
    message = (f"project(...): these tests cannot tell two mistakes apart, and your answers fit both. Either: "
               f"{BY_ID['qkv-order-swapped'].message}. Or: {BY_ID['scores-transposed'].message}")
    cause, section = class_report.explain(both, message, catalog.find("1"))
    assert cause == ("either: Your q, k and v come out in the wrong order; "
                     "or: You computed K Qᵀ") and section == "Implementation walkthrough in PyTorch"
    # an analyser's message: its fix after a semicolon, a colon inside brackets (round 80)
    assert class_report.cause_of("your split gives head h columns (h, h + H, …: D as (d_head, H)); view it as "
                                 "(B, L, H, d_head): see 'Multi-head'") == ("Your split gives head h columns (h, h + "
                                                                           "H, …: D as (d_head, H))")


def test_tiers_are_counted_where_the_grading_timed_them(variants):
    records = {f"s{i}": synthetic_class.compose(f"s{i}", {n: "solution" for n in (1, 2, 3, 4, 5)}, variants)
               for i in range(3)}
    for i, name in enumerate(records):
        entry = next(e for e in records[name]["report"]["exercises"] if e["id"] == "exercise5")
        entry["tier"] = {"id": "on-par", "name": "on par", "ratio": 1.0 + i, "device": "cpu"} if i < 2 else \
            {"id": "not-timed", "name": "not timed", "ratio": None, "device": "cpu"}
    stats = {e["id"]: e["tiers"] for e in class_report.build(records)["exercises"]}
    assert stats["exercise5"] == {"on par": 2} and stats["exercise4"] == {}
    assert "on par" in class_report_page(class_report.build(records))


def test_scrubbing_replaces_names_and_emails_but_not_matrix_products():
    who = class_report.Identities(["ada_l"], [classbook.Rostered("u7", "Ada Lovelace", "ada@uni.example")])
    assert who.scrub("scores = q@k.transpose(-2, -1)  # x@w.T") == "scores = q@k.transpose(-2, -1)  # x@w.T"
    assert who.scrub("ADA_L = 'Lovelace, mail me: a.l@other.org'") == "[name] = '[name], mail me: [name]'"
    assert who.label == {"ada_l": "ada_l"}  # a folder not matched to the roster keeps its name


def test_scrubbing_replaces_whole_names_and_leaves_code_alone():
    """Round 80: dev@u.edu made `device=device` "[name]ice=[name]ice" and max@u.edu made `softmax(x)`
    "soft[name](x)": a name is replaced as a whole word, and one Python's own names share (max, len) only
    capitalised; an underscore parts words (a name in an identifier is replaced: ada_was_here)."""
    roster = [classbook.Rostered("u101", "Dev Patel", "dev@u.edu"), classbook.Rostered("u102", "Max Len", "max@u.edu")]
    who = class_report.Identities(["dev", "max"], roster)
    code = "w = softmax(s.max(dim=-1), dim=-1).to(device=device)  # len(x), maxlen"
    assert who.scrub(code) == code
    assert who.scrub("# by Dev and Max Len, or DEV") == "# by [name] and [name], or [name]"
    assert who.scrub("Max wrote max(a, b), dev_count and MAX") == "[name] wrote max(a, b), [name]_count and [name]"
    # round 81's a06: a name with a digit or a capitalised word beside it, an id inside a word
    assert who.scrub("patel2 = devPatelFactor + u101x") == "[name]2 = [name][name]Factor + [name]x"
    # round 82's a01: a name made of the stubs' own words blanks none of them in code
    who = class_report.Identities(["s1"], [classbook.Rostered("s1", "Scale Scores", "torch@u.edu")],
                                  code=["import torch\ndef scale_scores(scores, d_k):\n    ..."])
    assert who.scrub("scores = scale * torch.ones(1)  # Scale Scores, TORCH") == \
        "scores = scale * torch.ones(1)  # [name], [name]"


def test_every_quoted_text_of_a_student_is_scrubbed_of_names(klass):
    """Round 84's a16: a failing check's message quoted a student's value, a classmate's name and email in it,
    word for word in the anonymised page; its a02: a name written with combining accents (NFD) was kept."""
    who = class_report.Identities(["s1"], [classbook.Rostered("s1", "Zoë Brontë", "zb@u.edu")])
    decomposed = "by " + "Zoë Brontë".replace("ë", "e\u0308")
    assert who.scrub(decomposed) == "by [name]"
    records = json.loads(json.dumps(klass["records"]))  # a copy
    roster = klass["roster"]
    someone = roster[0]
    for record in records.values():
        for entry in (record.get("report") or {"exercises": []})["exercises"]:
            for test in entry["tests"]:
                if test["status"] == "failed" and test["message"]:
                    test["message"] = f"{test['message']} [{someone.name!r}, {someone.email!r}]"
            if entry["error"]:
                entry["error"] += f" ({someone.name})"
    summary = class_report.build(records, roster=roster)
    quoted = json.dumps([summary["misconceptions"], summary["errors"], summary["held_for_review"]], ensure_ascii=False)
    assert "failing_call" in quoted and someone.name not in quoted and someone.email not in quoted, quoted


def test_an_example_is_not_looked_for_in_a_file_of_thousands_of_lines(tmp_path, monkeypatch):
    """Round 84's a10: a file of 2 million blank lines (under the 2 MiB a file may have) cost the class report a
    minute, read and diffed for its example: a file longer than any answer is passed over."""
    exercise = catalog.find("exercise3")
    source = (ROOT / "solutions" / exercise.file_name).read_text().replace("math.sqrt(d_k)", "1")
    for name, text in (("short", source), ("long", source + "\n" * class_report.EXAMPLE_SOURCE_LINES)):
        (tmp_path / name).mkdir()
        (tmp_path / name / exercise.file_name).write_text(text)
    read = []
    monkeypatch.setattr(class_report, "anonymised_example", lambda text, stub, who: read.append(len(text)) or ["x"])
    shows = {name: {"missing-scale": {"exercise3": {}}} for name in ("short", "long")}
    example = class_report._example("missing-scale", shows, class_report.Identities(["short", "long"]), tmp_path,
                                    ROOT / "exercises")
    assert example["lines"] == ["x"] and read == [len(source)]


def test_exercises_held_for_review_are_listed_with_their_lines(klass):
    """A student whose code reaches into its own process has that exercise's points held: the class
    report lists who, which exercise and the lines, on the page too; nobody else."""
    records = json.loads(json.dumps(klass["records"]))  # a copy
    name = next(n for n, r in sorted(records.items()) if r["status"] == "graded")
    entry = next(e for e in records[name]["report"]["exercises"] if e["tests"])
    where = f"{entry['id']}.py, line 3: import gc"
    for test in entry["tests"]:
        if test["status"] == "passed":
            test["status"], test["score"], test["message"] = "failed", 0.0, results.held_message(where)
    summary = class_report.build(records, roster=klass["roster"])
    assert [(h["exercise"], h["where"]) for h in summary["held_for_review"]] == [(entry["id"], where)]
    assert klass["summary"]["held_for_review"] == []
    page = class_page.render(summary)
    assert "Held for your review" in page and html.escape(where) in page
