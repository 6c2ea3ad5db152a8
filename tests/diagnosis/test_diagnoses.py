"""Diagnoses: the misconception catalogue, the matcher, the failure messages and the pictures.

Every submission in tests/submissions/ says in its docstring which diagnosis it must get
("Diagnosis: scale-by-dk." or "Diagnosis: none."): wrong ones were written as students write, not
by calling a mutant, and correct-but-different ones must get none and full marks. An exercise
without its own folder there is held to the same rule by its misconceptions' mutant sources
(conftest.wrong_corpus). Each is graded once per session (`graded`), and
tests/catalog/test_suite_exercise*.py read the same results.
"""

import json
import re
from pathlib import Path
from unittest import mock

import pytest
import torch

import lumen_ref as ref
from conftest import CORPUS_TIME_LIMIT, EXAMPLE_SECONDS, ROOT, SOLUTIONS, SUBMISSIONS, computed_once, wrong_corpus
from grader import catalog
from grader.diagnosis import examples, matcher as diagnose, misconceptions, trails
from grader.diagnosis.reference import Reference
from grader.reports import json_report, text as report
from grader.grading.compare import Mismatch, check_close, check_tensor, check_unchanged, summarise
from grader.grading import runner
from grader.grading.results import GradeReport
from grader.grading.settings import Settings
from grader.grading.testkit import Made, Raised

ISSUE_IDS = (
    "projection-transposed", "fused-split-wrong-axis", "scores-transposed", "missing-scale", "scale-by-dk",
    "scale-multiplied", "scale-by-d-model", "mask-inverted", "mask-excludes-diagonal", "mask-upper-triangle",
    "mask-after-softmax", "softmax-wrong-dim", "softmax-unstable", "softmax-nan-on-masked-row",
    "split-heads-without-transpose", "merge-heads-without-transpose", "gqa-repeat-tiles", "kv-cache-ignores-past",
    "kv-cache-causal-offset", "kv-cache-bytes-missing-factor-2",
)
CORPUS = wrong_corpus()
_GRADED = {}


def graded(grade, exercise, path=None, source=None):
    """grade(exercise, path=path) (or source=source), once per run, on whichever worker of pytest-xdist grades it
    first: grading is deterministic for a seed, and the corpus tests here, in test_hints.py, test_examples.py and
    tests/catalog/test_suite_exercise*.py look at the same results. The search for a small example is given room
    (conftest.EXAMPLE_SECONDS)."""
    key = (catalog.find(str(exercise)).id, str(Path(path).resolve()) if source is None else source)
    if key not in _GRADED:
        def graded_now():
            with mock.patch.object(examples, "SECONDS", EXAMPLE_SECONDS):
                return grade(exercise, path=path, source=source, time_limit=CORPUS_TIME_LIMIT)

        _GRADED[key] = computed_once(grade.across_workers, key, graded_now)
    return _GRADED[key]


def diagnosed(result):
    """The ids of an exercise's diagnoses, in order."""
    return [diagnosis["id"] for diagnosis in result.diagnoses]


def declared(path):
    """The diagnosis a corpus file says it must get: an id, or None for "none"."""
    found = re.search(r"^Diagnosis: (\S+?)\.$", path.read_text(encoding="utf-8").split('"""')[1], re.M)
    assert found, f"{path.name} does not say which diagnosis it must get (a 'Diagnosis: ...' line)"
    return None if found.group(1) == "none" else found.group(1)


# -- the catalogue ------------------------------------------------------------------------------


def test_the_catalogue_has_the_issues_ids_and_more():
    ids = [misconception.id for misconception in misconceptions.MISCONCEPTIONS]
    assert len(ids) == len(set(ids)) and set(ISSUE_IDS) < set(ids)
    for misconception in misconceptions.MISCONCEPTIONS:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", misconception.id)
        assert misconception.exercises and set(misconception.exercises) <= {e.number for e in catalog.EXERCISES}
        assert misconception.mutants and set(misconception.includes) <= set(ids)
        assert re.search(r": see '[^']+'$", misconception.message), misconception.id


def test_the_scale_by_dk_message_is_the_issues():
    assert misconceptions.BY_ID["scale-by-dk"].message == "You divided by d_k, not √d_k: see 'Why divide by √d_k?'"


def test_every_message_points_at_a_section_of_the_chapter():
    headings = set(catalog.CHAPTER_SECTIONS)
    for misconception in misconceptions.MISCONCEPTIONS:
        section = re.search(r"see '([^']+)'$", misconception.message).group(1)
        assert section in headings, f"{misconception.id}: no section {section!r} in the chapter"


