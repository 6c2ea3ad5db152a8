"""`lumen-grade class-report`: what a class got wrong, from the per-student records `batch` wrote.

`read_grades` reads a reports folder (or the gradebook CSV beside it) record by record through
`classbook.read_record`, so every report passes the report schema's loader. `build` turns the
records into the summary that `class-report.json` holds and `grader.reports.class_page` draws:

- per exercise: who submitted it, a histogram of scores, pass rate, median, the tests failed most
  (by test function, its parameters folded) with the chapter section to reread, tiers where timed;
- misconceptions ranked by how many students show them (count, share of the graded students, the
  exercises), each with its cause (the text before the first colon of the catalogue's message as
  the report gave it: the cause, not the fix), its section, the shortest failing check seen, and
  for the top ones an anonymised example: the student's lines that differ from the stub, comments
  and docstrings dropped, every name, email, id and folder name of the class replaced;
- stuck students: 0 points on each of the first `STUCK_FIRST` exercises (or none of them started), or
  one misconception on several exercises; students whose grading failed (with the reason);
  containment levels; the exercises held for review (code that reaches into its own process), with
  the lines named;
- a lecture recap (the `RECAP` misconceptions that would help most students);
- with a previous grading: per misconception, students who fixed it, kept it or newly show it;
- with `similarity`: leads for review from `grader.course.similarity` (never verdicts).

Students are shown by their roster id (`names`: id and name); without a roster, by folder name.
With a roster the class is the roster's students, as in the gradebook: a folder on no roster row
is only counted, never shown by its name (it may be a real name).
"""

import ast
import builtins
import difflib
import io
import keyword
import os
import re
import statistics
import tokenize
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

from grader import catalog
from grader.course import classbook
from grader.course import similarity as leads
from grader.grading import submission
from grader.grading.results import held_where
from grader.reports import class_page, class_tables
from grader.reports.text import untouched
from grader.sandbox import files
from grader.sandbox.judge import python_text

SUMMARY_VERSION = 1  # of class-report.json
STUCK_FIRST = 2  # stuck: 0 points on each of the catalogue's first STUCK_FIRST exercises
STUCK_REPEATS = 2  # or the same misconception on this many exercises
TOP_EXAMPLES = 5  # misconceptions shown with an anonymised example
RECAP = 3  # misconceptions in the lecture recap
TOP_TESTS = 5  # tests listed per exercise
BINS = 10  # histogram bins of the score, as a share of the exercise's points
EXAMPLE_LINES = 12  # at most this many lines in an anonymised example
EXAMPLE_SOURCE_LINES = 5000  # the longest file an example is looked for in (an exercise's answer has a few hundred)
FAILED = ("failed", "error", "timeout")
_SEE = re.compile(r"see '([^']+)'")
_WHERE = re.compile(r"^(?:(?:[\w.]+\(\.\.\.\)|len\(cache\))(?:, )?)+: ")  # "split_heads(...), merge_heads(...): "
REDACTED = "[name]"
# an email, not code: `q@k.transpose(-2, -1)` and `x@w.T` are products (a call or attribute follows, or no
# lower-case top-level domain ends it); tried only where a run of its characters begins: tried at every
# character of a long word, it took time quadratic in the word's length (round 82's a02: a string of a
# million letters, more than 300 s)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b(?![(\[.])")


class ClassReportError(ValueError):
    """Grades that cannot make a class report (the message says why)."""


# -- reading ---------------------------------------------------------------------------------------

def reports_folder(path):
    """The reports folder of GRADES_DIR: the folder itself, or the one beside a gradebook CSV."""
    path = Path(path)
    if path.suffix.lower() == ".csv":
        path = path.with_suffix("")
    if not path.is_dir():
        raise ClassReportError(f"{path}: no such reports folder (give the folder of STUDENT.json records "
                               "that `lumen-grade batch` wrote, or its grades.csv)")
    return path


def read_grades(path):
    """({student: record}, [(student, why unreadable)]) of a reports folder, every record read and
    validated as `batch` reads its own (regular files only, bounded, the report schema's loader)."""
    folder = reports_folder(path)
    records, unreadable = {}, []
    for entry in sorted(folder.glob("*.json")):
        if not classbook.is_student_name(entry.stem):
            continue
        record, problem = classbook.read_record(folder, entry.stem)
        if record is None and entry.name == classbook.OLD_MANIFEST:  # an older shard's manifest
            continue
        if record is None:
            unreadable.append((entry.stem, problem.lstrip(": ").strip()))
        else:
            records[entry.stem] = record
    if not records and not unreadable:
        raise ClassReportError(f"{folder}: no student records in it (STUDENT.json, as `lumen-grade batch` "
                               "writes them)")
    return records, unreadable


