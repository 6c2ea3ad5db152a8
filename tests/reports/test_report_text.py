"""The text report a student reads: short, folded, wrapped to the terminal, coloured only on one."""

import os
import pty
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from conftest import ROOT, SOLUTIONS, SUBMISSIONS
from grader import catalog
from grader.reports import text as report
from grader.cli.main import main, text_style
from grader.grading.results import ExerciseResult, GradeReport, held_message
from grader.grading.results import TestResult as Check  # not a pytest class

ESCAPE = re.compile(r"\x1b\[")


def invoke(*args, columns=None):
    """`lumen-grade ARGS` as a student runs it, from the kit's folder, output not a terminal."""
    env = {"COLUMNS": str(columns) if columns else None, "NO_COLOR": None}
    return CliRunner(env=env).invoke(main, [str(a) for a in args], catch_exceptions=False)


def lines_of(output):
    return output.rstrip("\n").split("\n")


@pytest.fixture
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def test_untouched_stubs_fit_in_5_lines_per_exercise_of_80_columns(at_root):
    result = invoke("all", "--no-perf")
    assert result.exit_code == 1
    lines = lines_of(result.output)
    assert len(lines) <= 5 * len(catalog.EXERCISES), result.output
    assert max(map(len, lines)) <= 80, result.output
    assert result.output.count("not implemented yet") == len(catalog.EXERCISES)  # once per exercise, not per test
    assert not ESCAPE.search(result.output)  # not a terminal: no colour


def test_all_passing_fits_in_12_lines(at_root):
    result = invoke("all", "--submission", "solutions", "--no-perf")
    assert result.exit_code == 0
    lines = lines_of(result.output)
    count = len(catalog.EXERCISES)
    assert len(lines) <= count + 4 and max(map(len, lines)) <= 80, result.output  # a line per exercise
    assert sum(line.startswith("✓ exercise") for line in lines) == count
    assert re.fullmatch(rf"Total: (\d+)/\1 — {count} of {count} exercise\(s\) passed", lines[-1]), lines[-1]


def passing(exercise_id, title, points, tier):
    return ExerciseResult(exercise_id, title, f"exercises/{exercise_id}.py",
                          tests=[Check("test_a", "passed", points)], tier=tier)


def test_a_memory_verdict_shows_only_when_the_memory_grows_like_L_squared():
    tiled = {"id": "on-par", "name": "on par", "message": "on par",
             "memory": {"verdict": "tiled", "message": "memory: tiled — grows like L^1.0"}}
    quadratic = {**tiled, "memory": {"verdict": "quadratic", "message": "memory: quadratic — grows like L^2.0"}}
    for tier, shown in ((tiled, False), (quadratic, True)):
        text = report.render_text(GradeReport([passing("exercise10", "Attention without the L×L matrix", 38, tier)],
                                              "cpu", 0))
        assert ("      memory: quadratic — grows like L^2.0" in lines_of(text)) is shown
        assert "memory: tiled" not in text


def test_a_passing_exercise_is_one_line_with_its_tier_unless_slow():
    on_par = {"id": "on-par", "name": "on par with the reference", "message": "on par — 1.01× its time"}
    slow = {"id": "10x", "name": "5.2 to 16× slower than the reference",
            "message": "5.2 to 16× slower — often a Python loop over something torch could batch"}
    text = report.render_text(GradeReport([
        passing("exercise5", "Softmax and scaled dot-product attention", 33, on_par),
        passing("exercise6", "Multi-head attention", 30, slow)], "cpu", 0))
    lines = lines_of(text)
    assert "✓ exercise5  Softmax and scaled dot-product attention  33/33  on par" in lines
    assert "✓ exercise6  Multi-head attention  30/30  5.2 to 16× slower" in lines  # the ratios, not "about 10×"
    assert "    performance: 5.2 to 16× slower — often a Python loop over something torch" in lines
    assert lines[5] == "      could batch" and len(lines) == 8  # the advice wraps with a hanging indent


def test_identical_failures_are_folded_and_a_syntax_error_shows_once(tmp_path):
    (tmp_path / "exercise3_scaling.py").write_text("import torch\ndef scale_scores(s, d):\n    return s /\n")
    result = invoke("3", "--submission", tmp_path, "--device", "cpu")
    assert result.exit_code == 1
    assert result.output.count("SyntaxError") == 1, result.output
    assert "✗ exercise3_scaling.py: importing it raised SyntaxError" in result.output
    assert re.search(r"\n +\d+ tests not run \(0/\d+\)\n", result.output)


