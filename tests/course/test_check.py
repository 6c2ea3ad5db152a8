"""`lumen-grade check`: the instructor's one command, and that each of its claims can fail."""

import dataclasses
import re
import shutil

import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS, unwrapped
from grader import catalog
from grader.course import check
from grader.cli.main import main
from grader.grading.results import ExerciseResult, GradeReport
from grader.grading.testkit import Made

EX3 = catalog.find("exercise3")
CORRECT = "    return scores / math.sqrt(d_k)  # (..., L_q, L_k)\n"
BY_D_K = "    return scores / d_k  # (..., L_q, L_k)\n"  # the classic mistake: d_k, not √d_k


@pytest.fixture
def no_mutants(monkeypatch):
    """As if the exercises' misconceptions had no edits (no mutant files), for check alone: the
    grading it runs still diagnoses with the real catalogue, and check's mutant row, which grades
    every mutant, has nothing to grade."""
    monkeypatch.setattr(check.misconceptions, "mutant_sources", lambda solutions_dir: iter(()))


def solutions_copy(tmp_path, old=None, new=None):
    """A copy of solutions/, with `old` replaced by `new` in exercise 3's solution."""
    copy = tmp_path / "solutions"
    shutil.copytree(SOLUTIONS, copy)
    if old is not None:
        path = copy / EX3.file_name
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new), encoding="utf-8")
    return copy


def by_check(rows):
    return {row.check: row for row in rows}


STEPS = ["the solutions", "the reference against the oracle and torch's built-ins", "the untouched stubs",
         "the misconception mutants", "the rules the stubs write"]


def test_sound_kit_passes_every_row(launcher, no_mutants):
    steps = []
    rows = check.run(SOLUTIONS, [EX3], launcher=launcher, progress=steps.append)
    assert [step for step in steps if ": " not in step] == STEPS  # and within the longest, how far they are
    assert steps[-1] == "the rules the stubs write: 2 of 2 broken solutions graded", steps
    assert [row.status for row in rows] == [check.PASS, check.NOT_AVAILABLE, check.PASS, check.PASS,
                                            check.NOT_AVAILABLE, check.PASS, check.PASS, check.PASS]
    assert rows[1].detail == "exercise3: no builtin_checks declared"  # torch has no scale_scores to compare
    assert check.passed(rows)
    table = check.render(rows, seconds=1.5)
    assert "misconception mutants are caught    -       - not available  exercise3: no mutants" in table
    assert table.endswith("all holds: 6 passed, 0 failed, 2 not available in 1.5 s\n")


def test_a_check_that_did_not_run_for_an_exercise_is_not_available(launcher, monkeypatch):
    """A new exercise, with no reference checks, mutants nor misconceptions declared yet: its rows
    are "not available", never a pass counted from the other exercises' checks (or 0 of 0 pairs)."""
    new = dataclasses.replace(EX3, oracle_checks=None, builtin_checks=None, shapes=None, rules=None)
    monkeypatch.setattr(check.misconceptions, "mutant_sources", lambda solutions_dir: iter(()))
    monkeypatch.setattr(check.misconceptions, "for_exercise", lambda number: [])
    rows = check.run(SOLUTIONS, [new], launcher=launcher)
    assert [(row.check, row.status, row.detail) for row in rows if row.status != check.PASS] == [
        ("reference = float64 oracle", check.NOT_AVAILABLE, "exercise3: no oracle_checks declared"),
        ("reference = torch built-ins", check.NOT_AVAILABLE, "exercise3: no builtin_checks declared"),
        ("misconception mutants are caught", check.NOT_AVAILABLE, "exercise3: no mutants"),
        ("misconceptions are told apart", check.NOT_AVAILABLE, "exercise3: fewer than two misconceptions"),
        ("graded calls have separating sizes", check.NOT_AVAILABLE, "exercise3: no shapes declared"),
        ("stub rules are written and graded", check.NOT_AVAILABLE, "exercise3: no rules declared")]
    assert [row.check for row in rows if row.status == check.PASS] == [
        "solutions/ scores full marks", "untouched stubs score zero"]  # the two that did run for it
    table = check.render(rows)
    assert "comparisons" not in table and "0 of 0" not in table
    both = check.reference_rows(("cpu",), [new, catalog.find("exercise5")])  # one declares checks, one not
    assert [(row.check, row.status) for row in both] == [
        ("reference = float64 oracle", check.PASS), ("reference = float64 oracle", check.NOT_AVAILABLE),
        ("reference = torch built-ins", check.PASS), ("reference = torch built-ins", check.NOT_AVAILABLE)]
    assert both[1].detail == "exercise3: no oracle_checks declared"