# -- who is who ------------------------------------------------------------------------------------

class Identities:
    """How students are shown (roster id, or id and name with `names`; the folder name without a
    roster), the rostered students who never submitted, and every string that names someone."""

    def __init__(self, folders, roster=None, names=False, code=()):
        """`code`: texts whose names are code, not a student's (the stubs): a name that is one of them, or one of
        Python's own, is replaced only capitalised."""
        self.label, self.never_submitted, secrets = {}, [], set(folders)
        matched = {}
        if roster:
            matched = classbook.match_roster(roster, folders).matched
            for entry in roster:
                shown = f"{entry.student_id} {entry.name}".strip() if names else entry.student_id
                if entry.student_id in matched:
                    self.label[matched[entry.student_id]] = shown
                else:
                    self.never_submitted.append(shown)
                secrets |= {entry.student_id, entry.email, *entry.email.split("@")[:1], entry.name,
                            *entry.name.split()}
        for folder in folders:
            self.label.setdefault(folder, folder)
        self.secrets = sorted({unicodedata.normalize("NFC", s) for s in secrets if len(s) >= 3}, key=len, reverse=True)
        # whole words (`_bounded`), in any case, but for a name Python's own names or the stubs' share (Max, Len,
        # Scores): capitalised only, so that code stays code (round 80: dev@… made `device=device`
        # "[name]ice=[name]ice"; round 82's a01: a student registered as "Scale Scores" blanked those words)
        names = [name for text in code for name in re.findall(r"[^\W\d]\w*", text)]  # the stubs' names, their parts
        code_words = {word.lower() for word in (*dir(builtins), *keyword.kwlist, *names,
                                                *(part for name in names for part in name.split("_")))}
        capitalised = {form for s in self.secrets if s.lower() in code_words for form in (s.capitalize(), s.upper())}
        anywhere = [s for s in self.secrets if s.lower() not in code_words]
        self._patterns = [re.compile("|".join(map(_bounded, words)), flags) for words, flags in
                          ((anywhere, re.IGNORECASE), (sorted(capitalised, key=len, reverse=True), 0)) if words]

    def scrub(self, text):
        """`text` with every name, email, id and folder name of the class (and any email) replaced; accents as one
        character each (NFC), so that a name written with combining accents is the name (round 84's a02)."""
        text = _EMAIL.sub(REDACTED, unicodedata.normalize("NFC", text))
        for pattern in self._patterns:
            text = pattern.sub(REDACTED, text)
        return text


_CAMEL_START = r"(?<=(?-i:[a-z]))(?=(?-i:[A-Z]))"  # graceLovelace: a capital after a small letter begins a word


def _bounded(secret):
    """A pattern of `secret` as a word of its own: not within a longer word (dev in device, max in softmax),
    but beside an underscore, a digit, or as the capitalised part of a camelCase name (ada_was_here,
    lovelace2, graceLovelaceFactor: round 81's a06); an id of digits beside no other digit."""
    first, last = secret[:1], secret[-1:]
    before = (r"(?<!\d)" if first.isdigit() else rf"(?:(?<![^\W\d_])|{_CAMEL_START})" if first.isalpha() else "")
    after = (r"(?!\d)" if last.isdigit() else r"(?:(?![^\W\d_])|(?=(?-i:[A-Z])))" if last.isalpha() else "")
    return before + re.escape(secret) + after


# -- the misconceptions' texts ---------------------------------------------------------------------

def cause_of(message):
    """The cause in a diagnosis message: the text before its first colon (or, where the fix follows after a
    semicolon, as an analyser's message words it, that: round 80), not inside brackets, without "see '…'",
    its first word capitalised where it is a word, not code."""
    text, depth = _SEE.sub("", message).rstrip(" :."), 0
    for i, character in enumerate(text):
        depth += (character in "([{") - (character in ")]}")
        if depth == 0 and text.startswith((": ", "; "), i):
            text = text[:i]
            break
    text = text.strip()
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text  # not code (k.T)