def test_a_failing_exercise_shows_each_distinct_problem_its_picture_and_diagnosis(tmp_path):
    (tmp_path / "exercise4_masking.py").write_bytes(
        (SUBMISSIONS / "exercise4" / "wrong_inverted_causal.py").read_bytes())
    result = invoke("4", "--submission", tmp_path, "--device", "cpu", "--no-perf", "--hints", "all", columns=60)
    lines = lines_of(result.output)
    # every line fits, but one that is a single word (the file's path, longer than the line: never split)
    assert all(len(line) <= 60 or len(line.split()) == 1 for line in lines), result.output
    words = " ".join(result.output.split())
    assert "✗ test_causal_mask[cpu-L=4]: causal_mask(4, device='cpu') is wrong at [0, 0]" in words
    assert "      expected   yours" in lines and result.output.count("expected   yours") == 1
    # every level of its hint ladder (--hints all), the remedy last
    assert "hint 4 of 4: the fix: causal_mask(...): Your mask is the wrong way round: True means 'may attend'" in words
    assert "test_apply_mask_values" not in result.output  # a passing test is not listed
    verbose = invoke("4", "--submission", tmp_path, "--device", "cpu", "--no-perf", "-v", columns=60)
    assert "    ✓ 2/2  test_apply_mask_values[cpu-float32]" in lines_of(verbose.output)


def test_a_ladder_without_a_remedy_counts_its_own_levels_and_offers_no_next_hint_when_all_are_shown(tmp_path):
    (tmp_path / "exercise4_masking.py").write_bytes(
        (SUBMISSIONS / "exercise4" / "wrong_causal_on_cpu.py").read_bytes())  # a cause: levels 1 to 3
    shown = " ".join(invoke("4", "--submission", tmp_path, "--device", "cpu", "--no-perf", "--hints", "all").output.split())
    assert "hint 1 of 3: what is wrong" in shown and "hint 3 of 3: the mistake" in shown
    assert "of 4" not in shown and "next hint" not in shown
    first = " ".join(invoke("4", "--submission", tmp_path, "--device", "cpu", "--no-perf").output.split())
    assert "hint 1 of 3" in first and "next hint: lumen-grade hint exercise4" in first


def test_more_problems_than_shown_point_to_verbose():
    names = "ABCDEF"  # distinct problems (numbers alone would make them one kind)
    tests = [Check(f"test_{n}", "failed", 1.0, message=f"problem {names[n]}") for n in range(report.PROBLEMS_SHOWN + 3)]
    text = report.render_text(GradeReport([ExerciseResult("exercise2", "Score every key", "f.py", tests)], "cpu", 0))
    words = " ".join(text.split())
    assert "test_2: problem C" in words and f"problem {names[report.PROBLEMS_SHOWN]}" not in words
    assert "… 3 more problems in 3 tests: lumen-grade exercise2 -v lists every test" in words


def test_verbose_says_a_message_the_test_before_said_as_above():
    """-v: a held file's paragraph (the same under every test) once, then "as above"; a different
    message, or one after a test without a message, in full."""
    held = held_message("f.py, line 1: import gc")
    tests = [Check("test_a", "failed", 2.0, message=held), Check("test_b", "failed", 1.0, message=held),
             Check("test_c", "passed", 1.0), Check("test_d", "failed", 1.0, message=held),
             Check("test_e", "failed", 1.0, message="another problem")]
    text = report.render_text(GradeReport([ExerciseResult("exercise2", "Score every key", "f.py", tests)], "cpu", 0),
                              width=400, verbose=True)
    said = [line.strip() for line in text.splitlines() if line.startswith(" " * 10)]
    assert said == [held, "as above", held, "another problem"], text
    assert "✗ exercise2  Score every key  1/6  held for review" in text  # not a plain 0 (round 80)


def mismatch(name, function, subject, got, dtype="float32", diagnosis=None):
    """A failed check as compare words it: `function` called as `subject` gave a wrong value `got`."""
    tolerance = {"float32": "1e-05 + 0.0001·|expected|", "float64": "1e-12 + 1e-10·|expected|"}[dtype]
    details = {"subject": subject, "call": {"target": function},
               "tolerance": {"dtype": dtype, "text": tolerance}, **({"diagnosis": diagnosis} if diagnosis else {})}
    return Check(name, "failed", 1.0, details=details,
                 message=f"{subject} is wrong at [0, 1]: got {got}, expected 0.5; 9 of 12 values are off "
                         f"(tolerance {tolerance})")