def every_call():
    """A call of each function and module of the exercises, as the suites record them (float64)."""
    g = torch.Generator().manual_seed(0)

    def randn(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64)

    x, q, k, v = randn(2, 5, 6), randn(2, 3, 5, 4), randn(2, 3, 7, 4), randn(2, 3, 7, 3)
    mask = torch.ones(5, 7, dtype=torch.bool).tril(diagonal=2)
    mask[3] = False  # a query that may see no key
    huge = randn(3, 5) * 1e4
    huge[1, 2:] = float("-inf")
    lengths = torch.tensor([3, 0, 5])
    rows = randn(5, 10) * 3  # online_softmax: blocks 3 + 3 + 3 + 1
    rows[0] = rows[0].sort().values * 30  # the max grows in every block
    rows[1, :4] = float("-inf")  # nothing finite in the first block
    rows[2] = float("-inf")  # nothing at all
    rows[3] -= 2000  # far below 0: a running max started at 0 underflows
    mha, gqa = ref.MultiHeadAttention(12, 3).double(), ref.GroupedQueryAttention(18, 6, 2).double()
    tokens = randn(2, 9, 18)
    module = Made("CachedGroupedQueryAttention", (18, 6, 2), {}, gqa.state_dict())
    cache = Made("KVCache", (2, 2, 3, 12), {})
    history = [(module, "__call__", (tokens[:, :3], cache), {}, None), (cache, "reset", (), {}, None),
               (module, "__call__", (tokens[:, :2], cache), {}, None)]
    calls = [
        ("project", (x, randn(6, 6), randn(6, 6), randn(6, 6)), {}),
        ("fused_project", (x, randn(6, 12)), {}),
        ("attention_scores", (q, k), {}),
        ("attention_scores", (randn(1, 3, 4), randn(1, 4, 4)), {}),  # k.T, all dims reversed, still multiplies
        ("scale_scores", (randn(3, 4), 16), {}),
        ("scaled_scores", (q, k), {}),
        ("causal_mask", (5,), {}),
        ("apply_mask", (randn(2, 5, 7), mask), {}),
        ("padding_mask", (lengths, 5), {}),
        ("softmax", (huge,), {"dim": 0}),
        ("scaled_dot_product_attention", (q, k, v, mask), {}),
        ("split_heads", (randn(2, 5, 12), 3), {}),
        ("merge_heads", (q,), {}),
        ("repeat_kv", (k[:, :2], 3), {}),
        ("kv_cache_bytes", (32, 8, 128, 4096), {"batch_size": 3, "bytes_per_value": 4}),
        ("crossover_length", (768,), {}),
        ("online_softmax", (rows, 3), {}),
        ("tiled_attention", (q, k, v, 3), {"causal": True}),  # fewer queries than keys; blocks 3 + 3 + 1
        ("tiled_attention", (k, q, v[:, :, :5], 2), {"causal": True}),  # more: the first two see no key
        ("tiled_attention", (-30 * (q.abs() + 1), 30 * (k.abs() + 1), v, 4), {}),  # every score below -100
    ]
    for target, args, kwargs in calls:
        yield {"target": target, "args": args, "kwargs": kwargs}
    patterns = [ref.softmax(ref.apply_mask(randn(2, 3, 8, 8) * 2, ref.causal_mask(8)), dim=-1) for _ in range(2)]
    patterns[1][:, 0] = ref.causal_mask(8).double().tril(-1) - ref.causal_mask(8).double().tril(-2)  # key i-1
    for target, args, kwargs in (("previous_token_score", (patterns[0],), {}), ("induction_score", (patterns[1], 4), {}),
                                 ("find_heads", (patterns,), {"threshold": 0.3})):
        yield {"target": target, "args": args, "kwargs": kwargs}
    padding = lengths[:2, None, None, None] > torch.arange(6)  # (2, 1, 1, 6): sequence 1 has no key
    for made, x_module in ((Made("MultiHeadAttention", (12, 3), {}, mha.state_dict()), randn(2, 6, 12)),
                           (Made("GroupedQueryAttention", (18, 6, 2), {}, gqa.state_dict()), tokens[:, :6])):
        for args in ((x_module,), (x_module, padding)):
            yield {"target": made.target, "object": made, "method": "__call__", "args": args, "kwargs": {}}
    for chunk in (tokens[:, 2:5], tokens[:, 5:6]):
        yield {"target": module.target, "object": module, "method": "__call__", "args": (chunk, cache),
               "kwargs": {}, "history": history}
    alone = Made("KVCache", (2, 2, 3, 6), {})  # a cache the test fills itself
    yield {"target": "KVCache", "object": alone, "method": "update", "args": (k[:, :2, :2, :3], v[:, :2, :2]),
           "kwargs": {}, "history": [(alone, "update", (k[:, :2, 2:5, :3], v[:, :2, 2:5]), {}, None)]}
    yield {"target": "KVCache", "object": cache, "method": "__len__", "args": (), "kwargs": {}, "history": history}


