"""Adding an exercise is four files: a toy exercise added to a copy of the kit grades end to end.

The copy gets a solution, a suite, a declaration and a misconception (plus the toy's maths in
lumen_ref), and nothing else of the kit changes: the real CLI, run from the copy, then grades the
solution to full marks with its performance tier, the released stub to 0, and a wrong submission
with the misconception named. An exercise that declares no performance cases is simply untimed.
"""

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, SOLUTIONS
from grader import catalog
from grader.grading import runner

TOY = "exercise42_doubling"

SOLUTION = '''"""Exercise 42 — a toy: double a tensor."""

import torch


def double(x: torch.Tensor) -> torch.Tensor:
    """x times two, same shape."""
    # BEGIN SOLUTION
    # HINT: Exercise 42: add x to itself
    return x + x
    # END SOLUTION
'''

REFERENCE = '''"""The toy exercise's maths."""


def double(x):
    return 2 * x
'''

SUITE = '''"""Exercise 42 — a toy."""

import pytest
import torch

from lumen_ref import toy
from grader.grading.testkit import check_call, randn

SIZES = {"values": dict(n=7), "matrix": dict(rows=3, n=5)}


@pytest.mark.points(2)
def test_double_values(student, rng, device):
    x = randn(rng, SIZES["values"]["n"], device=device)
    check_call(student, "double", x, ref=toy.double, what="double(x)", like=x)


def test_double_matrix(student, rng):
    x = randn(rng, SIZES["matrix"]["rows"], SIZES["matrix"]["n"])
    check_call(student, "double", x, ref=toy.double, what="double(x)", like=x)
'''

DECLARATION = '''"""Exercise 42 — a toy: its declaration."""

from grader.catalog import Exercise, Perf
from grader.perf.cases import Case, Randn
from grader.grading.settings import Settings


def perf_cases(n):
    return [Case("double", (Randn((n, n)),))]


EXERCISE = Exercise(
    title="Double it",
    section="The matrix form",
    names=("double",),
    reference=("toy",),
    perf=Perf(sizes={"cpu": dict(n=256), "cuda": dict(n=1024)}, cases=perf_cases),
    introduction="## What this step computes\\n\\nTwice its input.\\n",
)
'''

MISCONCEPTION = '''    Misconception(
        "toy-triples", (42,),
        "You tripled x: doubling adds x to itself once: see 'The matrix form'",
        ({"double": lambda self, x: 3 * x},),
        {42: [("    return x + x", "    return x + x + x")]},
    ),
'''


def run_kit(kit, *args):
    """`lumen-grade ARGS` run from the copy of the kit (its own grader/ and lumen_ref/ first on the path)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PYTEST"))}
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=kit, env=env, capture_output=True,
                          text=True, timeout=300)


def graded(kit, folder, *args):
    """The JSON report of grading the toy from `folder` (relative to the kit), and the exit code."""
    done = run_kit(kit, "exercise42", "--submission", folder, "--device", "cpu", "--format", "json",
                   "--output", "report.json", *args)
    assert done.returncode in (0, 1), done.stderr
    (result,) = json.loads((kit / "report.json").read_text(encoding="utf-8"))["exercises"]
    return result, done.returncode


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """A copy of the kit with the toy exercise added in four files (and its maths in lumen_ref)."""
    kit = tmp_path_factory.mktemp("kit")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("grader", "lumen_ref", "solutions"):
        shutil.copytree(ROOT / part, kit / part, ignore=ignore)
    (kit / "solutions" / f"{TOY}.py").write_text(SOLUTION, encoding="utf-8")
    (kit / "grader" / "suites" / "test_exercise42.py").write_text(SUITE, encoding="utf-8")
    (kit / "grader" / "catalog" / f"{TOY}.py").write_text(DECLARATION, encoding="utf-8")
    catalogue = kit / "grader" / "misconceptions.py"
    text = catalogue.read_text(encoding="utf-8")
    assert text.count("\n)\n\nBY_ID = ") == 1, "the misconceptions' catalogue ends differently: update this test"
    catalogue.write_text(text.replace("\n)\n\nBY_ID = ", "\n" + MISCONCEPTION + ")\n\nBY_ID = "), encoding="utf-8")
    (kit / "lumen_ref" / "toy.py").write_text(REFERENCE, encoding="utf-8")
    return kit


def test_the_copy_lists_the_toy_from_its_declaration(kit):
    listed = run_kit(kit, "list", "--submission", "solutions")
    assert listed.returncode == 0, listed.stderr
    assert f"exercise42 {TOY}.py" in " ".join(listed.stdout.split()) and "Double it" in listed.stdout
    count = len(catalog.EXERCISES) + 1
    assert f"Grade all {count} exercises." in run_kit(kit, "--help").stdout


def test_the_solution_gets_full_marks_and_a_tier(kit):
    result, code = graded(kit, "solutions", "--perf-points", "1")
    assert code == 0 and result["passed"] and result["score"] == result["max_score"] == 4, result
    assert result["tier"]["id"] == "on-par" and result["tier"]["case"].startswith("double on (256, 256)"), result["tier"]


def test_the_released_stub_scores_zero(kit):
    released = run_kit(kit, "release", "--solutions", "solutions", "--out", "released")
    assert released.returncode == 0, released.stderr
    assert (kit / "released" / "notebooks" / f"{TOY}.ipynb").is_file()
    assert 'raise NotImplementedError("Exercise 42: add x to itself")' in (kit / "released" / f"{TOY}.py").read_text()
    result, code = graded(kit, "released", "--perf-points", "1")
    assert code == 1 and result["score"] == 0 and result["max_score"] == 4 and result["tier"] is None, result


def test_a_wrong_submission_is_diagnosed_with_its_misconception(kit):
    wrong = kit / "wrong"
    wrong.mkdir()
    (wrong / f"{TOY}.py").write_text(SOLUTION.replace("return x + x", "return x + x + x"), encoding="utf-8")
    result, code = graded(kit, "wrong", "--no-perf")
    assert code == 1 and result["score"] == 0, result
    assert [diagnosis["id"] for diagnosis in result["diagnoses"]] == ["toy-triples"], result["diagnoses"]


def test_an_exercise_without_performance_cases_is_untimed(launcher):
    untimed = dataclasses.replace(catalog.find("exercise3"), perf=None)
    options = Settings(submission=SOLUTIONS, device="cpu", perf=True, perf_points=1.0)
    (result,) = runner.grade([untimed], options, launcher=launcher).exercises
    assert result.passed and result.tier is None
    assert "performance tier" not in [test.name for test in result.tests]
