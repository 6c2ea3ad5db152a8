"""Public implementations ported onto the stubs (tests/ports/README.md): those that break a written rule
lose points for it. Those that meet the contract are in tests/honest/ and get full marks there."""

from pathlib import Path

import pytest

from grader import catalog

PORTS = Path(__file__).resolve().parent.parent / "ports"
BREAKING = sorted(PORTS.glob("exercise*/port_*.py"))


def test_every_exercise_has_a_port_that_meets_its_contract():
    """Every exercise with a corpus of honest answers has a port of another course's code among them (an
    instructor's new exercise, graded on its solution until it has a corpus, needs none: round 76's P14)."""
    honest = PORTS.parent / "honest"
    with_corpus = {e.id for e in catalog.EXERCISES if (honest / e.id).is_dir()}
    assert {path.parent.name for path in honest.glob("exercise*/port_*.py")} == with_corpus
    assert len(with_corpus) >= 10  # the kit's own ten have theirs


@pytest.mark.parametrize("path", BREAKING, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_port_that_breaks_a_written_rule_loses_points(grade, path):
    result = grade(path.parent.name, path=path)
    assert 0 <= result.score < result.max_score, [(t.name, t.status) for t in result.tests]


# a port whose failures no one misconception explains, and the words of its written rule its report must hold
RULE_NAMED = {
    "exercise6/port_hf_gpt2": ("test_explicit_mask[cpu-all-true]", "a given mask replaces the causal one"),
    "exercise10/port_lucidrains_memeff": ("test_tiled_attention_float64[cpu]", "an epsilon"),
}


@pytest.mark.parametrize("port", sorted(RULE_NAMED))
def test_a_port_is_told_the_rule_it_breaks(grade, port):
    """Hugging Face's GPT-2 attention adds a given mask to the causal one with a finite fill, two
    mistakes at once: its all-True mask case names the rule all the same. lucidrains' epsilon is an
    epsilon on every float64 test, never "float32 rounding"."""
    test_name, words = RULE_NAMED[port]
    result = grade(port.split("/")[0], path=PORTS / f"{port}.py")
    messages = {t.name: t.message for t in result.tests if t.status == "failed"}
    assert words in messages[test_name], messages.get(test_name)
    assert not any("one number rounded to float32" in message for message in messages.values())