def test_every_two_misconceptions_of_an_exercise_are_told_apart(launcher):
    row = by_check(check.run(SOLUTIONS, [EX3], launcher=launcher))["misconceptions are told apart"]
    assert row.status == check.PASS and row.detail == "10 of 10 pairs", row.failures


def test_broken_solution_fails_check_and_is_named(tmp_path, no_mutants):
    solutions = solutions_copy(tmp_path, CORRECT, BY_D_K)
    result = CliRunner().invoke(main, ["check", "exercise3", "--solutions", str(solutions)])
    assert result.exit_code == 1, result.output
    failing = [line for line in result.output.splitlines() if "✗ FAIL" in line]
    # the separation and sizes rows read the calls the (broken) solution's tests passed: they may fail with it
    assert failing[0].startswith("solutions/ scores full marks")
    assert all(line.startswith(("solutions/ scores full marks", "misconceptions are told apart",
                                "graded calls have separating sizes", "stub rules are written and graded"))
               for line in failing)
    assert "    exercise3: " in result.output and "test_scale_scores_values" in result.output
    assert "untouched stubs score zero" in result.output
    assert f"NOT all holds: {6 - len(failing)} passed, {len(failing)} failed" in result.output
    # each step said as it starts, on stderr, before the table (round 70: nothing for half a minute)
    assert [line for line in result.stderr.splitlines() if ": " not in line] == [f"checking {step} ..." for step in STEPS]
    assert result.output.index("checking the rules the stubs write ...") < result.output.index("solutions/ scores")


def test_solution_that_leaks_into_the_stub_fails_the_stub_row(launcher, tmp_path, no_mutants):
    """Code outside the markers ships to students: here the stub of scale_scores would be solved."""
    solutions = solutions_copy(tmp_path, "    # BEGIN SOLUTION\n    # HINT: Exercise 3: divide",
                               CORRECT + "    # BEGIN SOLUTION\n    # HINT: Exercise 3: divide")
    rows = by_check(check.run(solutions, [EX3], launcher=launcher))
    stubs = rows["untouched stubs score zero"]
    assert stubs.status == check.FAIL and stubs.failures[0].startswith("exercise3: ")
    assert "untouched; passed test_scale_scores_values" in stubs.failures[0]
    assert rows["solutions/ scores full marks"].status == check.PASS


def test_unbalanced_markers_fail_the_stub_row_naming_the_file(launcher, tmp_path, no_mutants):
    solutions = solutions_copy(tmp_path, "    # END SOLUTION\n", "\n")
    stubs = by_check(check.run(solutions, [EX3], launcher=launcher))["untouched stubs score zero"]
    assert stubs.status == check.FAIL and "exercise3_scaling.py, line" in stubs.failures[0]


def test_a_wrong_reference_fails_its_rows(monkeypatch):
    import lumen_ref

    monkeypatch.setattr(lumen_ref, "scale_scores", lambda scores, d_k: scores / d_k)
    monkeypatch.setattr(lumen_ref, "softmax", lambda x, dim=-1: x.exp() / x.exp().sum())  # over everything
    oracle_row, builtin_row, unavailable = check.reference_rows(("cpu",))
    assert oracle_row.status == builtin_row.status == check.FAIL
    assert unavailable.status == check.NOT_AVAILABLE and unavailable.check == builtin_row.check
    assert [f.split(":")[0] for f in oracle_row.failures] == [
        "exercise3 scale_scores on cpu", "exercise5 softmax(dim=-1) on cpu", "exercise5 softmax(dim=1) on cpu"]
    assert [f.split(":")[0] for f in builtin_row.failures] == ["exercise5 softmax on cpu", "exercise5 softmax(dim=1) on cpu"]


