"""The misconceptions catalogue: every exercise's `MISCONCEPTIONS`, gathered in catalogue order.

The order is the exercises' (grader.catalog), then each package's `misconceptions.py` in its file
order. It matters: where a student's value matches two misconceptions that no test tells apart,
the diagnosis names both, "either <the first> or <the second>", in this order. The engine names no
exercise: it finds each package's module by the exercise's stem.

`edits` rewrite the instructor's solution into a whole student file making the mistake: that is
the seam `lumen-grade check` uses (`mutant_sources`) to prove every mutant fails its exercise.
A package may also declare `CAUSES`, the first level of the hint ladder (grader.diagnosis.hints)
for the cause ids its suites name in their messages; `CAUSES` here gathers them.
"""

import importlib
from pathlib import Path

from grader import catalog


def _module(exercise):
    """`exercise`'s misconceptions module, or None: a package may have none."""
    if not (exercise.folder / "misconceptions.py").is_file():
        return None
    return importlib.import_module(f"grader.catalog.{exercise.stem}.misconceptions")


def first_seen_in(exercise):
    """The misconceptions `exercise`'s package declares (the mistakes first seen in it), in file order."""
    module = _module(exercise)
    return tuple(module.MISCONCEPTIONS) if module else ()


def _gathered():
    """Every exercise package's misconceptions, in catalogue order."""
    return tuple(misconception for exercise in catalog.EXERCISES for misconception in first_seen_in(exercise))


MISCONCEPTIONS = _gathered()
BY_ID = {misconception.id: misconception for misconception in MISCONCEPTIONS}
# {cause id: level 1 of its hint ladder} for the causes an exercise's suites name in their messages (a
# check no value shows: a NaN gradient, a cache that copies itself), declared as the package's `CAUSES`
CAUSES = {cause: principle for exercise in catalog.EXERCISES
          for cause, principle in getattr(_module(exercise), "CAUSES", {}).items()}


def declared_twice():
    """{misconception id: the exercises whose packages declare it}, for each id declared by more than one: an
    id is one mistake's, and a copied exercise folder keeps its original's misconceptions.py."""
    owners = {}
    for exercise in catalog.EXERCISES:
        for misconception in first_seen_in(exercise):
            owners.setdefault(misconception.id, []).append(exercise.id)
    return {misconception_id: found for misconception_id, found in owners.items() if len(found) > 1}


def for_exercise(number):
    """The misconceptions that apply to exercise `number`, in catalogue order."""
    return [misconception for misconception in MISCONCEPTIONS if number in misconception.exercises]


def mutant_source(misconception, number, solution):
    """The solution's text with the misconception's edits for exercise `number`; None if an edit does
    not find its text (the solution changed: tests/diagnosis/test_diagnoses.py catches that)."""
    for old, new in misconception.edits[number]:
        if old not in solution:
            return None
        solution = solution.replace(old, new, 1)
    return solution


def mutant_sources(solutions_dir):
    """(misconception id, exercise, a whole student file making that mistake), for `lumen-grade check`."""
    for misconception in MISCONCEPTIONS:
        for number in misconception.edits:
            exercise = catalog.find(str(number))
            solution = (Path(solutions_dir) / exercise.file_name).read_text(encoding="utf-8")
            source = mutant_source(misconception, number, solution)
            yield misconception.id, exercise, solution if source is None else source
