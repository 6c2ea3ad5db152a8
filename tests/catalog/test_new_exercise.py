"""Adding an exercise as docs/instructors.md says: a toy exercise 99 added to a copy of the kit (a number no
instructor's next exercise takes: round 76 added its own exercise 11 as the page says, and the toy collided).

The copy gets a copy of one exercise's folder (grader/catalog/exercise3_scaling/, the four files
the page lists, rewritten for the toy), the toy's solution and its lumen_ref module, and nothing
else. Then, as the page says, `lumen-grade release` writes its stub, its notebook and the README's
exercise table, and nothing else of the kit changes. The real CLI grades the solution to full
marks with its tier, the released stub to 0 and a wrong answer with the misconception named;
`lumen-grade check exercise99` holds; and the kit's own exercise-wide tests, run in the copy, pass
for the toy (the README table, release, notebooks, the diagnoses and the corpora's rules, which
grade its solution as its honest answer and its misconception's mutant as a wrong one, the
suites' sizes).
"""

import dataclasses
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SOLUTIONS
from grader import catalog
from grader.grading import runner
from grader.grading.settings import Settings

TOY, TEMPLATE = "exercise99_doubling", "exercise3_scaling"
FOLDER_FILES = {"__init__.py", "test_exercise99.py", "misconceptions.py", "probes.py", "examples.py"}  # the page's checklist

SOLUTION = '''"""Exercise 99 — a toy: double a tensor.

Chapter section: "The matrix form".
"""

import torch


def double(x: torch.Tensor) -> torch.Tensor:
    """x times two, same shape (the chapter's 'The matrix form')."""
    # BEGIN SOLUTION
    # HINT: Exercise 99: add x to itself (see 'The matrix form')
    return x + x
    # END SOLUTION
'''

REFERENCE = '''"""The toy exercise's maths."""


def double(x):
    return 2 * x
'''

SUITE = '''"""Exercise 99 — a toy: its hidden tests."""

import pytest
import torch

from grader.grading.testkit import check_call, randn
from lumen_ref import toy

# x (n,) or (rows, n)
SIZES = {"values": dict(n=7), "matrix": dict(rows=3, n=5)}


@pytest.mark.points(2)
def test_double_values(student, rng, device):
    x = randn(rng, SIZES["values"]["n"], device=device)
    check_call(student, "double", x, ref=toy.double, what="double(x)", like=x)


def test_double_matrix(student, rng):
    x = randn(rng, SIZES["matrix"]["rows"], SIZES["matrix"]["n"])
    check_call(student, "double", x, ref=toy.double, what="double(x)", like=x)
'''

DECLARATION = '''"""Exercise 99 — a toy: its declaration (see grader/catalog/__init__.py)."""

from grader.catalog import Exercise, Perf
from grader.perf.cases import Case, Randn


def perf_cases(n):
    return [Case("double", (Randn((n, n)),))]


EXERCISE = Exercise(
    title="Double it",
    section="The matrix form",
    names=("double",),
    reference=("toy",),
    perf=Perf(sizes={"cpu": dict(n=256), "cuda": dict(n=1024)}, cases=perf_cases),
    introduction=r"""
## What this step computes

Twice its input, every entry:

$$y = 2x$$

## Shapes

`double(x)`: any shape, returned unchanged.

## A worked example

$[1, 2] \\mapsto [2, 4]$.

**Read in the chapter:** "The matrix form".
""",
)
'''

MISCONCEPTIONS = '''"""Exercise 99: the misconceptions first seen in this exercise (see grader/diagnosis/mutants.py)."""

from grader.diagnosis.mutants import Misconception

MISCONCEPTIONS = (
    Misconception(
        "toy-triples", (99,),
        "You tripled x: doubling adds x to itself once: see 'The matrix form'",
        ({"double": lambda self, x: 3 * x},),
        {99: [("    return x + x", "    return x + x + x")]},
    ),
)
'''

WRONG = '''"""A student's toy answer that triples."""


def double(x):
    return x + x + x
'''

PROBES = '''"""Exercise 99: what the generic analysers know of its functions: no role (see grader/diagnosis/traits.py)."""

TRAITS = {}
'''