def explain(key, message, exercise):
    """(cause, section) of a diagnosis from the message the report gave it (the catalogue's message
    after the functions that showed it; for an "either … or" pair, both): the cause, not the fix,
    and the section it sends the student to (else the exercise's)."""
    text = _WHERE.sub("", message, count=1)
    if " | " in key and "Either: " in text:
        parts = text.split("Either: ", 1)[1].split(". Or: ")
        cause = "either: " + "; or: ".join(cause_of(part) for part in parts)
    else:
        cause = cause_of(text)
    found = _SEE.search(text)
    return cause, found.group(1) if found else exercise.section


# -- one student's exercises -----------------------------------------------------------------------

def _graded_files(record):
    """The exercise ids whose file batch found and graded (its notes: 'exercise3: graded …')."""
    return {note.split(":", 1)[0] for note in record.get("files", []) if ": graded " in note}


def exercise_entries(record):
    """{exercise id: (entry, submitted)} of a graded record; submitted: its file was there."""
    graded = _graded_files(record)
    return {entry["id"]: (entry, entry["id"] in graded) for entry in record["report"]["exercises"]}


def _test_base(name):
    return name.split("[", 1)[0]


def _median(values):
    return statistics.median(values) if values else None


def _histogram(scores, top):
    counts = [0] * BINS
    for score in scores:
        counts[min(BINS - 1, int(BINS * score / top)) if top else 0] += 1
    return counts


# -- the summary -----------------------------------------------------------------------------------

def build(records, *, roster=None, names=False, unreadable=(), submissions=None, stubs=None,
          previous=None, similarity=False):
    """The class report's summary (what class-report.json holds) of {student: record}. With a
    roster, the class is the roster, as in the gradebook: a folder on no roster row is counted
    (`not_on_roster`) but neither shown nor in any figure, since it has no roster id to be shown by."""
    stub_texts = {} if stubs is None else {e.id: text for e in catalog.EXERCISES
                                           if (text := stub_source(stubs, e)) is not None}
    who = Identities([*records, *(name for name, _ in unreadable)], roster, names, code=stub_texts.values())
    outside = set(classbook.match_roster(roster, who.label).left_out()) if roster else set()
    records = {name: record for name, record in records.items() if name not in outside}
    unreadable = [(name, why) for name, why in unreadable if name not in outside]
    graded = {name: record for name, record in records.items() if record["status"] == "graded"}
    exercises = [e for e in catalog.EXERCISES
                 if any(exercise_entries(r).get(e.id, (None, False))[1] for r in graded.values())]
    shows = _misconceptions_of(graded)  # {student: {id: {exercise id: {"message", "tests" failed}}}}
    summary = {
        "summary_version": SUMMARY_VERSION,
        "students": {"records": len(records), "graded": len(graded),
                     "rostered": len(roster) if roster else None,
                     "not_on_roster": len(outside) if roster else None,
                     "never_submitted": who.never_submitted,
                     "no_files": sorted(who.label[n] for n, r in records.items() if r["status"] == "no files")},
        "shown_as": "roster id and name" if roster and names else "roster id" if roster else "folder name",
        "exercises": [_exercise_stats(exercise, graded, who) for exercise in exercises],
        "misconceptions": _ranked(shows, graded, who, submissions, stubs),
        "stuck": _stuck(graded, shows, who),
        "errors": _errors(records, unreadable, who),
        "held_for_review": _held(graded, who),
        "containment": dict(Counter(r["report"]["containment"] for r in graded.values()).most_common()),
        "by_student": _by_student(shows, who),
    }
    summary["recap"] = [{"id": m["id"], "cause": m["cause"], "section": m["section"], "example": m["failing_call"],
                         "students": m["students"]} for m in summary["misconceptions"][:RECAP]]
    if previous is not None:
        summary["trend"] = trend(previous, records)
    if similarity:
        sources = None if submissions is None else (
            class_files({name: student_folder(submissions, name) for name in graded}),
            {e.id: released_code(stubs, e) for e in catalog.EXERCISES} if stubs is not None else {})
        summary["similarity"] = leads.find(graded, shows, who, sources)
    return summary