def test_the_unmutated_reference_is_lumen_ref():
    """Reference is the answer key taken apart: put together again, it is lumen_ref."""
    compared = 0
    for call in every_call():
        got = diagnose.replay(Reference(), call, torch.float64)
        assert diagnose.matches(got, lumen_ref_replay(call), torch.float64), call["target"]
        compared += 1
    assert compared == 31


def lumen_ref_replay(call):
    """The call, and its history, done by lumen_ref's own functions, modules and KV cache."""
    objects = {}

    def real(value):
        if not isinstance(value, Made):
            return value
        if id(value) not in objects:
            if value.target == "KVCache":
                objects[id(value)] = ref.KVCache(*value.args, dtype=torch.float64)
            else:
                objects[id(value)] = getattr(ref, value.target)(*value.args).double()
                objects[id(value)].load_state_dict(value.state)
        return objects[id(value)]

    if call.get("object") is None:
        return getattr(ref, call["target"])(*call["args"], **call["kwargs"])
    result = None
    with torch.no_grad():
        for made, method, args, kwargs, _ in [*call.get("history", ()), (call["object"], call["method"],
                                                                         call["args"], call["kwargs"], None)]:
            target = real(made)
            args = [real(arg) for arg in args]
            result = len(target) if method == "__len__" else (
                target(*args, **kwargs) if method == "__call__" else getattr(target, method)(*args, **kwargs))
    return result


def recorded_calls(launcher):
    """The calls the suites make of the functions that every_call() does not call (an exercise's
    added since), recorded by grading its solution: so that every exercise's mutants meet calls."""
    covered = {call["target"] for call in every_call()}
    added = [exercise for exercise in catalog.EXERCISES if not set(exercise.names) <= covered]
    if not added:
        return []
    verdict = runner.grade(added, Settings(submission=SOLUTIONS, device="cpu", perf=False), launcher=launcher)
    return [call for result in verdict.exercises for call in result.calls]


@pytest.fixture(scope="module")
def reference_answers(launcher):
    """Each call of every_call() (and of recorded_calls) with the reference's answer to it."""
    return [(call, diagnose.replay(Reference(), call, torch.float32))
            for call in [*every_call(), *recorded_calls(launcher)]]


@pytest.mark.parametrize("misconception", misconceptions.MISCONCEPTIONS, ids=lambda m: m.id)
def test_every_mutant_makes_its_mistake_somewhere(misconception, reference_answers):
    """A mutant that gives the reference's answers everywhere could never be told apart."""
    for mutant in misconception.mutant_classes():
        assert any(_differs(mutant, call, expected) for call, expected in reference_answers), \
            f"{misconception.id}: a mutant that changes nothing"


def _differs(mutant, call, expected):
    """Does the mutant answer the call otherwise than the reference: another value, or a tensor's error
    where the reference answers (a crash the diagnosis matches by its error, as a student's crash is
    replayed)? A TypeError or a NameError is a mutant's own bug, which shows no mistake."""
    try:
        value = diagnose.replay(mutant(), call, torch.float32)
    except (RuntimeError, ValueError, IndexError):  # the reference answered this call
        return True
    except Exception:  # noqa: BLE001 - the mutant's own code is broken
        return False
    return not diagnose.matches(value, expected, torch.float32)


@pytest.mark.parametrize("misconception", misconceptions.MISCONCEPTIONS, ids=lambda m: m.id)
def test_every_misconception_can_be_written_into_the_solution(misconception):
    """The seam of `lumen-grade check`: each edit still finds its text in solutions/, and the file compiles."""
    assert misconception.edits, f"{misconception.id} has no student file for lumen-grade check"
    for number in misconception.edits:
        exercise = catalog.find(str(number))
        solution = (SOLUTIONS / exercise.file_name).read_text(encoding="utf-8")
        source = misconceptions.mutant_source(misconception, number, solution)
        assert source is not None and source != solution, f"{misconception.id}: an edit no longer applies"
        compile(source, exercise.file_name, "exec")


