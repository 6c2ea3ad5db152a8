"""The pages say what the kit is: every count of exercises, every table of exercises and the
gradebook's columns in the README and docs/ are checked against the catalogue and the code, so
that adding an exercise cannot leave a page behind."""

import re

import pytest

from conftest import ROOT, unwrapped
from grader import catalog
from grader.course import classbook

PAGES = ["README.md", "docs/instructors.md", "docs/course-ci.md", "docs/security.md"]
WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
NUMBER = rf"(\d+|{'|'.join(WORDS)})"
COUNTS = [  # the ways a page counts the exercises
    re.compile(rf"\b{NUMBER} exercises\b", re.IGNORECASE),  # "ten exercises", "10 exercises"
    re.compile(rf"\ball {NUMBER}\b(?! (?:of|students|rounds|runs|seeds)\b)", re.IGNORECASE),  # "all ten"
    re.compile(rf"\b{NUMBER} × `--timeout`"),  # --student-timeout's default: one --timeout per exercise
]
RANGE = re.compile(r"`exercise(\d+)` … `exercise(\d+|N)`")  # N: the catalogue's last, whatever it is


def text(page):
    return (ROOT / page).read_text(encoding="utf-8")


def value(number):
    return int(number) if number.isdigit() else WORDS.index(number.lower())


@pytest.mark.parametrize("page", PAGES)
def test_every_count_of_exercises_is_the_catalogues(page):
    counted = [(match.group(0), value(match.group(1))) for pattern in COUNTS for match in pattern.finditer(text(page))]
    wrong = [phrase for phrase, number in counted if number != len(catalog.EXERCISES)]
    assert not wrong, f"{page} counts {wrong}; the catalogue has {len(catalog.EXERCISES)} exercises"


@pytest.mark.parametrize("page", PAGES)
def test_every_range_of_exercises_spans_the_catalogue(page):
    ids = [exercise.id for exercise in catalog.EXERCISES]
    for first, last in RANGE.findall(text(page)):
        last = ids[-1].removeprefix("exercise") if last == "N" else last
        assert (f"exercise{first}", f"exercise{last}") == (ids[0], ids[-1]), f"{page}: exercise{first} … exercise{last}"


def tables(markdown):
    """Every Markdown table of a text as a list of rows, each a list of stripped cells."""
    found, rows = [], []
    for line in markdown.splitlines() + [""]:
        if line.startswith("|"):
            if not set(line) <= set("|-: "):
                rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif rows:
            found.append(rows)
            rows = []
    return found


@pytest.mark.parametrize("page", PAGES)
def test_every_table_of_exercises_lists_every_exercise(page):
    """A table with a row per exercise (first column `exerciseN`, the header `exercise`) has the
    catalogue's exercises, in order: a measurement of some of them must say so in a table of its own."""
    for rows in tables(text(page)):
        if rows[0][0] == "exercise" and all(re.fullmatch(r"exercise\d+", row[0]) for row in rows[1:]):
            assert [row[0] for row in rows[1:]] == [e.id for e in catalog.EXERCISES], (page, rows[0])


def test_the_gradebook_table_has_every_column_in_order():
    """course-ci.md's table of grades.csv's columns is the CSV's header (with a roster)."""
    page = text("docs/course-ci.md")
    rows = tables(page[page.index("### The gradebook: `grades.csv`"):])[0]
    assert rows[0] == ["column", "holds"]
    documented = []
    for row in rows[1:]:
        span = RANGE.search(row[0])
        ids = [exercise.id for exercise in catalog.EXERCISES]
        documented += ids[ids.index(f"exercise{span[1]}"):] if span and span[2] == "N" else (
            [f"exercise{n}" for n in range(int(span[1]), int(span[2]) + 1)] if span else re.findall(r"`([^`]+)`", row[0]))
    assert documented == classbook.ROSTER_COLUMNS + classbook.COLUMNS


def test_the_readmes_sample_report_is_what_lumen_grade_prints(monkeypatch):
    """The README's first report (the untouched stub of exercise 3) is the real one, word for word,
    its containment level included; only what depends on the machine is taken from this run (the
    level where the kernel cannot confine, the GPU checks skipped where there is no GPU)."""
    from click.testing import CliRunner

    from grader.cli.main import main
    from grader.sandbox import containment

    readme = text("README.md")
    sample = readme[readme.index("$ lumen-grade exercise3\n"):]
    sample = sample[len("$ lumen-grade exercise3\n"):sample.index("```")]
    monkeypatch.chdir(ROOT)  # the README's folder, where a student types it
    result = CliRunner().invoke(main, ["exercise3"])
    assert result.exit_code == 1, result.output
    printed = result.output.replace(f"[{containment.PROCESS}]", f"[{containment.KERNEL}]")
    skips = re.search(r" \(\d+ GPU checks skipped\)", sample)
    if skips and skips.group(0) not in printed:  # this machine has a GPU: nothing skipped for want of one
        sample = sample.replace(skips.group(0), "")
    assert unwrapped(printed) == unwrapped(sample)