EXAMPLES = '''"""Exercise 99: how its function's calls are made smaller (see grader/diagnosis/examples.py)."""

from grader.diagnosis.examples import BATCH, Function, Tensor

EXAMPLES = {"double": Function({"x": Tensor((BATCH, "rows", "columns"))})}
'''

PARTS = ("grader", "lumen_ref", "solutions", "exercises", "tests", "docs", "README.md", "pyproject.toml")
ADDED = {f"grader/catalog/{TOY}/{name}" for name in FOLDER_FILES} | {f"solutions/{TOY}.py", "lumen_ref/toy.py"}
RELEASED = {f"exercises/{TOY}.py", f"exercises/notebooks/{TOY}.ipynb"}  # new files the release writes
REWRITTEN = {"README.md", "exercises/.lumen-release.json"}  # its exercise table; the manifest

# the kit's exercise-wide tests, run in the copy for the toy (-k picks the toy's cases of
# parametrised ones); each must pass there
EXERCISE_WIDE = {
    "tests/cli/test_readme.py": "test_the_exercise_table_is_the_catalogue",
    "tests/course/test_release.py": "exercise99 or round_trip or into_a_new_folder",
    "tests/course/test_notebooks.py": "exercise99 or state_the_facts or one_notebook_per_exercise",
    "tests/diagnosis/test_diagnoses.py": ("toy or exercise99 or in_the_corpus or unmutated_reference or "
                                          "seam_check"),
    "tests/diagnosis/test_honest.py": "exercise99 or covers_the_honest_variants",
    "tests/catalog/test_sizes.py": "exercise99",
}


def run_kit(kit, *args, module="grader", timeout=600):
    """`python -m MODULE ARGS` run in the copy of the kit (its own grader/ and lumen_ref/ first on the path)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PYTEST"))}
    return subprocess.run([sys.executable, "-m", module, *args], cwd=kit, env=env, capture_output=True,
                          text=True, timeout=timeout)


def graded(kit, folder, *args):
    """The JSON report of grading the toy from `folder` (relative to the kit), and the exit code."""
    done = run_kit(kit, "exercise99", "--submission", folder, "--device", "cpu", "--format", "json",
                   "--output", "report.json", *args)
    assert done.returncode in (0, 1), done.stderr
    (result,) = json.loads((kit / "report.json").read_text(encoding="utf-8"))["exercises"]
    return result, done.returncode


def _files(top):
    """Every file under `top` of the kit's PARTS, relative to it (caches and the attacks aside)."""
    found = set()
    for part in PARTS:
        path = top / part
        if path.is_file():
            found.add(part)
        for file in path.rglob("*") if path.is_dir() else ():
            relative = file.relative_to(top)
            if file.is_file() and not {"__pycache__", "attacks", ".pytest_cache"} & set(relative.parts) \
                    and file.suffix != ".pyc":
                found.add(relative.as_posix())
    return found


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """A copy of the kit with the toy added as docs/instructors.md says, and released."""
    # (the numbers are the page's steps)
    kit = tmp_path_factory.mktemp("kit")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "attacks", ".pytest_cache")
    for part in PARTS:
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, kit / part, ignore=ignore)
        else:
            shutil.copyfile(ROOT / part, kit / part)
    # 1-5: a copy of one exercise's folder, its files rewritten for the toy
    folder = kit / "grader" / "catalog" / TOY
    shutil.copytree(kit / "grader" / "catalog" / TEMPLATE, folder, ignore=ignore)
    (folder / "test_exercise3.py").rename(folder / "test_exercise99.py")
    assert {path.name for path in folder.iterdir()} == FOLDER_FILES, "the page's list of an exercise's files is stale"
    for name, text in (("__init__.py", DECLARATION), ("test_exercise99.py", SUITE), ("misconceptions.py", MISCONCEPTIONS),
                       ("probes.py", PROBES), ("examples.py", EXAMPLES)):
        (folder / name).write_text(text, encoding="utf-8")
    # 6-7: the solution, and the maths in lumen_ref
    (kit / "solutions" / f"{TOY}.py").write_text(SOLUTION, encoding="utf-8")
    (kit / "lumen_ref" / "toy.py").write_text(REFERENCE, encoding="utf-8")
    # then the release: the stub, the notebook, the README's exercise table
    released = run_kit(kit, "release")
    assert released.returncode == 0, released.stderr
    assert "README.md: its exercise table rewritten from the catalogue" in " ".join(released.stdout.split())
    return kit