class SourceFile:
    """A mutant source's functions and classes, run in this process (they are the solution's, edited) in
    the place of a reference: diagnose.replay then redoes a recorded call with them."""

    def __init__(self, source, name):
        self.namespace = {"__name__": name}
        exec(compile(source, name, "exec"), self.namespace)  # noqa: S102 - the instructor's solution, edited

    def make(self, made):
        kwargs = {**made.kwargs, "dtype": torch.float64} if made.target == "KVCache" else made.kwargs
        obj = self.namespace[made.target](*made.args, **kwargs)
        if made.state is not None:
            obj.double().load_state_dict(made.state)
        return obj

    def __getattr__(self, name):
        return self.namespace[name]


@pytest.mark.parametrize("misconception", misconceptions.MISCONCEPTIONS, ids=lambda m: m.id)
def test_every_mutant_source_makes_that_mistake(misconception, reference_answers):
    """The student files `lumen-grade check` grades make the catalogue's mistake: the calls of
    reference_answers they get wrong are diagnosed as this misconception and nothing else, call by call
    (each call's diagnosis added to the others'), or else all together as the grader weighs them, the
    calls they crash on recorded as the grader records a crash: one update call cannot tell a cache that
    never advances its length from one that returns only the new tokens, their calls together can."""
    for number in misconception.edits:
        exercise = catalog.find(str(number))
        solution = (SOLUTIONS / exercise.file_name).read_text(encoding="utf-8")
        source = SourceFile(misconceptions.mutant_source(misconception, number, solution), exercise.file_name)
        diagnoses, failed = [], []
        for call, expected in reference_answers:
            if call["target"] not in source.namespace:
                continue
            try:
                got = diagnose.replay(source, call, torch.float32)
            except Exception as error:  # noqa: BLE001 - the mistake crashes on this input
                failed.append({**call, "got": Raised(type(error).__name__, str(error))})
                continue
            found = diagnose.diagnose(number, {**call, "got": got})
            if not diagnose.matches(got, expected, torch.float32):
                failed.append({**call, "got": got})
                if found:
                    diagnose.add(diagnoses, found)
        if diagnosed_ids(diagnoses) != [misconception.id]:
            together = [d.id for d in diagnose.conclude(number, failed) if d.ids]  # catalogue entries only
            assert together == [misconception.id], (exercise.id, diagnosed_ids(diagnoses), together)


def test_mutant_sources_is_the_seam_check_expects():
    sources = list(misconceptions.mutant_sources(SOLUTIONS))
    assert len(sources) == sum(len(m.edits) for m in misconceptions.MISCONCEPTIONS)
    for mutant_id, exercise, source in sources:
        assert mutant_id in misconceptions.BY_ID and isinstance(exercise, catalog.Exercise)
        assert source != (SOLUTIONS / exercise.file_name).read_text(encoding="utf-8")


# -- the matcher ------------------------------------------------------------------------------


def call_of(target, *args, got, **kwargs):
    return {"target": target, "args": args, "kwargs": kwargs, "got": got}


def test_a_float32_answer_with_the_mistake_is_named():
    scores = torch.randn(2, 5, 7) * 8
    got = (scores.double() / 64).float()  # divided by d_k, computed in float32
    assert diagnose.diagnose(3, call_of("scale_scores", scores, 64, got=got)) == "scale-by-dk"


def test_a_right_answer_or_an_unknown_mistake_gets_nothing():
    scores = torch.randn(2, 5, 7)
    assert diagnose.diagnose(3, call_of("scale_scores", scores, 16, got=scores / 4)) is None  # right
    assert diagnose.diagnose(3, call_of("scale_scores", scores, 16, got=scores / 3)) is None  # no known mistake
    assert diagnose.diagnose(3, call_of("scale_scores", scores, 16, got="a string")) is None
    assert diagnose.diagnose(3, call_of("no_such_function", scores, got=scores)) is None


def test_mistakes_this_call_cannot_tell_apart_are_not_guessed():
    """At L = 1 a causal mask without its diagonal and an inverted one are both [[False]]."""
    got = torch.zeros(1, 1, dtype=torch.bool)
    assert diagnose.diagnose(4, call_of("causal_mask", 1, got=got)) is None
    assert diagnose.diagnose(4, call_of("causal_mask", 1, got=got), known=["mask-inverted"]) == "mask-inverted"
    assert diagnose.diagnose(4, call_of("causal_mask", 4, got=torch.ones(4, 4, dtype=torch.bool).tril(-1))) == \
        "mask-excludes-diagonal"


