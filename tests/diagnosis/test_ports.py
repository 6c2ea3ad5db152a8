"""Public implementations ported onto the stubs (tests/ports/README.md): those that break a written rule
lose points for it. Those that meet the contract are in tests/honest/ and get full marks there."""

from pathlib import Path

import pytest

from grader import catalog

PORTS = Path(__file__).resolve().parent.parent / "ports"
BREAKING = sorted(PORTS.glob("exercise*/port_*.py"))


def test_every_exercise_has_a_port_that_meets_its_contract():
    honest = PORTS.parent / "honest"
    assert {path.parent.name for path in honest.glob("exercise*/port_*.py")} == {e.id for e in catalog.EXERCISES}


@pytest.mark.parametrize("path", BREAKING, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_port_that_breaks_a_written_rule_loses_points(grade, path):
    result = grade(path.parent.name, path=path)
    assert 0 <= result.score < result.max_score, [(t.name, t.status) for t in result.tests]
