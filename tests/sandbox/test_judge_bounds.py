"""The judge's own memory (issue 10, point 4): what it keeps of the student's values for the
diagnosis is bounded. A recorded value keeps at most MAX_KEPT_ELEMENTS elements, the failed checks
of a whole run at most MAX_KEPT_BYTES in all; beyond that only a value's shape and dtype are kept
(`testkit.Withheld`), so a submission that returns a huge tensor to every test cannot make the
judge hold one per test until the report."""

from types import SimpleNamespace

import pytest
import torch

from conftest import SOLUTIONS
from grader.grading import student, testkit
from grader.grading.compare import Mismatch


def _tensors(value):
    """Every tensor anywhere in a recorded call (its value, its history)."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors(item)]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    if isinstance(value, testkit.Made):
        return _tensors(value.state)
    return []


def test_a_failed_check_keeps_the_shape_of_a_huge_value_not_the_value():
    huge = torch.zeros(testkit.MAX_KEPT_ELEMENTS + 1)
    call = {"target": "scale_scores", "args": (torch.ones(2, 3), 4), "kwargs": {}, "got": huge}
    with pytest.raises(Mismatch) as failure:
        testkit.check_result(huge, torch.ones(2, 3, dtype=torch.float64), what="scale_scores(scores, 4)", call=call)
    kept = failure.value.details["call"]["got"]
    assert isinstance(kept, testkit.Withheld) and not isinstance(kept, torch.Tensor)
    assert kept.shape == tuple(huge.shape) and kept.dtype == torch.float32
    assert "shape" in failure.value.message  # the message is made from the value itself


def test_a_tuple_keeps_its_items_while_they_fit():
    small, large = torch.ones(3), torch.zeros(testkit.MAX_KEPT_ELEMENTS)
    kept = testkit.bounded((small, large))
    assert kept[0] is small and isinstance(kept[1], testkit.Withheld)  # together over the bound


def test_a_tracked_object_logs_the_shape_of_huge_replies():
    """A KV cache whose every method returns a huge tensor: the log that a failed check's replay
    reads keeps shapes, however many calls the test makes."""
    huge = torch.zeros(testkit.MAX_KEPT_ELEMENTS * 4)
    student = SimpleNamespace(run=lambda *args, **options: {"value": huge})
    cache = testkit.Tracked(SimpleNamespace(student=student), testkit.Made("KVCache", (2, 3)))
    for _ in range(5):
        assert cache.append(torch.ones(2)) is huge  # the suite still gets the reply itself
    assert all(isinstance(got, testkit.Withheld) for *_, got in cache.log)
    assert isinstance(cache.last_call()["got"], testkit.Withheld)


def test_a_run_keeps_a_bounded_summary_of_failing_values(grade, monkeypatch):
    """Every test of exercise 3 answered with a tensor of the wrong shape: huge ones (over the bound
    of one value) are kept as shapes; smaller ones as values until the run's budget is spent, then
    as shapes. The verdict and its messages are the same as ever."""
    monkeypatch.setattr(testkit, "MAX_KEPT_BYTES", 1 << 20)
    over = testkit.MAX_KEPT_ELEMENTS + 1
    result = grade(3, f"""
        import torch

        def scale_scores(scores, d_k):
            return torch.zeros({over})

        def scaled_scores(q, k):
            return torch.zeros(100_000)  # 400 kB: two of them fit the budget
    """)
    failed = [test for test in result.tests if test.status == "failed"]
    assert len(failed) >= 6
    assert all("has shape (" in test.message for test in failed if "_values[" in test.name or "_shapes[" in test.name)
    kept = [t for test in failed for t in _tensors(test.details.get("call", {}).get("got"))]
    assert sum(t.numel() * t.element_size() for t in kept) <= 1 << 20
    assert kept, "values within the budget are kept"
    withheld = [test.details["call"]["got"] for test in failed
                if isinstance(test.details.get("call", {}).get("got"), testkit.Withheld)]
    assert {w.shape for w in withheld} == {(over,), (100_000,)}


def test_the_answers_of_one_exercise_are_bounded_before_they_are_read(grade, monkeypatch):
    """Answers the judge would keep (values, float64 copies, records) are bounded in total, each one
    before it is read (round 23's a7: 120 MiB at every call took the judge to 2.2 GiB): a larger one
    stops that child with the reason, and the other functions' tests are graded as ever."""
    monkeypatch.setattr(student, "REPLY_BYTES", 1 << 20)
    solution = (SOLUTIONS / "exercise3_scaling.py").read_text(encoding="utf-8")
    result = grade(3, solution + "\n\ndef scaled_scores(q, k):\n    return torch.zeros(300_000)  # 1.2 MB\n")
    over = [test for test in result.tests if "scaled_scores" in test.name and test.status != "passed"]
    assert over and all("may hold 1.00 MiB together" in test.message for test in over if test.status == "error")
    assert any(test.status == "error" for test in over), [(t.name, t.status, t.message) for t in over]
    scale = [test for test in result.tests if test.name.startswith("test_scale_scores") and test.status != "skipped"]
    assert scale and all(test.status == "passed" for test in scale), [(t.name, t.message) for t in scale]


def test_a_file_holding_a_large_table_of_numbers_is_loaded(grade):
    """The bound on the marks of a reply's header (wire.MAX_TOKENS) is the judge's, against what a
    student's process sends; the child reads the judge's load request unbounded. Round 29's a11, an
    honest table of about 400 000 numbers, made its child end at import ("died ... os._exit")."""
    from grader.sandbox import wire

    row = "    " + "0.5, " * 30 + "\n"
    table = "TABLE = [\n" + row * (wire.MAX_TOKENS // 30 + 10) + "]\n"
    solution = (SOLUTIONS / "exercise2_scoring.py").read_text(encoding="utf-8")
    result = grade(2, solution + "\n\n" + table)
    assert result.score == result.max_score, [(t.name, t.message) for t in result.tests if t.status != "passed"]