def test_of_two_mistakes_that_include_each_other_the_narrower_is_named_first():
    """A softmax without the max subtraction is NaN on a fully masked row too: that row alone shows only
    the missing guard, and huge scores show the instability, which then stands for both."""
    x = torch.randn(3, 4)
    x[1] = float("-inf")
    nan_row = torch.softmax(x, dim=-1)  # NaN on row 1, as both mistakes give
    assert torch.isnan(nan_row[1]).all()
    assert diagnose.diagnose(5, call_of("softmax", x, got=nan_row, dim=-1)) == "softmax-nan-on-masked-row"
    diagnoses = []
    diagnose.add(diagnoses, "softmax-nan-on-masked-row")
    diagnose.add(diagnoses, "softmax-unstable")
    diagnose.add(diagnoses, "softmax-nan-on-masked-row")
    diagnose.add(diagnoses, "softmax-unstable")
    assert diagnosed_ids(diagnoses) == ["softmax-unstable"]
    assert diagnoses[0]["message"] == misconceptions.BY_ID["softmax-unstable"].message


def diagnosed_ids(diagnoses):
    return [diagnosis["id"] for diagnosis in diagnoses]


def test_a_kv_cache_sequence_is_replayed_step_by_step():
    """A call on a module with a KV cache is redone after the calls before it, on the mutant's own cache."""
    gqa = ref.GroupedQueryAttention(18, 6, 2).double()
    module = Made("CachedGroupedQueryAttention", (18, 6, 2), {}, gqa.state_dict())
    cache = Made("KVCache", (2, 2, 3, 12), {"dtype": torch.float32, "device": "cpu"})
    x = torch.randn(2, 5, 18, dtype=torch.float64)
    call = {"target": module.target, "object": module, "method": "__call__", "args": (x[:, 2:], cache),
            "kwargs": {}, "history": [(module, "__call__", (x[:, :2], cache), {}, None)]}
    top_left = misconceptions.BY_ID["kv-cache-causal-offset"].mutant_classes()[1]
    call["got"] = diagnose.replay(top_left(), call).float()  # what a student with that mistake returns
    assert call["got"].shape == (2, 3, 18)
    assert diagnose.diagnose(8, call) == "kv-cache-causal-offset"
    assert diagnose.diagnose(8, {**call, "history": []}) is None  # no past, no way to see the mistake


# -- the corpus: every wrong submission gets exactly its diagnosis -------------------------------


def test_every_misconception_is_in_the_corpus():
    """A student-written file for each misconception of an exercise with its own corpus folder (every
    exercise of the kit); an exercise added without one has its mutant sources there instead."""
    written = {declared(entry.path) for entry in CORPUS if not entry.stand_in}
    standing_in = {entry.diagnosis for entry in CORPUS if entry.stand_in}
    for exercise in catalog.EXERCISES:
        own = {misconception.id for misconception in misconceptions.first_seen_in(exercise)}
        if (SUBMISSIONS / exercise.id).is_dir():
            assert own <= written, (exercise.id, "no student-written file for", own - written)
        else:
            assert own <= standing_in | written, (exercise.id, "no mutant source for", own - standing_in - written)
    assert set(misconceptions.BY_ID) <= written | standing_in
    # the others are what a failing check's message names itself (grader.grading.compare's causes), and
    # the structural analysers' findings (keys "kind:detail"), such as what a crash shows
    assert {i for i in written - {None} - set(misconceptions.BY_ID) if ":" not in i} == {
        "input-changed-in-place", "cache-capacity", "cache-reallocated", "nan-gradient-on-masked-row", "built-on-cpu",
        "cache-dtype-ignored", "head-at-the-threshold", "epsilon-in-divisor", "parameters-differ",
        "kept-from-an-earlier-call", "cache-len-from-values", "tiled-holds-whole-matrix", "cost-one-product",
        "cost-multiply-adds", "crossover-one-linear-term", "returns-an-input", "gradient-scaled", "state-dict-extra",
        "tiled-keys-not-in-blocks", "online-softmax-not-in-blocks", "repeated-tokens-rules", "cost-term-halved"}


@pytest.mark.parametrize("entry", CORPUS, ids=lambda entry: entry.id)
def test_each_submission_gets_exactly_its_diagnosis(grade, entry):
    result = graded(grade, entry.exercise.id, entry.path, entry.source)
    expected = entry.diagnosis if entry.stand_in else declared(entry.path)
    assert diagnosed(result) == ([expected] if expected else []), [(t.name, t.message) for t in result.tests]
    if entry.name.startswith("alt_"):
        assert result.passed and result.score == result.max_score, [(t.name, t.message) for t in result.tests
                                                                    if t.status != "passed"]
    else:
        assert not result.passed
    for test in result.tests:
        assert test.details.get("diagnosis") in (None, expected)