def test_a_distinct_problem_comes_before_variants_of_one_already_shown():
    """Four variants of a diagnosed split_heads mistake (sizes, dtypes) and one merge_heads error:
    the merge_heads line is shown, second, not folded into "… more problems"."""
    split = [mismatch(f"test_split_heads[{n}]", "split_heads", f"split_heads(x of shape (2, {n}, 12), 3)",
                      got=0.1 * n, dtype=dtype, diagnosis="split:no-transpose")
             for n, dtype in zip(range(1, 5), ("float32", "float64", "float32", "float64"))]
    merge = mismatch("test_merge_heads[cpu]", "merge_heads", "merge_heads(x)", got=0.7)
    crash = Check("test_merge_heads_dtype", "error", 1.0, message="merge_heads(x) raised RuntimeError: view size")
    result = ExerciseResult("exercise6", "Multi-head attention", "f.py", [*split, merge, crash])
    lines = [line.strip() for line in report.render_text(GradeReport([result], "cpu", 0), width=400).splitlines()]
    problems = [line.split(":")[0] for line in lines if line.startswith("✗ test")]
    assert problems == ["✗ test_split_heads[1]", "✗ test_merge_heads[cpu]", "✗ test_merge_heads_dtype"]
    more = next(line for line in lines if line.startswith("…"))
    assert more == "… 3 more problems in 3 tests, all like those above: lumen-grade exercise6 -v lists every test"


def test_a_submission_with_a_split_and_a_merge_mistake_shows_both(tmp_path):
    """Graded for real: split_heads without its transpose fails at every size and dtype, and a
    merge_heads without its transpose too; the short report names both functions' failures."""
    code = (SUBMISSIONS / "exercise6" / "wrong_split_no_transpose.py").read_text(encoding="utf-8")
    right_merge = "    return x.transpose(1, 2).contiguous().view(B, L, H * d_head)\n"
    assert right_merge in code
    (tmp_path / "exercise6_multihead.py").write_text(code.replace(right_merge, "    return x.view(B, L, H * d_head)\n"))
    result = invoke("6", "--submission", tmp_path, "--device", "cpu", "--no-perf", columns=400)
    assert result.exit_code == 1, result.output
    problems = [line.strip().split(":")[0] for line in lines_of(result.output) if line.strip().startswith("✗ test")]
    assert problems[:2] == ["✗ test_split_heads_values[cpu-float32]", "✗ test_merge_heads_values[cpu-float32]"], \
        result.output
    assert result.output.count("(tolerance") == 1, result.output  # said once, for the dtypes of the lines shown


def test_the_tolerance_is_said_once_per_block_for_each_dtype():
    tests = [mismatch(f"test_{n}", f"f{n}", f"f{n}(x)", got=0.1, dtype=dtype)
             for n, dtype in enumerate(("float32", "float64", "float32"))]
    result = ExerciseResult("exercise3", "Scale", "f.py", tests)
    for verbose in (False, True):
        text = report.render_text(GradeReport([result], "cpu", 0), width=400, verbose=verbose)
        assert text.count("tolerance") == 1, text
        assert "(tolerance: 1e-05 + 0.0001·|expected| in float32, 1e-12 + 1e-10·|expected| in float64)" in text
        assert "f2(x) is wrong at [0, 1]: got 0.1, expected 0.5; 9 of 12 values are off\n" in text
    alone = Check("test_alone", "failed", 1.0, message="f(x) is wrong (tolerance 1e-05 + 0.0001·|expected|)")
    text = report.render_text(GradeReport([ExerciseResult("exercise3", "Scale", "f.py", [alone])], "cpu", 0))
    assert "(tolerance 1e-05" in text  # a message without the detail is shown as it is


def test_device_skips_are_one_count_or_omitted_when_the_device_was_chosen(at_root):
    import torch

    if torch.cuda.is_available():
        pytest.skip("a GPU is present: nothing is skipped for want of one")
    auto = invoke("3", "--submission", "solutions", "--no-perf")
    assert re.match(r"Lumen attention kit \[(kernel|process)\] — graded on cpu, seed 0 \(\d+ GPU checks skipped\)\n",
                    auto.output)
    assert "cuda is not available" not in auto.output
    chosen = invoke("3", "--submission", "solutions", "--no-perf", "--device", "cpu")
    assert "skipped" not in chosen.output