def fake_mutants(monkeypatch, mutants):
    """The catalogue's mutant files replaced by (id, exercise, the line replacing exercise 3's)."""
    def mutant_sources(solutions_dir):
        solution = (solutions_dir / EX3.file_name).read_text(encoding="utf-8")
        return [(mutant, exercise, solution.replace(CORRECT, line)) for mutant, exercise, line in mutants]

    monkeypatch.setattr(check.misconceptions, "mutant_sources", mutant_sources)


def test_mutants_are_graded_and_one_that_passes_is_named(launcher, monkeypatch):
    fake_mutants(monkeypatch, [
        ("scale-by-dk", EX3, BY_D_K),
        ("not-a-mistake", EX3, "    return scores * d_k ** -0.5\n"),  # correct: the suites must pass it
    ])
    rows = check.run(SOLUTIONS, [EX3], launcher=launcher)
    mutants = by_check(rows)["misconception mutants are caught"]
    assert mutants.status == check.FAIL and not check.passed(rows)
    assert mutants.detail == "1 of 2 mutants (2 misconceptions) fail their exercise"
    assert len(mutants.failures) == 1 and mutants.failures[0].startswith("not-a-mistake (exercise3): passed")


def test_a_misconception_declared_by_two_exercises_fails_check(launcher, monkeypatch, no_mutants):
    """Round 70's P6: a copied exercise folder kept its original's misconceptions.py; `check` of the copy
    said all held, and `check` of the original failed, naming neither copy nor cause."""
    ex4 = catalog.find("exercise4")
    own = check.misconceptions.first_seen_in
    monkeypatch.setattr(check.misconceptions, "first_seen_in",
                        lambda exercise: own(EX3) if exercise == ex4 else own(exercise))
    rows = by_check(check.run(SOLUTIONS, [ex4], launcher=launcher))
    twice = rows["misconceptions declared once"]
    assert twice.status == check.FAIL and len(twice.failures) == len(own(EX3)) > 0
    assert twice.failures[0] == (f"{own(EX3)[0].id}: declared by exercise3 and exercise4 (a copied exercise folder "
                                 "keeps its original's misconceptions.py: write MISCONCEPTIONS = () in the copy)")


def verdict_of(exercise, *calls):
    """A verdict of `exercise` on the solutions whose checks recorded `calls` ((target, args, kwargs[,
    object, method]) each)."""
    recorded = [dict(zip(("target", "args", "kwargs", "object", "method"), call)) for call in calls]
    result = ExerciseResult(id=exercise.id, title=exercise.title, file=exercise.file_name, calls=recorded)
    return GradeReport(exercises=[result], device="cpu", seed=0)


def whole_kit(launcher):
    """`check.run` of every exercise (its mutants aside: `no_mutants`), once per session: two tests read
    its rows (a run of a minute on a CI machine)."""
    if not _WHOLE_KIT:
        _WHOLE_KIT.append(by_check(check.run(SOLUTIONS, launcher=launcher)))
    return _WHOLE_KIT[0]


_WHOLE_KIT = []


def test_every_graded_function_is_called_with_separating_sizes(launcher, no_mutants):
    rows = whole_kit(launcher)
    row = rows["graded calls have separating sizes"]
    separated = re.fullmatch(r"(\d+) of (\d+) functions with sizes to separate", row.detail)
    assert row.status == check.PASS and separated and separated[1] == separated[2], (row.detail, row.failures)
    assert int(separated[1]) >= 19  # the kit's own ten exercises' (an instructor's exercise adds its own)