@pytest.mark.parametrize("exercise", catalog.EXERCISES, ids=lambda e: e.id)
def test_solutions_score_full_marks_and_stubs_zero_without_a_diagnosis(grade, exercise):
    solution = graded(grade, exercise.id, SOLUTIONS / exercise.file_name)
    assert solution.passed and solution.score == solution.max_score > 0, \
        [(t.name, t.message) for t in solution.tests if t.status != "passed"]
    stub = graded(grade, exercise.id, ROOT / "exercises" / exercise.file_name)
    ran = [t for t in stub.tests if t.status != "skipped"]
    assert stub.score == 0 and ran and all(t.message.startswith("not implemented yet") for t in ran), \
        [t.message for t in ran if not t.message.startswith("not implemented yet")]
    assert diagnosed(solution) == diagnosed(stub) == []


# -- pictures ---------------------------------------------------------------------------------


def test_a_failing_mask_is_drawn_beside_the_expected_one(grade):
    result = graded(grade, "exercise4", SUBMISSIONS / "exercise4" / "wrong_inverted_causal.py")
    text = report.render_text(GradeReport([result], "cpu", 0))
    assert ("      queries × keys (█ may attend, · masked, N NaN):\n"
            "      expected   yours\n"
            "      █···       ·███\n"
            "      ██··       ··██\n"
            "      ███·       ···█\n"
            "      ████       ····\n") in text
    assert text.count("expected   yours") == 1  # one picture per function: the first failing test's
    assert misconceptions.BY_ID['mask-inverted'].message in " ".join(text.split("\n      "))
    test = json.loads(json_report.render(GradeReport([result], "cpu", 0)))["exercises"][0]["tests"]
    four = next(t for t in test if t["name"] == "test_causal_mask[cpu-L=4]")
    assert four["diagnosis"] == "mask-inverted"
    assert four["picture"] == {"kind": "mask", "slice": [], "rows": "queries", "columns": "keys", "shape": [4, 4],
                               "expected": [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]],
                               "got": [[0, 1, 1, 1], [0, 0, 1, 1], [0, 0, 0, 1], [0, 0, 0, 0]]}


def test_attention_weights_are_shaded_and_nan_is_marked(grade):
    result = graded(grade, "exercise5", SUBMISSIONS / "exercise5" / "wrong_nan_on_masked_rows.py")
    test = next(t for t in result.tests if t.name == "test_fully_masked_rows[cpu-query-3]")
    picture = test.details["picture"]
    assert picture["kind"] == "weights" and picture["slice"] == [0, 0] and picture["got"][3] == ["nan"] * 5
    lines = report.picture_lines(picture)
    assert lines[0] == "queries × keys [0, 0] (█▓▒░ weight 1 to 0, · zero, N NaN):"
    assert lines[2] == "█····      █····" and lines[5] == "·····      NNNNN"
    json.dumps(result.to_dict(), allow_nan=False)  # plain JSON, no NaN literal


def test_a_large_matrix_is_cropped_and_says_so():
    got = torch.rand(40, 40)
    with pytest.raises(Mismatch) as caught:
        check_close(got, got.double() + 1, what="weights", picture="weights")
    picture = caught.value.details["picture"]
    assert len(picture["got"]) == 16 and len(picture["got"][0]) == 16 and picture["shape"] == [40, 40]
    assert report.picture_lines(picture)[-1] == "(the first 16 × 16 of 40 × 40)"


# -- failure messages in plain words ------------------------------------------------------------


def failure(check, *args, **kwargs):
    with pytest.raises(Mismatch) as caught:
        check(*args, **kwargs)
    return caught.value.message


@pytest.mark.parametrize("what, verb", [
    ("weights from scaled_dot_product_attention(q, k, v)", "are"), ("keys from cache.update(k, v)", "are"),
    ("the gradients of f(x)", "are"), ("split_heads(x, 3)", "is"), ("the gradient of f(x) w.r.t. x", "is"),
    ("output from f(x)", "is"), ("bias from f(x)", "is"), ("softmax of scores like ±1e4", "is")])
def test_a_message_agrees_with_its_subject(what, verb):
    """Plural item labels take plural verbs: "weights from f(q, k, v) are wrong", "... have shape"."""
    wrong = failure(check_close, torch.ones(2, 2), torch.zeros(2, 2, dtype=torch.float64), what=what)
    assert wrong.startswith(f"{what} {verb} wrong at [0, 0]"), wrong
    shape = failure(check_tensor, torch.zeros(2), what=what, shape=(3,))
    assert shape.startswith(f"{what} {'have' if verb == 'are' else 'has'} shape (2,)"), shape


