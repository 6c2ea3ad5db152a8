"""Report writers: one module per format (text, html, json_report, gradescope, junit; formats.py
lists those --format offers, class_page.py the class report), each reading the verdict or a saved
report checked by schema.py."""

import dataclasses
import re
import unicodedata


# a number in a message: cut out, what is left says the kind of problem (the text report and the page)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")

# what a spreadsheet may run as a formula at the start of a cell (OWASP's CSV injection advice)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value):
    """A CSV cell that a spreadsheet shows as text and never runs: one starting with = + - @, a tab or
    a carriage return (a student folder named `=cmd|...`, a roster's name, a message), after spaces
    too, or with a wide form of them (＝, which some spreadsheets take for =: round 25), gets a
    leading single quote; the csv module quotes separators and quotes."""
    text = "" if value is None else str(value)
    first = unicodedata.normalize("NFKC", text.lstrip()[:1])
    return "'" + text if text.startswith(FORMULA_STARTS) or first.startswith(FORMULA_STARTS) else text


# how a report says to see the next level of the hint ladder (the notebook's check cell, which grades
# another way, sets its own in its grading process: grader.course.notebooks._GRADE)
NEXT_HINT = "lumen-grade hint {exercise}"

# a hint level's kind (grader.diagnosis.hints), as a report heads it
HINT_KINDS = {"principle": "what is wrong", "example": "the smallest example", "cause": "the mistake",
              "remedy": "the fix"}


def hint_texts(diagnosis, reached=False):
    """[(heading, text, kind)] of what a report shows a student of `diagnosis`: the levels the hint
    ladder chose (its "shown", grader.course.ladder; `reached`: every level up to the highest of
    those, as a page that has room shows them), headed "hint 1 of 4: what is wrong" (of 3 for a ladder
    without a remedy); for a
    diagnosis the ladder has not seen (a report made without it), its message; for one whose levels
    the course withholds now, a line that says so."""
    if "shown" not in diagnosis:
        return [("", diagnosis["message"], "remedy")]
    top = max(diagnosis["shown"], default=0)
    shown = [hint for hint in diagnosis.get("hints", ())
             if (hint["level"] <= top if reached else hint["level"] in diagnosis["shown"])]
    if not shown:
        return [("", f"a known mistake: its hints are above level {diagnosis['allowed']}, the highest the course "
                     "shows now", "")]
    levels = max(hint["level"] for hint in diagnosis["hints"])  # a structural finding or a cause has no level 4
    return [(f"hint {hint['level']} of {levels}: {HINT_KINDS.get(hint['kind'], hint['kind'])}", hint["text"],
             hint["kind"]) for hint in shown]


def hint_lines(diagnosis, indent=""):
    """What `hint_texts` shows, as plain text: "➜ hint 1 of 4: what is wrong: …", an example on the
    lines under its heading, as it is printed."""
    return [f"{indent}➜ {heading}:\n{text}" if kind == "example" else
            f"{indent}➜ {heading}: {text}" if heading else f"{indent}➜ {text}"
            for heading, text, kind in hint_texts(diagnosis)]


def next_hint(diagnosis):
    """Whether the course allows a higher level of `diagnosis` now than every one shown (with
    --hints all, every allowed level is shown already)."""
    level = diagnosis.get("level")
    if level is None:
        return False
    top = max([level, *diagnosis.get("shown", ())])
    return any(top < hint["level"] <= diagnosis["allowed"] for hint in diagnosis.get("hints", ()))


HIDDEN_NAME = "a hidden check"  # a hidden check's name where the course withholds it


def explains(diagnosis, test):
    """Whether `diagnosis` is the one the plugin named in `test`'s details (by its id, or one of its ids)."""
    named = test.details.get("diagnosis")
    return bool(named) and named in (diagnosis.get("id"), *diagnosis.get("ids", ()))


def in_visible_checks(exercise, diagnosis):
    """Whether `diagnosis` explains a failed check a student sees (not only hidden ones): one drawn from
    hidden checks alone may quote what the code returned there, which can carry their inputs (round 69's
    a01), and is shown with them."""
    return any(explains(diagnosis, test) and test.visibility != "hidden" for test in exercise.tests)


def student_view(report, policy):
    """The GradeReport as the course's `policy` lets a student read it in the text and HTML reports:
    without the performance tier (show_tier false) and with the hidden checks' names, messages and
    pictures withheld (show_hidden_tests false), their status and points kept, and so the diagnoses of
    hidden checks alone (`in_visible_checks`). JSON, JUnit and the class's records are for machines and
    staff: they keep everything."""
    if policy.show_tier and policy.show_hidden_tests:
        return report

    def test_view(test):
        if policy.show_hidden_tests or test.visibility != "hidden":
            return test
        kept = {key: value for key, value in test.details.items() if key == "diagnosis"}
        why = f"{HIDDEN_NAME}, whose reason is withheld" if test.status == "skipped" else ""  # a skip is listed by it
        return dataclasses.replace(test, name=HIDDEN_NAME, message=why, details=kept)

    def diagnoses(exercise):
        if policy.show_hidden_tests:
            return exercise.diagnoses
        return [diagnosis for diagnosis in exercise.diagnoses if in_visible_checks(exercise, diagnosis)]

    return dataclasses.replace(report, exercises=[
        dataclasses.replace(exercise, tier=exercise.tier if policy.show_tier else None, diagnoses=diagnoses(exercise),
                            tests=[test_view(test) for test in exercise.tests])
        for exercise in report.exercises])