def _misconceptions_of(graded):
    shows = {}
    for name, record in graded.items():
        found = defaultdict(dict)
        for entry, submitted in exercise_entries(record).values():
            for diagnosis in entry["diagnoses"] if submitted else []:
                tests = [t for t in entry["tests"] if t.get("diagnosis") == diagnosis["id"] and t["status"] in FAILED]
                found[diagnosis["id"]][entry["id"]] = {"message": diagnosis["message"], "tests": tests}
        shows[name] = dict(found)
    return shows


def _exercise_stats(exercise, graded, who):
    scores, passed, top, failing, tiers, diagnosed = [], 0, 0.0, defaultdict(set), Counter(), defaultdict(Counter)
    messages = {}
    as_released = 0  # the stub as released, handed back: not started, not wrong (round 76's P4)
    for name, record in graded.items():
        entry, submitted = exercise_entries(record).get(exercise.id, (None, False))
        if not submitted:
            continue
        if _as_released(entry):
            as_released += 1
            continue
        top = max(top, entry["max_score"])
        scores.append(entry["score"])
        passed += entry["passed"]
        messages.update((d["id"], d["message"]) for d in entry["diagnoses"] if d["id"] not in messages)
        for test in entry["tests"]:
            if test["status"] in FAILED:
                failing[_test_base(test["name"])].add(name)
                if test.get("diagnosis"):
                    diagnosed[_test_base(test["name"])][test["diagnosis"]] += 1
        tier = entry.get("tier") or {}
        if tier.get("ratio") is not None:
            tiers[tier.get("name", tier.get("id", "?"))] += 1
    ranked = sorted(failing.items(), key=lambda item: (-len(item[1]), item[0]))[:TOP_TESTS]
    tests = []
    for test, students in ranked:
        section = exercise.section
        if diagnosed[test]:
            key = diagnosed[test].most_common(1)[0][0]
            section = explain(key, messages.get(key, ""), exercise)[1]
        tests.append({"test": test, "students": len(students), "section": section})
    return {"id": exercise.id, "title": exercise.title, "section": exercise.section, "max_score": top,
            "submitted": len(scores), "untouched": as_released,
            "missing_file": len(graded) - len(scores) - as_released,
            "passed": passed,
            "pass_rate": passed / len(scores) if scores else None, "median": _median(scores),
            "histogram": _histogram(scores, top), "tests_failed_most": tests, "tiers": dict(tiers.most_common())}


def _ranked(shows, graded, who, submissions, stubs):
    by_key = defaultdict(lambda: {"students": [], "exercises": Counter(), "message": "", "calls": []})
    for name in sorted(shows, key=lambda n: who.label[n]):
        for key, where in shows[name].items():
            entry = by_key[key]
            entry["students"].append(name)
            for exercise_id, seen in where.items():
                entry["exercises"][exercise_id] += 1
                entry["message"] = entry["message"] or seen["message"]
                entry["calls"] += [test["message"] for test in seen["tests"] if test["message"]]
    ranked = []
    for key, entry in sorted(by_key.items(), key=lambda item: (-len(item[1]["students"]), item[0])):
        first = catalog.find(min(entry["exercises"], key=lambda e: catalog.find(e).number))
        cause, section = explain(key, entry["message"], first)
        calls = sorted(set(entry["calls"]), key=lambda text: (len(text), text))
        ranked.append({"id": key, "cause": cause, "section": section, "students": len(entry["students"]),
                       "share": len(entry["students"]) / len(graded) if graded else 0.0,
                       "exercises": [{"id": e, "students": n} for e, n in
                                     sorted(entry["exercises"].items(), key=lambda i: catalog.find(i[0]).number)],
                       "failing_call": who.scrub(calls[0]) if calls else None,  # it may quote the student's values
                       "students_with_it": [who.label[name] for name in entry["students"]], "example": None})
    for item in ranked[:TOP_EXAMPLES]:
        if submissions is not None and stubs is not None:
            item["example"] = _example(item["id"], shows, who, submissions, stubs)
    return ranked


def _as_released(entry):
    """Whether an exercise of a report is the stub as released, handed back: every test met NotImplementedError."""
    return untouched((test["status"], test.get("message", "")) for test in entry["tests"])