def test_shape_messages_name_the_axis():
    assert failure(check_tensor, torch.zeros(2, 7, 5), what="scores", shape=(2, 5, 7)) == (
        "scores have shape (2, 7, 5), expected (2, 5, 7) (axis -2 is 7 not 5, axis -1 is 5 not 7): the right sizes "
        "in the wrong order, is a transpose missing or on the wrong axes?")
    assert failure(check_tensor, torch.zeros(3, 5), what="the mask", shape=(3, 1, 5)) == (
        "the mask has shape (3, 5) (2 dims), expected (3, 1, 5) (3 dims): axis 1 of size 1 is missing (which "
        "step of yours drops it, or never makes it?)")
    assert failure(check_tensor, torch.zeros(3, 5, 1), what="y", shape=(3, 5)).endswith(
        ": there is an extra axis 2 of size 1 (which step of yours adds it?)")


def test_a_wrong_value_gives_its_position_both_values_and_the_tolerance():
    got = torch.zeros(2, 3)
    got[1, 2] = 0.5
    assert failure(check_close, got, torch.zeros(2, 3, dtype=torch.float64), what="y") == (
        "y is wrong at [1, 2]: got 0.5, expected 0; 1 of 6 values are off (tolerance 1e-05 + 0.0001·|expected|)")


def test_nan_and_inf_say_where_and_why():
    want = torch.full((2, 4, 3), 1 / 3, dtype=torch.float64)
    want[1, 3] = 0.0  # every key of query 3 masked: zero weights
    got = want.float().clone()
    got[1, 3] = float("nan")
    assert failure(check_close, got, want, what="weights") == (
        "weights have NaN in 1 row (a row is the last axis), first in row [1, 3], all of it: is every key masked "
        "there? A row of only -inf must give zeros, not 0/0 = NaN (shift by 0 where the max is -inf, divide by "
        "1 where the sum is 0)")
    got = want.float().clone()
    got[0, 1, 2] = float("nan")
    assert "first in row [0, 1] at column 2: NaN comes from 0/0, inf/inf, inf - inf or 0 × inf: did e^x overflow" \
        in failure(check_close, got, want, what="weights")
    got = want.float().clone()
    got[0, 0, 0] = float("inf")
    assert failure(check_close, got, want, what="y") == (
        "y has inf at 1 position where a number is expected, first at [0, 0, 0]: did a value overflow "
        "(e^x is inf above about 88 in float32)?")
    got[0, 0, 0] = float("-inf")
    assert failure(check_close, got, want, what="y").endswith(
        ": is something masked that may be seen (a mask the wrong way round)?")


def test_dtype_and_device_changes_are_named():
    assert failure(check_tensor, torch.zeros(2, dtype=torch.float64), what="y", dtype=torch.float32) == \
        "y is float64, expected float32 like its input: don't change the dtype"
    assert failure(check_tensor, torch.zeros(2), what="mask", dtype=torch.bool).startswith(
        "mask is float32, expected bool: a mask says yes or no")
    assert failure(check_tensor, torch.zeros(2), what="y", device="cuda") == \
        "y is on cpu, expected cuda like its input: create new tensors with device=x.device"


_SCALE_SCORES = """
    import math
    import torch


    def scale_scores(scores, d_k):
        return {body}


    def scaled_scores(q, k):
        return scale_scores(q @ k.transpose(-2, -1), q.shape[-1])
"""


@pytest.mark.parametrize("body, says", [
    ("scores.double() / math.sqrt(d_k)", "it becomes float64 at line 7, in scale_scores (`return scores.double() / "
     "math.sqrt(d_k)`), a cast from float32: leave tensors in their inputs' dtype"),
    ("torch.tensor(scores.tolist()) / math.sqrt(d_k)", "line 7, in scale_scores (`return torch.tensor(scores.tolist()) "
     "/ math.sqrt(d_k)`) makes a float32 tensor whatever the inputs' dtype: make it with dtype=x.dtype"),
], ids=["cast", "made"])
def test_a_changed_dtype_is_told_the_line_where_it_changed(grade, body, says):
    result = grade(3, source=_SCALE_SCORES.format(body=body))
    [diagnosis] = [d for d in result.diagnoses if d["id"] == "dtype-changed"]
    assert says in " ".join(diagnosis["message"].split()), diagnosis["message"]