def test_adding_the_toy_changed_nothing_else_of_the_kit(kit):
    """The folder, the solution, the lumen_ref module, and what the release writes: nothing else."""
    before, after = _files(ROOT), _files(kit)
    assert after - before == ADDED | RELEASED, sorted(after ^ before)
    assert before - after == set()
    changed = {path for path in before if not filecmp.cmp(ROOT / path, kit / path, shallow=False)}
    assert changed == REWRITTEN, sorted(changed)
    assert "| exercise99 | `exercise99_doubling.py` | `double` | The matrix form |\n" in (
        kit / "README.md").read_text(encoding="utf-8")


def test_the_page_lists_every_file_of_an_exercise_folder():
    for exercise in catalog.EXERCISES:
        found = {path.name for path in exercise.folder.iterdir() if path.name != "__pycache__"}
        assert found == {name.replace("exercise99", exercise.id) for name in FOLDER_FILES}, (exercise.id, found)
    instructors = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    assert all(f"`{name.replace('99', 'N')}`" in instructors for name in FOLDER_FILES)


def test_the_copy_lists_the_toy_from_its_folder(kit):
    listed = run_kit(kit, "list", "--submission", "solutions")
    assert listed.returncode == 0, listed.stderr
    assert f"exercise99 {TOY}.py" in " ".join(listed.stdout.split()) and "Double it" in listed.stdout
    assert f"Grade all {len(catalog.EXERCISES) + 1} exercises." in run_kit(kit, "--help").stdout


def test_the_solution_gets_full_marks_and_a_tier(kit):
    result, code = graded(kit, "solutions", "--perf-points", "1")
    assert code == 0 and result["passed"] and result["score"] == result["max_score"] == 4, result
    assert result["tier"]["id"] in ("on-par", "3x"), result["tier"]  # the reference itself: within a band of on par
    assert result["tier"]["case"].startswith("double on (256, 256)"), result["tier"]


def test_the_released_stub_scores_zero(kit):
    assert (kit / "exercises" / "notebooks" / f"{TOY}.ipynb").is_file()
    stub = (kit / "exercises" / f"{TOY}.py").read_text(encoding="utf-8")
    assert "raise NotImplementedError(\"Exercise 99: add x to itself (see 'The matrix form')\")" in stub
    result, code = graded(kit, "exercises", "--perf-points", "1")
    assert code == 1 and result["score"] == 0 and result["max_score"] == 4 and result["tier"] is None, result


def test_a_wrong_submission_is_diagnosed_with_its_misconception(kit):
    (kit / "wrong").mkdir()
    (kit / "wrong" / f"{TOY}.py").write_text(WRONG, encoding="utf-8")
    result, code = graded(kit, "wrong", "--no-perf")
    assert code == 1 and result["score"] == 0, result
    assert [diagnosis["id"] for diagnosis in result["diagnoses"]] == ["toy-triples"], result["diagnoses"]


def test_check_holds_for_the_toy(kit):
    done = run_kit(kit, "check", "exercise99")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "✗ FAIL" not in done.stdout


@pytest.mark.parametrize("path, selected", EXERCISE_WIDE.items(), ids=list(EXERCISE_WIDE))
def test_the_kits_exercise_wide_tests_pass_on_the_copy(kit, path, selected):
    done = run_kit(kit, path, "-q", "-p", "no:cacheprovider", "-k", selected, module="pytest", timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    ran = re.search(r"(\d+) passed", done.stdout)
    assert ran and int(ran.group(1)) > 0, done.stdout[-500:]


def test_an_exercise_without_performance_cases_is_untimed(launcher):
    untimed = dataclasses.replace(catalog.find("exercise3"), perf=None)
    options = Settings(submission=SOLUTIONS, device="cpu", perf=True, perf_points=1.0)
    (result,) = runner.grade([untimed], options, launcher=launcher).exercises
    assert result.passed and result.tier is None
    assert "performance tier" not in [test.name for test in result.tests]
