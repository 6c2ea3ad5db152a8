"""Inputs that tell mistakes apart: every suite declares the sizes of its tests in a SIZES table,
and this test holds every table to the rule, so that a new suite cannot regress it.

The rule, for each case (a case may opt out only with an `edge` reason: one token, one head, a
square weight on purpose):
- the sizes a usual confusion swaps are all different: batch dims, L / L_q / L_k, d_model, d_k,
  d_v, d, d_head, n_heads, n_kv_heads, n_layers, seq_len, bytes_per_value, vocab_size (a transpose,
  a wrong axis or a wrong factor then gives a different shape or number, never the same one by
  chance);
- n_heads >= 2 and n_kv_heads >= 2 (with one head, heads cannot be mixed up); repeat_kv's
  n_kv_heads * n_rep counts as n_heads;
- every length is >= 2 (a mask or a shape can hide behind L = 1);
- a padding case has max(lengths) < L (else the mask's width can come from the lengths).
And for each table: some case is not an edge case; a table with widths (d_k, d_head) has a case
whose width is not a perfect square (`math.isqrt` of a square is its square root); suite 4 has a
padding case; suite 8 has a KV-cache-size case with bytes_per_value other than 2. That every graded
function is called with separating sizes in its own tests is `lumen-grade check`'s row "graded calls
have separating sizes" (tests/course/test_check.py): a table does not say which function a case calls.
"""

import importlib.util
import itertools
import math
from pathlib import Path

import pytest

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnknownMarkWarning")
SUITES = sorted((Path(__file__).resolve().parents[2] / "grader" / "catalog").glob("exercise*/test_exercise*.py"))
DISTINCT = ("B", "L", "L_q", "L_k", "d_model", "d_k", "d_v", "d", "d_head", "n_heads", "n_kv_heads", "n_layers",
            "seq_len", "bytes_per_value", "vocab_size")
HEADS = ("n_heads", "n_kv_heads")
LENGTHS = ("L", "L_q", "L_k", "seq_len")
WIDTHS = ("d_k", "d_head")


def sizes_of(path):
    """The SIZES table of a suite file (imported outside the grading plugin: its marks are unknown here)."""
    spec = importlib.util.spec_from_file_location(f"suite_sizes_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, "SIZES", None)


def problems(case):
    """What in one case breaks the rule (nothing for an edge case)."""
    if case.get("edge"):
        return []
    found = []
    if "n_rep" in case and "n_heads" not in case:  # repeat_kv's output has n_kv_heads * n_rep heads
        case = {**case, "n_heads": case["n_kv_heads"] * case["n_rep"]}
    named = [(name, value) for name in DISTINCT if name in case
             for value in (case[name] if isinstance(case[name], tuple) else (case[name],))]
    for (a, x), (b, y) in itertools.combinations(named, 2):
        if x == y:
            found.append(f"{a} = {b} = {x}")
    found += [f"{name} = {case[name]} < 2" for name in HEADS + LENGTHS if name in case and case[name] < 2]
    if "lengths" in case:
        width = case.get("L", case.get("L_k"))
        if max(case["lengths"]) >= width:
            found.append(f"max(lengths) = {max(case['lengths'])} is not < L = {width}")
    return found


@pytest.mark.parametrize("path", SUITES, ids=lambda path: path.stem)
def test_every_suite_declares_sizes_that_tell_mistakes_apart(path):
    sizes = sizes_of(path)
    assert isinstance(sizes, dict) and sizes, f"{path.name} has no SIZES table"
    broken = {name: problems(case) for name, case in sizes.items() if problems(case)}
    assert not broken, broken
    assert any(not case.get("edge") for case in sizes.values())
    assert not only_square_widths(sizes), f"{path.name}: every width is a perfect square"


def only_square_widths(table):
    """A table whose cases have widths, all of them perfect squares (edge cases aside)."""
    widths = [case[name] for case in table.values() if not case.get("edge") for name in WIDTHS if name in case]
    return bool(widths) and all(math.isqrt(width) ** 2 == width for width in widths)


def test_suite_specific_rules():
    tables = {path.stem: sizes_of(path) for path in SUITES}
    assert any("lengths" in case and not case.get("edge") for case in tables["test_exercise4"].values())
    bytes_cases = [case for case in tables["test_exercise8"].values() if "bytes_per_value" in case]
    assert any(case["bytes_per_value"] != 2 and not case.get("edge") for case in bytes_cases)


def test_the_rule_catches_what_it_is_for():
    assert problems(dict(B=2, L=5, d_model=6, d_k=4, d_v=3)) == []
    assert problems(dict(B=(2, 3), L=4, d_model=6, d_k=3, d_v=5)) == ["B = d_k = 3"]
    assert problems(dict(B=4, L=5, lengths=[3, 5, 1, 2])) == ["max(lengths) = 5 is not < L = 5"]
    assert problems(dict(B=3, L=1, d_model=8)) == ["L = 1 < 2"]
    assert problems(dict(B=3, L=1, d_model=8, edge="one token")) == []
    assert problems(dict(B=2, L=5, d_model=12, n_heads=4, n_kv_heads=1, d_head=3)) == ["n_kv_heads = 1 < 2"]
    assert problems(dict(B=4, n_kv_heads=2, L=5, d_head=6, n_rep=3)) == ["d_head = n_heads = 6"]
    assert only_square_widths({"a": dict(B=2, d_k=64), "b": dict(B=3, d_head=4), "c": dict(B=5, d_k=6, edge="x")})
    assert not only_square_widths({"a": dict(B=2, d_k=64), "b": dict(B=3, d_head=6)})
    assert not only_square_widths({"a": dict(B=2, L=5)})


def test_a_padding_mask_as_wide_as_the_longest_sequence_loses_points(grade):
    """The false pass the rule was made for: with max(lengths) == L in every test, a mask built with
    arange(lengths.max()) had the right shape; with max(lengths) < L it has not."""
    result = grade(4, source='''
        import torch

        def causal_mask(L, device=None):
            return torch.tril(torch.ones(L, L, dtype=torch.bool, device=device))

        def apply_mask(scores, mask):
            return scores.masked_fill(~mask, float("-inf"))

        def padding_mask(lengths, L):
            return (torch.arange(int(lengths.max()), device=lengths.device) < lengths[:, None])[:, None, :]
    ''')
    failed = {test.name for test in result.tests if test.status == "failed"}
    assert "test_padding_mask[cpu-mixed]" in failed and result.score < result.max_score