def test_a_trails_note_the_student_process_forged_is_cleaned_or_dropped():
    fields = ("where", "kind", "dtype", "from")
    note = {"where": "line 1, in f (`x = x.float()  # √d_k`)", "kind": "cast", "dtype": "float32", "from": "float64"}
    assert trails.sanitized(note, fields) == note
    assert "\x1b" not in trails.sanitized({**note, "where": "line 1\x1b[2J"}, fields)["where"]
    assert len(trails.sanitized({**note, "where": "x" * 10_000}, fields)["where"]) == trails.MAX_TEXT
    for forged in ({**note, "extra": ""}, [note], {**note, "where": None}, {**note, "dtype": 3}):
        assert trails.sanitized(forged, fields) is None, forged


_CLAMPED_SOFTMAX = """
    import torch


    def softmax(x, dim=-1):
        m = x.amax(dim=dim, keepdim=True).detach()
        e = torch.exp(x - torch.where(torch.isinf(m), torch.zeros_like(m), m))
        return e / e.sum(dim=dim, keepdim=True).clamp_min(torch.finfo(x.dtype).tiny)


    def scaled_dot_product_attention(q, k, v, mask=None):
        scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = softmax(scores)
        return weights @ v, weights
"""


def test_a_nan_gradient_is_told_the_line_whose_backward_pass_made_it(grade):
    """A sum clamped at finfo.tiny: the forward pass is right, the backward pass divides by tiny."""
    result = grade(5, source=_CLAMPED_SOFTMAX)
    [diagnosis] = [d for d in result.diagnoses if d["id"] == "nan-gradient-on-masked-row"]
    text = " ".join(diagnosis["message"].split())
    assert "first makes an inf or a NaN at line 8, in softmax (`return e / e.sum(dim=dim, keepdim=True)" in text
    assert "a division's gradient divides by the divisor" in text and "torch.logsumexp" not in text


def test_an_input_changed_in_place_is_named_with_what_changed():
    before = torch.zeros(2, 3)
    after = before.clone()
    after[0, 1] = float("-inf")
    assert failure(check_unchanged, before, after, what="scores") == (
        "your code modified its input `scores` in place (1 of 6 entries changed, the first at [0, 1]: 0 became "
        "-inf): build a new tensor instead (masked_fill, not masked_fill_; x = x / s, not x /= s or x[...] = ...)")


def test_an_input_reshaped_in_place_is_told_the_view_methods():
    """unsqueeze_ or transpose_ change an input's shape, not its values: the remedy names those."""
    before = torch.zeros(4, 6)
    message = failure(check_unchanged, before, before.clone().unsqueeze_(0), what="x", call="project(...)")
    assert message.startswith("project(...) modified its input `x` in place (it is now ")
    assert message.endswith("build a new tensor instead (x.unsqueeze(0), not x.unsqueeze_(0); "
                            "k.transpose(-2, -1), not k.transpose_(-2, -1))")


def test_long_tensors_are_summarised_never_dumped():
    assert summarise(torch.tensor([1.0, 2.0])) == "tensor([1.0, 2.0])"
    values = torch.arange(1000.0)
    values[3] = float("nan")
    assert summarise(values) == "a float32 tensor of shape (1000,) with values from 0 to 999, 1 of them NaN"
    assert summarise(2147483648) == "2147483648"



def test_a_line_the_student_process_rewrote_is_shown_as_the_file_holds_it(grade):
    """Round 13's a01: the child's linecache given a fake report with newlines for the cast's line; the
    located text reads that line from the student's file itself."""
    path = ROOT / "tests" / "attacks" / "round13" / "a01_trail_newline" / "exercise5_softmax.py"
    result = graded(grade, 5, path)
    [diagnosis] = [d for d in result.diagnoses if d["id"] == "dtype-changed"]
    assert "at line 53, in softmax (`return (e / total.masked_fill(total == 0, 1.0)).float()" in \
        " ".join(diagnosis["message"].split())
    assert "41/41" not in diagnosis["message"] and "\n" not in diagnosis["message"]


def test_a_mistake_made_in_one_of_two_functions_that_share_a_step_is_named(grade):
    """Round 79's m62: online_softmax rescaled by e^(m_new - m_old), its -inf max shifted by 0, and tiled_attention
    right: the catalogue's variants made the mistake in both, which tiled_attention's passed calls contradict; they
    are made in each function alone too (`Reference.online_exponentials`, `tiled_exponentials`)."""
    (path,) = (ROOT / "tests" / "unseen" / "round79" / "m62_online_rescale_inverted" / "sub").glob("*.py")
    assert [d["id"] for d in graded(grade, 10, path).diagnoses] == ["online-rescale-inverted"]
