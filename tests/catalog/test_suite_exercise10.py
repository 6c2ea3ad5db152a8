"""The exercise 10 suite (attention without the L×L matrix) on known submissions: the solution,
the stub, and student-style mistakes that must fail exactly where expected, with the block sizes
that show them (a loop that drops the last block passes where the block divides the length; a
missing rescale passes with one block)."""

import pytest

from conftest import EXERCISES, ROOT, SOLUTIONS, SUBMISSIONS, failed_tests, failures
from test_diagnoses import graded

ATTACKS = ROOT / "tests" / "attacks"
FOLDER = SUBMISSIONS / "exercise10"
FILE = "exercise10_tiled_attention.py"

COST = {"test_attention_cost", "test_crossover_length"}
SOFTMAX = {"test_online_softmax", "test_online_softmax_huge_scores", "test_online_softmax_masked_entries"}
SOFTMAX_BLOCKS = {"test_online_softmax_reads_blocks"}  # scored once the values are right
TILED = {"test_tiled_attention", "test_tiled_attention_float64", "test_tiled_attention_queries_and_keys",
         "test_tiled_attention_huge_scores", "test_tiled_attention_negative_scores",
         "test_tiled_attention_without_batch_dims", "test_tiled_attention_gradients"}
MEMORY = {"test_tiled_attention_never_holds_the_whole_matrix"}  # also tests/perf/test_probe.py
DEVICE = {"test_stays_on_the_inputs_device"}
CAUSAL_WITH_BLOCKS = {"test_tiled_attention", "test_tiled_attention_float64", "test_tiled_attention_queries_and_keys",
                      "test_tiled_attention_without_batch_dims", "test_tiled_attention_gradients"}

# a mistake in the values shows in float16 and bfloat16 too
HALF = {"test_half_precision"}
# submission -> (the tests it must fail, (a test, a phrase its message must contain))
WRONG = {
    "wrong_sum_not_rescaled": (HALF | SOFTMAX | TILED, ("test_online_softmax", "online_softmax(x of shape (2, 5, 3, 12)")),
    "wrong_output_not_rescaled": (HALF | TILED, ("test_tiled_attention_float64", "tiled_attention(q of shape (2, 13, 6)")),
    "wrong_nothing_rescaled": (HALF | TILED, ("test_tiled_attention", "block_size=1")),
    "wrong_no_scale": (HALF | TILED - {"test_tiled_attention_huge_scores"}, ("test_tiled_attention", "is wrong at")),
    "wrong_drops_last_block": (HALF | SOFTMAX | TILED - {"test_tiled_attention_huge_scores"},
                               ("test_tiled_attention", "block_size=9")),
    "wrong_max_starts_at_zero": ({"test_online_softmax_huge_scores", "test_tiled_attention_huge_scores",
                                  "test_tiled_attention_negative_scores", "test_online_softmax_masked_entries"},
                                 ("test_tiled_attention_negative_scores", "every score below -40000")),
    "wrong_max_starts_at_minus_1e4": ({"test_online_softmax_huge_scores", "test_tiled_attention_negative_scores"},
                                      ("test_online_softmax_huge_scores", "is wrong at [1, 0, 0]")),
    "wrong_divides_inside_loop": (HALF | CAUSAL_WITH_BLOCKS, ("test_tiled_attention_float64", "is wrong at")),
    "wrong_causal_block_positions": (HALF | CAUSAL_WITH_BLOCKS | {"test_tiled_attention_huge_scores"},
                                     ("test_tiled_attention_float64", "causal=True")),
    # its mask, made whole and sliced in every block, is an (L_q, L_k) tensor too
    "wrong_causal_top_left": (HALF | CAUSAL_WITH_BLOCKS - {"test_tiled_attention", "test_tiled_attention_float64"}
                              | MEMORY,
                              ("test_tiled_attention_queries_and_keys", "k of shape (2, 3, 10, 5)")),
    "wrong_nan_on_empty_rows": (HALF | {"test_online_softmax_masked_entries", "test_tiled_attention_queries_and_keys",
                                        "test_tiled_attention_gradients"},
                                ("test_online_softmax_masked_entries", "shift by 0 while the running max is -inf")),
    "wrong_stale_normaliser": (HALF | SOFTMAX, ("test_online_softmax", "is wrong at")),
    "wrong_max_not_kept": (HALF | TILED - {"test_tiled_attention_queries_and_keys", "test_tiled_attention_gradients"}
                           | {"test_online_softmax_huge_scores", "test_online_softmax_masked_entries"},
                           ("test_online_softmax_huge_scores", "has NaN")),
    "wrong_block_uses_old_max": (HALF | SOFTMAX | TILED, ("test_tiled_attention_negative_scores", "float32")),
    "wrong_causal_excludes_diagonal": (HALF | CAUSAL_WITH_BLOCKS | {"test_tiled_attention_huge_scores"},
                                       ("test_tiled_attention", "causal=True")),
    "wrong_squeeze_drops_query_axis": ({"test_tiled_attention"}, ("test_tiled_attention", "(2, 3, 1, 7)")),
    "wrong_where_after_division": ({"test_tiled_attention_gradients"},
                                   ("test_tiled_attention_gradients", "and their gradients must be finite too")),
    "wrong_positions_on_cpu": (DEVICE, ("test_stays_on_the_inputs_device", "made at line")),
    "wrong_running_max_on_cpu": (DEVICE, ("test_stays_on_the_inputs_device", "torch.full((*x.shape[:-1], 1)")),
    "wrong_epsilon_in_denominator": ({"test_tiled_attention_float64", "test_tiled_attention_huge_scores",
                                      "test_tiled_attention_negative_scores", "test_tiled_attention_gradients"},
                                     ("test_tiled_attention_float64", "an epsilon (about 1e-08) added to a denominator, or a clamp")),
}


