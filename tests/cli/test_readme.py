"""The README starts with the student: the two commands, then a short quick start that a student on
a laptop without a GPU can follow; instructor material lives in docs/."""

import re

from conftest import ROOT
from grader import catalog
from grader.course import release

README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title):
    """The README's `## title` section, up to the next `## ` heading."""
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end > 0 else None]


def test_the_two_commands_come_first():
    before = README[:README.index("\n## ")]
    assert "lumen-grade all --submission solutions" in before and "python -m pytest -q" in before
    assert re.search(r"test suite \([^)]*minutes", before), "say how long the test suite takes"


def test_the_quick_start_is_short_and_has_what_a_laptop_needs():
    quick = section("Students: quick start")
    prose = [line for line in quick.strip().splitlines() if not line.startswith("|")]  # the exercises' table grows
    assert len(prose) <= 70  # with each exercise an instructor adds (round 86 added one: 81 lines of 80)
    assert "python3 -m venv" in quick  # Debian and Ubuntu have no `python` (round 80)
    assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in quick
    for command in ("lumen-grade exercise3", "lumen-grade watch exercise3", "lumen-grade exercise3 -v"):
        assert command in quick, command
    assert "docs/" not in quick  # a student gets to a passing exercise without reading docs/


def test_instructor_material_is_in_docs_and_linked():
    for name in ("instructors", "course-ci", "architecture"):
        assert f"(docs/{name}.md)" in README and (ROOT / "docs" / f"{name}.md").is_file(), name
    assert "(docs/security.md)" in README
    for heading in ("## Edit, release, check", "## Diagnoses", "## Performance tiers"):
        assert heading in (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8"), heading


def test_the_exercise_table_is_the_catalogue():
    """The README's table of exercises is what `lumen-grade release` writes from the catalogue
    (run it after adding an exercise), and says what each declaration says: its file, what the
    student writes and the section to read, in the catalogue's order."""
    start, end = release.table_span(README)
    assert README[start:end] == release.exercise_table(), "the README's exercise table is stale: run `lumen-grade release`"
    assert start > README.index("\n## Students: quick start\n") and end < README.find("\n## ", start)
    rows = [line.split("|")[1:-1] for line in README[start:end].splitlines()[2:]]
    assert [cells[0].strip() for cells in rows] == [exercise.id for exercise in catalog.EXERCISES]
    for cells, exercise in zip(rows, catalog.EXERCISES):
        _, file, names, section = (cell.strip() for cell in cells)
        assert file == f"`{exercise.file_name}`", (exercise.id, file)
        assert names == ", ".join(f"`{name}`" for name in exercise.names), (exercise.id, names)
        assert section == exercise.section and section in catalog.CHAPTER_SECTIONS, (exercise.id, section)