def run_in_a_terminal(*args, env=None):
    """`python -m grader ARGS` with a pseudo-terminal as its output: what a student's terminal gets."""
    leader, follower = pty.openpty()
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "COLUMNS")}
    done = subprocess.run([sys.executable, "-m", "grader", *args], stdout=follower, stderr=follower,
                          cwd=ROOT, env={**environment, **(env or {})}, timeout=120)
    os.close(follower)
    output = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal is closed once everything is read
            break
        if not chunk:
            break
        output += chunk
    os.close(leader)
    return done.returncode, output.decode()


@pytest.mark.parametrize("args, env, coloured", [
    ((), {}, True),
    ((), {"NO_COLOR": "1"}, False),
    (("--no-color",), {}, False),
], ids=["terminal", "NO_COLOR", "--no-color"])
def test_colour_only_on_a_terminal_without_no_color(args, env, coloured):
    code, output = run_in_a_terminal("exercise2", "--submission", str(SOLUTIONS), "--device", "cpu", "--no-perf",
                                     *args, env=env)
    assert code == 0 and "✓ exercise2" in ESCAPE.sub("", re.sub(r"\x1b\[[0-9;]*m", "", output)), output
    assert bool(ESCAPE.search(output)) == coloured, output


class Stream:
    def __init__(self, terminal):
        self.terminal = terminal

    def isatty(self):
        return self.terminal


def test_text_style_reads_the_terminal_no_color_and_columns(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert text_style(False, Stream(False)) == (False, 80)
    assert text_style(False, Stream(True))[0] is True
    assert text_style(True, Stream(True))[0] is False
    monkeypatch.setenv("COLUMNS", "100")
    assert text_style(False, Stream(False)) == (False, 100)
    monkeypatch.setenv("NO_COLOR", "1")
    assert text_style(False, Stream(True)) == (False, 100)


def test_version_and_student_help_first():
    version = invoke("--version")
    assert version.exit_code == 0 and re.fullmatch(r"lumen-grade \d+\.\d+\.\d+\S*\n", version.output)
    helped = invoke("exercise3", "--help").output
    heading = helped.index("Instructor and course CI options:")
    for option in ("--submission", "--notebook", "--verbose", "--device", "--no-perf", "--no-color"):
        assert helped.index(option) < heading, option
    for option in ("--format", "--output", "--seed", "--timeout", "--memory-limit", "--suites", "--perf-points"):
        assert helped.index(option) > heading, option
    top = invoke("--help").output
    assert top.index("Commands:") < top.index("  watch ") < top.index("Instructor commands:") < top.index("release")


def returned_none(name, what, target):
    """A check that failed as check_result words it: the call's subject, then the problem."""
    return Check(name, "failed", 1.0, message=f"{what} returned None: did you forget `return`?",
                 details={"subject": what, "call": {"target": target}})


def test_failures_that_differ_only_in_the_call_are_one_problem():
    tests = [returned_none(f"test_q{n}", "scaled_scores(q, k)", "scaled_scores") for n in range(3)]
    tests += [returned_none(f"test_w{d}", f"scaled_scores with d_k = {d}", "scaled_scores") for d in (1, 10, 64, 100)]
    tests += [returned_none("test_s", "scale_scores(scores, 64)", "scale_scores"),  # another function
              Check("test_v", "failed", 1.0, message="scaled_scores(q, k) has wrong values: divide by √d_k",
                    details={"subject": "scaled_scores(q, k)", "call": {"target": "scaled_scores"}})]
    result = GradeReport([ExerciseResult("exercise3", "Scale by √d_k", "exercises/exercise3_scaling.py",
                                         tests=tests)], "cpu", 0)
    text = report.render_text(result, width=100)
    assert "✗ 7 tests: scaled_scores(q, k) returned None: did you forget `return`?" in text, text
    assert "✗ test_s: scale_scores(scores, 64) returned None" in text, text
    assert "✗ test_v: scaled_scores(q, k) has wrong values" in text, text
    assert text.count("did you forget") == 2, text


def test_a_failed_check_carries_the_subject_its_message_starts_with():
    import torch

    from grader.grading.compare import Mismatch
    from grader.grading.testkit import check_result

    with pytest.raises(Mismatch) as failure:
        check_result(None, torch.zeros(2, dtype=torch.float64), what="scaled_scores with d_k = 4")
    assert failure.value.details["subject"] == "scaled_scores with d_k = 4"
    assert failure.value.message.startswith("scaled_scores with d_k = 4 returned None")