def test_solution_scores_full_marks(grade):
    result = graded(grade, 10, SOLUTIONS / FILE)
    assert result.passed and result.score == result.max_score
    assert {t.name.split("[")[0] for t in result.tests} == COST | SOFTMAX | SOFTMAX_BLOCKS | TILED | MEMORY | DEVICE | HALF | {
        "test_inputs_not_modified"}


def test_stub_fails_every_test(grade):
    assert set(failed_tests(graded(grade, 10, EXERCISES / FILE))) == COST | SOFTMAX | SOFTMAX_BLOCKS | TILED | MEMORY | DEVICE | HALF | {
        "test_inputs_not_modified"}


def messages(result, test):
    return [t.message for t in failures(result) if t.name.split("[")[0] == test]


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_submission_fails_where_expected(grade, name):
    expected, (test, phrase) = WRONG[name]
    result = graded(grade, 10, FOLDER / f"{name}.py")
    assert set(failed_tests(result)) == expected
    found = messages(result, test)
    assert found and any(phrase in message for message in found), found


def test_tables_of_the_suites_costs_are_no_counts(grade):
    """Round 77's a04: attention_cost and crossover_length as tables of the suite's inputs, whose answers its
    messages print (5/51): each test calls them once more at arguments drawn anew at each grading."""
    (path,) = (ATTACKS / "round77" / "a04_cost_tables" / "sub").glob("*.py")
    result = grade(10, path=path)
    assert COST <= set(failed_tests(result)) and result.score == 0, failed_tests(result)


def test_blocks_that_divide_the_length_hide_a_dropped_last_block(grade):
    """The parametrisation matters: only the block sizes that leave a shorter block (or one larger
    than the sequence) fail a loop that needs full blocks."""
    result = graded(grade, 10, FOLDER / "wrong_drops_last_block.py")
    failing = {t.name for t in result.tests if t.status == "failed"}
    assert "test_tiled_attention[cpu-divides-full]" not in failing
    assert {"test_tiled_attention[cpu-partial-full]", "test_tiled_attention[cpu-one-block-causal]"} <= failing


def test_one_block_hides_a_missing_rescale(grade):
    result = graded(grade, 10, FOLDER / "wrong_nothing_rescaled.py")
    failing = {t.name for t in result.tests if t.status == "failed"}
    assert "test_tiled_attention[cpu-one-block-full]" not in failing
    assert "test_tiled_attention[cpu-block-1-full]" in failing