def test_a_function_called_only_at_a_perfect_square_width_fails_the_sizes_row():
    """The miss the row was made for: math.isqrt(d_k) passed scale_scores' own test at d_k = 64."""
    import torch

    scores, q, k = torch.zeros(2, 3, 5, 7), torch.zeros(2, 5, 6), torch.zeros(2, 7, 6)
    [row] = check._sizes_rows([EX3], verdict_of(EX3, ("scale_scores", [scores, 64], {}), ("scale_scores", [scores, 16], {}),
                                         ("scaled_scores", [q, k], {})))
    assert row.status == check.FAIL and row.detail == "1 of 2 functions with sizes to separate"
    assert row.failures == ["exercise3 scale_scores: no graded call has separating sizes; the nearest "
                            "(L_k = 7, L_q = 5, d_k = 64): d_k = 64 is a perfect square (math.isqrt(d_k) = √d_k)"]
    [row] = check._sizes_rows([EX3], verdict_of(EX3, ("scale_scores", [scores], {"d_k": 48}), ("scaled_scores", [q, k], {})))
    assert row.status == check.PASS, row.failures  # read by keyword too


NO_CALL = "exercise7 repeat_kv: no call of it passed its checks on the solutions"


def test_the_sizes_row_asks_one_call_to_separate_every_size_at_once():
    """GQA's call must have H ≠ H_kv ≠ 1, B ≠ H and D ≠ d_k together; a function with no call fails."""
    import torch

    ex7 = catalog.find("exercise7")
    made = lambda *args: Made("GroupedQueryAttention", args)  # noqa: E731
    x = torch.zeros(4, 7, 18)
    calls = [("GroupedQueryAttention", [x], {}, made(18, 6, 6), "__call__"),  # H = H_kv
             ("GroupedQueryAttention", [torch.zeros(6, 7, 18)], {}, made(18, 6, 2), "__call__")]  # B = H
    [row] = check._sizes_rows([ex7], verdict_of(ex7, *calls))
    assert row.failures == [
        NO_CALL,
        "exercise7 GroupedQueryAttention: no graded call has separating sizes; the nearest (B = 4, D = 18, H = 6, "
        "H_kv = 6, L = 7, d_k = 3): H = H_kv = 6"]
    calls.append(("GroupedQueryAttention", [x], {}, made(18, 6, 2), "__call__"))
    assert check._sizes_rows([ex7], verdict_of(ex7, *calls))[0].failures == [NO_CALL]