def _stuck(graded, shows, who):
    first = [exercise.id for exercise in catalog.EXERCISES[:STUCK_FIRST]]
    stuck = []
    for name, record in graded.items():
        entries = exercise_entries(record)
        reasons = []
        if all(entries.get(e, ({"score": 0},))[0]["score"] == 0 for e in first):
            begun = [e for e in first if e in entries and entries[e][1] and not _as_released(entries[e][0])]
            reasons.append(f"0 points on {' and '.join(first)}" if begun else  # round 80: not "0 points" for a stub
                           f"not started: {' and '.join(first)} handed back as released, or not at all")
        for key, where in sorted(shows[name].items()):
            if len(where) >= STUCK_REPEATS:
                reasons.append(f"{key} on {', '.join(sorted(where, key=lambda e: catalog.find(e).number))}")
        if reasons:
            stuck.append({"student": who.label[name], "reasons": reasons})
    return sorted(stuck, key=lambda s: s["student"])


def _errors(records, unreadable, who):
    errors = [{"student": who.label[name], "reason": who.scrub(why)} for name, why in unreadable]
    for name, record in records.items():  # a reason may quote the student's code or files: scrubbed of names
        if record["status"] in ("error", "timeout"):
            errors.append({"student": who.label[name], "reason": who.scrub(f"{record['status']}: {record['message']}")})
        elif record["status"] == "graded":
            for entry, submitted in exercise_entries(record).values():
                if submitted and entry["error"]:
                    errors.append({"student": who.label[name], "reason": who.scrub(f"{entry['id']}: {entry['error']}")})
    return sorted(errors, key=lambda e: (e["student"], e["reason"]))


def _held(graded, who):
    """The exercises whose points the kit held for a person's review (their code reaches into the
    process that runs it): who, which exercise, and the lines named."""
    held = []
    for name, record in graded.items():
        for entry, submitted in exercise_entries(record).values():
            where = next(filter(None, (held_where(test["message"]) for test in entry["tests"])), None)
            if submitted and where is not None:
                held.append({"student": who.label[name], "exercise": entry["id"], "where": who.scrub(where)})
    return sorted(held, key=lambda h: (h["student"], catalog.find(h["exercise"]).number))


def _by_student(shows, who):
    """The rows of misconceptions.csv: one per student × misconception."""
    rows = []
    for name, shown in sorted(shows.items(), key=lambda item: who.label[item[0]]):
        for key, where in sorted(shown.items()):
            numbers = sorted(where, key=lambda e: catalog.find(e).number)
            cause, section = explain(key, where[numbers[0]]["message"], catalog.find(numbers[0]))
            rows.append({"student": who.label[name], "misconception": key, "exercises": " ".join(numbers),
                         "failed_tests": sum(len(seen["tests"]) for seen in where.values()),
                         "cause": cause, "section": section})
    return rows


# -- trends ----------------------------------------------------------------------------------------

def trend(old_records, new_records):
    """Per misconception, over the students graded both times: how many fixed it (shown before, not
    now), kept it, or newly show it; ranked by how many show it now."""
    old = {n: r for n, r in old_records.items() if r["status"] == "graded"}
    new = {n: r for n, r in new_records.items() if r["status"] == "graded"}
    both = sorted(set(old) & set(new))
    before, after = _misconceptions_of({n: old[n] for n in both}), _misconceptions_of({n: new[n] for n in both})
    keys = {key for shown in (*before.values(), *after.values()) for key in shown}
    rows = []
    for key in keys:
        was = {n for n in both if key in before[n]}
        now = {n for n in both if key in after[n]}
        rows.append({"id": key, "before": len(was), "now": len(now), "fixed": len(was - now), "kept": len(was & now),
                     "new": len(now - was)})
    rows.sort(key=lambda row: (-row["now"], -row["before"], row["id"]))
    return {"students_in_both": len(both), "misconceptions": rows}


# -- anonymised examples ---------------------------------------------------------------------------

def student_folder(submissions, name):
    """The folder of the class folder `submissions` whose gradebook name (`classbook.student_name`)
    is `name`: the folder of that name, almost always (where its own gradebook name is that name: a
    folder named `a%09b` is known as `a%2509b`, and `a%09b` is the gradebook name of `a<TAB>b`, round 59's
    a02); else the one whose name was made printable."""
    folder = Path(submissions, name)
    if folder.is_dir() and classbook.student_name(name) == name:
        return folder
    return next((path for path in Path(submissions).iterdir() if classbook.student_name(path.name) == name), folder)