ONE_ENTRY_AT_A_TIME = """

def online_softmax(x, block_size):
    m = x[..., :1]
    for j in range(1, x.size(-1)):  # one entry at a time, whatever block_size says
        m = torch.maximum(m, x[..., j:j + 1])
    e = torch.exp(x - m.masked_fill(m == float("-inf"), 0.0))
    total = e[..., :1]
    for j in range(1, x.size(-1)):
        total = total + e[..., j:j + 1]
    return e / total.masked_fill(total == 0, 1.0)
"""


@pytest.mark.parametrize("variant, symptom", [
    ("whole-row", "with block_size=4 reduced 12 entries of a row at once"),
    ("one-entry-at-a-time", "its work does not follow block_size"),
])
def test_a_softmax_that_ignores_block_size_loses_only_its_block_rule(grade, variant, symptom):
    """One block for the whole row whatever block_size says: right values, and a max over the whole row
    (round 20's a3); or every row read one entry at a time: the same operations whatever block_size is.
    The block rule's test tells both, and only it fails."""
    source = (SOLUTIONS / FILE).read_text()
    loop = "    for start in range(0, x.size(-1), block_size):"
    changed = (source.replace(loop, "    block_size = x.size(-1)\n" + loop) if variant == "whole-row"
               else source + ONE_ENTRY_AT_A_TIME)
    assert changed != source
    result = grade(10, changed)
    assert failed_tests(result) == ["test_online_softmax_reads_blocks"]
    assert symptom in messages(result, "test_online_softmax_reads_blocks")[0]


def test_the_whole_matrix_at_the_value_tests_lengths_loses_the_memory_points(grade):
    """Tiled only where the keys are many: at the value tests' lengths the whole (L_q, L_k) scores are
    one block, which the memory test measures there too (round 20's a3)."""
    source = (SOLUTIONS / FILE).read_text()
    anchor = "    L_q, L_k = q.size(-2), k.size(-2)\n    m = torch.full_like(q[..., :1]"
    switched = source.replace(anchor, anchor.replace("\n", "\n    block_size = L_k if L_k <= 64 else block_size\n", 1))
    assert switched != source
    result = grade(10, switched)
    assert failed_tests(result) == list(MEMORY)
    assert "a call of the value tests' sizes, made a tensor of shape" in messages(result, list(MEMORY)[0])[0]


def test_cost_messages_name_the_term(grade):
    source = (SOLUTIONS / FILE).read_text()
    halved = source.replace('"core_attention": 4 * L * L * d_model', '"core_attention": 2 * L * L * d_model')
    assert halved != source
    both = halved.replace("    return 6 * d_model\n", "    return 24 * d_model ** 2 / (4 * d_model)\n")
    assert both != halved
    result = grade(10, both)  # two mistakes, each its own test's (one file: each grading of exercise 10 costs seconds)
    assert sorted(failed_tests(result)) == ["test_attention_cost", "test_crossover_length"]
    assert any("half of 3,221,225,472: you counted one of the two products, S = Q Kᵀ and A V; 4·L²·d" in m
               for m in messages(result, "test_attention_cost"))
    assert "is the float 4608.0, expected an int" in messages(result, "test_crossover_length")[0]
    doubled = source.replace('"core_attention": 4 * L * L * d_model', '"core_attention": 8 * L * L * d_model')
    assert any("expected 3,221,225,472 (2× it): 4·L²·d" in m for m in messages(grade(10, doubled), "test_attention_cost"))


def test_an_epsilon_is_named_as_one_not_as_float32_rounding(grade):
    """Each row of the output short by ε / (l + ε): every float64 failure says epsilon, none blames a
    float32 step (nothing there computes in float32); with the epsilons at 0 the same code is exact."""
    path = FOLDER / "wrong_epsilon_in_denominator.py"
    result = graded(grade, 10, path)
    failing = [t.message for t in result.tests if t.status == "failed"]
    assert failing and all("an epsilon (about 1e-08) added to a denominator" in m for m in failing), failing
    assert not any("a step of yours computes in float32" in m for m in failing)
    source = path.read_text(encoding="utf-8")
    exact = source.replace("CLAMP, EPS = 1e-10, 1e-8\n", "CLAMP, EPS = 0.0, 0.0\n")
    assert exact != source
    result = grade(10, source=exact)
    assert result.passed and result.score == result.max_score, [(t.name, t.message) for t in result.tests
                                                                 if t.status == "failed"]