def test_shapes_read_a_call_by_position_keyword_list_and_rank():
    import torch

    shapes = check.catalog.Shapes(args=("x: ... L D", "n_heads: H", "patterns: B H L L"),
                                  derived=lambda s: {"d_k": s["D"] // s["H"]})
    assert shapes.names() == {"L", "D", "H", "B", "d_k"}
    call = {"args": [torch.zeros(2, 3, 5, 12)], "kwargs": {"n_heads": 4, "patterns": [torch.zeros(6, 4, 7, 7)]}}
    assert shapes.of(call) == {"L": 5, "D": 12, "H": 4, "B": 6, "d_k": 3}  # the first spec read first
    assert shapes.of({"args": [torch.zeros(5, 12)], "kwargs": {"patterns": [torch.zeros(7, 7)]}}) == {"L": 5, "D": 12}
    # a rank the spec does not declare gives nothing, and no size means no derived size either


def test_an_exercise_without_shapes_is_not_available_for_the_sizes_row():
    new = dataclasses.replace(EX3, shapes=None)
    assert [(r.status, r.detail) for r in check._sizes_rows([new], verdict_of(new))] == [
        (check.NOT_AVAILABLE, "exercise3: no shapes declared")]
    missing = dataclasses.replace(EX3, shapes={"scale_scores": EX3.shapes["scale_scores"]})
    assert "exercise3 scaled_scores: no shapes declared" in check._sizes_rows([missing], verdict_of(missing))[0].failures


def test_every_rule_the_stubs_write_is_graded_and_every_graded_rule_written(launcher, no_mutants):
    row = whole_kit(launcher)["stub rules are written and graded"]
    assert row.status == check.PASS, row.failures
    declared = [exercise for exercise in catalog.EXERCISES if exercise.rules is not None]
    rules = [rule for exercise in declared for rule in exercise.rules]
    broken = sum(rule.breaks is not None for rule in rules)
    assert row.detail.startswith(f"{len(rules)} rules of {len(declared)} exercises, {broken} broken on purpose"), \
        row.detail


def rules_row(launcher, exercise, rules, solutions=SOLUTIONS):
    """The rules row of `exercise` declared with `rules`, graded from `solutions`."""
    declared = dataclasses.replace(exercise, rules=rules)
    options = check.Settings(submission=solutions, device="cpu", perf=False)
    verdict = check.runner.grade([declared], options, launcher=launcher)
    [row] = check._rules_rows([declared], options, verdict, launcher)
    return row


def test_a_rule_missing_from_the_stub_or_its_tests_or_unbroken_fails_the_rules_row(launcher):
    rules = tuple(rule for rule in EX3.rules if rule.phrase != "d_k is the width of the queries, q.size(-1)")
    row = rules_row(launcher, EX3, (
        *rules,
        check.catalog.Rule("d_k is the width of the keys", ("test_scaled_scores_width",)),  # the stub does not say it
        check.catalog.Rule("scores / √d_k", ("test_scale_scores_dtype",)),  # no such test
        check.catalog.Rule("Returns a new tensor", ("test_inputs_not_modified",),  # an edit that breaks nothing
                           breaks=("return scores / math.sqrt(d_k)", "return scores * (1 / math.sqrt(d_k))")),
        check.catalog.Rule("scores / √d_k", ("test_inputs_not_modified",), breaks=("no such line", "")),
    ))
    assert row.status == check.FAIL
    assert row.failures == [
        "exercise3 'd_k is the width of the keys': not in the docstrings of exercise3_scaling.py's stub",
        "exercise3 'scores / √d_k': graded by test_scale_scores_dtype, not in its suite",
        "exercise3 'scores / √d_k': its breaking edit does not apply to the solution",
        "exercise3 'Returns a new tensor': broken, it fails no test, none of test_inputs_not_modified"]


def test_a_test_no_rule_names_fails_the_rules_row(launcher):
    """A graded rule that the stub does not write: a test that no declared rule names."""
    rules = tuple(rule for rule in EX3.rules if "test_scaled_scores_keeps_unit_spread" not in rule.tests)
    row = rules_row(launcher, EX3, rules)
    assert row.failures == ["exercise3 test_scaled_scores_keeps_unit_spread: grades a rule no phrase of the stub "
                            "is declared for"]


def test_the_stub_is_read_for_its_docstrings_only():
    source = '"""The module: a rule."""\n# a comment: not a docstring\n\nclass A:\n    """A    class\n    rule."""\n\n' \
             '    def f(self):\n        """A method\'s rule."""\n        return "a string: no docstring"\n'
    text = check._docstrings(source)
    assert "The module: a rule." in text and "A class rule." in text and "A method's rule." in text
    assert "a comment" not in text and "no docstring" not in text


def test_not_available_is_neither_a_pass_nor_a_failure():
    rows = [check.Row("a", "cpu", check.NOT_AVAILABLE)]
    assert not check.passed(rows)
    assert check.passed(rows + [check.Row("b", "cpu", check.PASS)])
    assert not check.passed(rows + [check.Row("b", "cpu", check.PASS), check.Row("c", "cpu", check.FAIL)])


def test_unknown_exercise_is_a_usage_error():
    result = CliRunner().invoke(main, ["check", "exercise99"])
    assert result.exit_code == 2 and "unknown exercise 'exercise99'" in unwrapped(result.output)