def student_source(folder, exercise):
    """The text of the file batch would grade for `exercise` in a student's folder (a notebook's
    code cells), or None; never through a folder that is a link (batch does not grade one)."""
    if os.path.islink(folder):
        return None
    found = submission.candidates(exercise, folder, nested=True)
    if not found:
        return None
    try:
        if submission.is_notebook(found[0]):
            return submission.notebook_code(found[0], exercise)
        data = files.read_regular(found[0], files.MAX_SOURCE_BYTES, follow=False)
    except (OSError, ValueError, submission.SubmissionError):
        return None
    try:  # as Python reads it, in the encoding its coding line names: a copy saved as UTF-7 (round 77's a07)
        return python_text(data)
    except UnicodeError:
        return data.decode("utf-8", "replace")


def class_files(folders):
    """{exercise id: {student: the text of the file batch would grade}} of the students' folders."""
    return {exercise.id: {name: text for name, folder in folders.items()
                          if (text := student_source(folder, exercise)) is not None}
            for exercise in catalog.EXERCISES}


def released_code(stubs, exercise):
    """All the code the release gives for `exercise`, either of which a student may hand back as it is: its stub and
    its notebook's code cells (round 86: two students who handed in the released notebook were a lead of "100% of
    their own code in common"); None where there is neither."""
    texts = [stub_source(stubs, exercise)]
    try:
        texts.append(submission.notebook_code(Path(stubs, "notebooks", exercise.stem + submission.NOTEBOOK_SUFFIX),
                                              exercise))
    except submission.SubmissionError:
        pass
    return "\n\n".join(text for text in texts if text) or None


def stub_source(stubs, exercise):
    try:
        return Path(stubs, exercise.file_name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def code_only(source):
    """`source` without its comments and docstrings (where a name is most often written, and prose
    rather than code); as it is where it does not parse."""
    lines = source.splitlines(keepends=True)
    try:
        for node in ast.walk(ast.parse(source)):
            body = getattr(node, "body", None)
            if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
                for row in range(body[0].lineno - 1, body[0].end_lineno):
                    lines[row] = "\n"
        source = "".join(lines)
        for token in reversed(list(tokenize.generate_tokens(io.StringIO(source).readline))):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                lines[row - 1] = lines[row - 1][:col].rstrip() + "\n"
    except (SyntaxError, ValueError, tokenize.TokenError, RecursionError, MemoryError):  # round 23's a14
        pass
    return "".join(lines)


def changed_lines(source, stub):
    """The lines of `source` that are not in `stub` (inserted or replaced), blank lines left out."""
    theirs, ours = source.splitlines(), stub.splitlines()
    changed = []
    for tag, _, _, j1, j2 in difflib.SequenceMatcher(None, ours, theirs, autojunk=False).get_opcodes():
        if tag in ("replace", "insert"):
            changed += [line for line in theirs[j1:j2] if line.strip()]
    return changed


def anonymised_example(source, stub, who):
    """The student's lines that differ from the stub, without comments and docstrings, every name replaced."""
    return [who.scrub(line) for line in changed_lines(code_only(source), code_only(stub))]


def _example(key, shows, who, submissions, stubs):
    """The smallest anonymised example of misconception `key` in the class: {exercise, lines}."""
    best = None
    for name in sorted(shows, key=lambda n: who.label[n]):
        for exercise_id in shows[name].get(key, {}):
            exercise = catalog.find(exercise_id)
            source, stub = student_source(student_folder(submissions, name), exercise), stub_source(stubs, exercise)
            if source is None or stub is None or source.count("\n") > EXAMPLE_SOURCE_LINES:
                continue  # round 84's a10: a file of 2 million lines cost a minute of the class report
            lines = anonymised_example(source, stub, who)
            if lines and (best is None or len(lines) < len(best["lines"])):
                best = {"exercise": exercise_id, "lines": lines[:EXAMPLE_LINES], "cut": len(lines) > EXAMPLE_LINES}
    return best


# -- writing ---------------------------------------------------------------------------------------

OUTPUTS = ("class-report.html", "class-report.json", "misconceptions.csv")


def write(summary, folder):
    """Write class-report.html, class-report.json and misconceptions.csv into `folder`; their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    texts = (class_page.render(summary), class_tables.summary_json(summary), class_tables.misconceptions_csv(summary))
    for name, text in zip(OUTPUTS, texts):
        files.write_replacing(folder / name, text)
    return [folder / name for name in OUTPUTS]
