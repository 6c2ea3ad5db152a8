"""`lumen-grade check`: is the kit sound? One table for the instructor, exit code 0 only if it is.

Each row is one claim, checked on every available device:
  * the reference (`lumen_ref`) agrees with the independent float64 oracle (`grader.oracle`) and
    with torch's own built-ins;
  * `solutions/` scores full marks, and the untouched stubs that `release` makes from it score
    zero, both graded by the very runner students use;
  * every misconception mutant (`grader.misconceptions`, when it exists) fails its exercise, and
    for every two misconceptions of an exercise some call of its tests tells them apart (sizes at
    which their mutants give different numbers), so that a diagnosis can name one.

The misconception seam: `grader.misconceptions` must define `mutant_sources(solutions_dir)`, an
iterable of `(misconception_id, exercise, source)` where `exercise` is a catalogue exercise (or a
name `catalog.find` takes) and `source` the text of a whole student file making that mistake.
Without the module the row says "not available", which is neither a pass nor a failure.
"""

import importlib
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader import catalog, release, runner
from grader.sandbox.judge import Launcher

PASS, FAIL, NOT_AVAILABLE = "pass", "FAIL", "not available"
MISCONCEPTIONS = "grader.misconceptions"
TOLERANCE = {"rtol": 1e-9, "atol": 1e-12}  # float64 against float64: only rounding may differ


@dataclass
class Row:
    check: str
    device: str
    status: str  # PASS, FAIL or NOT_AVAILABLE
    detail: str = ""
    failures: list = field(default_factory=list)  # one line per thing that does not hold


def _row(check, device, problems, detail):
    return Row(check, device, FAIL if problems else PASS, detail, problems)


def run(solutions_dir, exercises=None, *, seed=0, time_limit=60.0, launcher=None):
    """Check the kit on every available device; returns the rows of the summary table."""
    own_launcher = launcher is None
    if own_launcher:
        launcher = Launcher()
        launcher.start()  # before any expected value exists in this process
    try:
        devices = runner.resolve_devices("auto")
        exercises = list(exercises or catalog.EXERCISES)
        options = runner.Options(submission=Path(solutions_dir), device="auto", seed=seed,
                                 time_limit=time_limit)
        solved = runner.grade(exercises, options, launcher=launcher)
        rows = [*reference_rows(devices),
                _solutions_row(exercises, options, solved),
                _stubs_row(exercises, options, launcher),
                _mutants_row(exercises, options, launcher),
                _separation_row(solved)]
    finally:
        if own_launcher:
            launcher.close()
    return rows


def passed(rows):
    """The verdict: nothing failed (a row "not available" is no failure, and no pass either)."""
    return any(row.status == PASS for row in rows) and not any(row.status == FAIL for row in rows)


# -- the reference ------------------------------------------------------------------------------


def reference_rows(devices):
    """The reference against the oracle and against torch's built-ins, on each device."""
    return [_reference_row(devices, _oracle_cases, "reference = float64 oracle"),
            _reference_row(devices, _builtin_cases, "reference = torch built-ins")]


def _reference_row(devices, cases, check):
    problems, count = [], 0
    for device in devices:
        for what, got, want in cases(device):
            count += 1
            difference = _difference(got, want)
            if difference:
                problems.append(f"{what} on {device}: {difference}")
    return _row(check, "+".join(devices), problems, f"{count // len(devices)} comparisons")


def _difference(got, want):
    """'' when lumen_ref's answer `got` matches the independent `want` in float64, else how not."""
    import numpy as np
    import torch

    if isinstance(want, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(want):
            return f"{len(want)} outputs expected"
        return next((difference for difference in map(_difference, got, want) if difference), "")
    got, want = (np.asarray(a.detach().cpu() if isinstance(a, torch.Tensor) else a) for a in (got, want))
    if got.shape != want.shape:
        return f"shape {got.shape}, expected {want.shape}"
    if got.dtype == bool or want.dtype == bool:
        return "" if np.array_equal(got, want) else f"{int((got != want).sum())} entries differ"
    if np.allclose(got, want, **TOLERANCE):
        return ""
    return f"off by up to {np.nanmax(np.abs(got - want)):.3g} (or NaN where a number is expected)"


class _Inputs:
    """Seeded float64 inputs on a device, drawn on the CPU so every device sees the same numbers."""

    def __init__(self, device, seed):
        import torch

        self.torch, self.device = torch, device
        self.generator = torch.Generator().manual_seed(seed)

    def randn(self, *shape, scale=1.0):
        t = self.torch
        return (t.randn(*shape, generator=self.generator, dtype=t.float64) * scale).to(self.device)

    def bools(self, *shape, p=0.6):
        return (self.torch.rand(*shape, generator=self.generator) < p).to(self.device)

    def module(self, cls, *args):
        """A lumen_ref module with seeded weights, in float64 on the device."""
        with self.torch.random.fork_rng(devices=[]):
            self.torch.manual_seed(int(self.torch.randint(1 << 30, (1,), generator=self.generator)))
            return cls(*args).to(self.device, self.torch.float64)


def _np(value):
    return value.detach().cpu().numpy()


def _oracle_cases(device):
    """(step, lumen_ref's answer, grader.oracle's answer) for every step of the chapter."""
    import torch

    import lumen_ref as ref
    from grader import oracle

    r = _Inputs(device, seed=6)
    x, w_qkv = r.randn(2, 5, 12), r.randn(12, 18)
    w_q, w_k, w_v = r.randn(12, 6), r.randn(12, 6), r.randn(12, 4)
    q, k, v = r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6), r.randn(2, 3, 7, 4)
    scores, mask = r.randn(2, 3, 5, 7, scale=8.0), r.bools(2, 1, 5, 7)
    mask[0, 0, 2] = False  # a query that may see no key: zeros, not NaN
    masked = ref.apply_mask(scores * 1e3, mask)  # huge scores and whole rows of -inf
    lengths = torch.tensor([3, 0, 7], device=device)
    heads = r.randn(2, 5, 12)
    mha, gqa = r.module(ref.MultiHeadAttention, 12, 3), r.module(ref.GroupedQueryAttention, 12, 4, 2)
    gqa_weights = [_np(p.weight) for p in (gqa.q_proj, gqa.k_proj, gqa.v_proj, gqa.o_proj)]
    cached = ref.CachedGroupedQueryAttention(12, 4, 2).to(device, torch.float64)
    cached.load_state_dict(gqa.state_dict())
    chunks = [3, 1, 4]
    cache = ref.KVCache(2, 2, 3, max_len=8, dtype=torch.float64, device=device)
    tokens = r.randn(2, sum(chunks), 12)
    with torch.no_grad():
        decoded = [cached(part, cache) for part in tokens.split(chunks, dim=1)]
        yield "project", ref.project(x, w_q, w_k, w_v), oracle.project(*map(_np, (x, w_q, w_k, w_v)))
        yield "fused_project", ref.fused_project(x, w_qkv), oracle.fused_project(_np(x), _np(w_qkv))
        yield "attention_scores", ref.attention_scores(q, k), oracle.attention_scores(_np(q), _np(k))
        yield "scale_scores", ref.scale_scores(scores, 6), oracle.scale_scores(_np(scores), 6)
        yield "scaled_scores", ref.scaled_scores(q, k), oracle.scaled_scores(_np(q), _np(k))
        yield "causal_mask", ref.causal_mask(7, device=device), oracle.causal_mask(7)
        yield "apply_mask", masked, oracle.apply_mask(_np(scores * 1e3), _np(mask))
        yield "padding_mask", ref.padding_mask(lengths, 7), oracle.padding_mask(lengths.tolist(), 7)
        for dim in (-1, 1):
            yield f"softmax(dim={dim})", ref.softmax(masked, dim=dim), oracle.softmax(_np(masked), axis=dim)
        yield ("scaled_dot_product_attention", ref.scaled_dot_product_attention(q, k, v, mask),
               oracle.scaled_dot_product_attention(_np(q), _np(k), _np(v), _np(mask)))
        yield "split_heads", ref.split_heads(heads, 3), oracle.split_heads(_np(heads), 3)
        yield "merge_heads", ref.merge_heads(q), oracle.merge_heads(_np(q))
        yield "repeat_kv", ref.repeat_kv(k, 2), oracle.repeat_kv(_np(k), 2)
        yield ("MultiHeadAttention", mha(x), oracle.multi_head_attention(
            _np(x), _np(mha.qkv.weight), _np(mha.qkv.bias), _np(mha.out.weight), _np(mha.out.bias), 3))
        yield "GroupedQueryAttention", gqa(x), oracle.grouped_query_attention(_np(x), *gqa_weights, 4, 2)
        yield ("KV cache, chunks 3+1+4", decoded,
               oracle.cached_attention_outputs(_np(tokens), *gqa_weights, 4, 2, chunks))
        yield ("kv_cache_bytes (Llama-2 7B, 4,096 tokens)", ref.kv_cache_bytes(32, 32, 128, 4096),
               oracle.kv_cache_bytes(32, 32, 128, 4096))


def _builtin_cases(device):
    """(what, lumen_ref's answer, torch's built-in answer) where torch has the same operation."""
    import torch
    import torch.nn.functional as F

    import lumen_ref as ref

    r = _Inputs(device, seed=7)
    x, scores = r.randn(2, 5, 12), r.randn(2, 3, 5, 7, scale=8.0)
    q, k, v = r.randn(2, 3, 5, 6), r.randn(2, 3, 7, 6), r.randn(2, 3, 7, 4)
    mask = r.bools(2, 1, 5, 7)
    mask[..., 0] = True  # every query sees a key: torch's answer for an empty row is NaN
    causal = ref.causal_mask(5, device=device)
    mha, gqa = r.module(ref.MultiHeadAttention, 12, 3), r.module(ref.GroupedQueryAttention, 12, 4, 2)
    theirs = torch.nn.MultiheadAttention(12, 3, batch_first=True).to(device, torch.float64)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(mha.qkv.weight)  # both stack W_Q, W_K, W_V as rows
        theirs.in_proj_bias.copy_(mha.qkv.bias)
        theirs.out_proj.weight.copy_(mha.out.weight)
        theirs.out_proj.bias.copy_(mha.out.bias)
        gq, gk, gv = (p(x).view(2, 5, -1, 3).transpose(1, 2) for p in (gqa.q_proj, gqa.k_proj, gqa.v_proj))
        kv_head = torch.arange(4, device=device) // 2  # query head h reads KV head h // 2
        gqa_heads = F.scaled_dot_product_attention(gq, gk[:, kv_head], gv[:, kv_head], is_causal=True)
        yield "softmax", ref.softmax(scores, dim=-1), torch.softmax(scores, dim=-1)
        yield "softmax(dim=1)", ref.softmax(scores, dim=1), torch.softmax(scores, dim=1)
        yield ("scaled_dot_product_attention", ref.scaled_dot_product_attention(q, k, v, mask)[0],
               F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
        yield ("causal attention", ref.scaled_dot_product_attention(q, q, v[..., :5, :], causal)[0],
               F.scaled_dot_product_attention(q, q, v[..., :5, :], is_causal=True))
        yield ("MultiHeadAttention", mha(x),
               theirs(x, x, x, attn_mask=~causal, need_weights=False)[0])  # theirs: True = may NOT attend
        yield "GroupedQueryAttention", gqa(x), gqa.o_proj(gqa_heads.transpose(1, 2).reshape(2, 5, 12))


# -- grading through the students' runner -------------------------------------------------------


def _first_problem(result):
    if result.error:  # the file could not be graded at all: its tests did not run
        return result.error
    test = next((t for t in result.tests if t.status not in ("passed", "skipped")), None)
    return f"{test.name}: {test.message}" if test else ""


def _solutions_row(exercises, options, verdict):
    problems = []
    for result in verdict.exercises:
        if result.max_score == 0:
            problems.append(f"{result.id}: no test ran (does grader/suites have a suite for it?)")
        elif not result.passed or result.score != result.max_score:
            problems.append(f"{result.id}: {result.score:g}/{result.max_score:g}; {_first_problem(result)}")
    passing = sum(result.passed for result in verdict.exercises)
    detail = f"{passing} of {len(exercises)} exercises, {verdict.score:g} points"
    return _row(f"{options.submission.name}/ scores full marks", verdict.device, problems, detail)


def _stubs_row(exercises, options, launcher):
    check = "untouched stubs score zero"
    try:
        stubs = release.build_stubs(options.submission, exercises)
    except release.ReleaseError as error:
        return Row(check, "-", FAIL, "the stubs cannot be made", [str(error)])
    with tempfile.TemporaryDirectory(prefix="lumen-stubs-") as folder:
        for exercise, stub in stubs.items():
            (Path(folder) / exercise.file_name).write_text(stub, encoding="utf-8")
        verdict = runner.grade(exercises, _with(options, submission=Path(folder)), launcher=launcher)
    problems = []
    for result in verdict.exercises:
        if result.max_score == 0:
            problems.append(f"{result.id}: no test ran, so nothing shows the stub fails")
        elif result.score:
            passing = [t.name for t in result.tests if t.status == "passed"]
            problems.append(f"{result.id}: {result.score:g}/{result.max_score:g} untouched; passed "
                            + ", ".join(passing[:3]) + (" ..." if len(passing) > 3 else ""))
    return _row(check, verdict.device, problems,
                f"{len(exercises)} exercises, stubs made as release makes them")


def _with(options, **changes):
    return runner.Options(**{**vars(options), **changes})


def _catalogue(check):
    """(grader.misconceptions, None), or (None, the row saying it is not there yet)."""
    try:
        return importlib.import_module(MISCONCEPTIONS), None
    except ModuleNotFoundError as error:
        if error.name != MISCONCEPTIONS:
            raise
        return None, Row(check, "-", NOT_AVAILABLE, "grader/misconceptions.py is not there yet")


def _mutants_row(exercises, options, launcher):
    """Every mutant of grader.misconceptions fails its exercise: the seam described at the top."""
    check = "misconception mutants are caught"
    misconceptions, missing = _catalogue(check)
    if missing:
        return missing
    if not hasattr(misconceptions, "mutant_sources"):
        return Row(check, "-", FAIL, "the seam is missing",
                   [f"{MISCONCEPTIONS} defines no mutant_sources(solutions_dir): see grader/check.py"])
    selected = {exercise.id for exercise in exercises}
    mutants = []
    for mutant_id, exercise, source in misconceptions.mutant_sources(options.submission):
        exercise = exercise if isinstance(exercise, catalog.Exercise) else catalog.find(str(exercise))
        if exercise.id in selected:
            mutants.append((mutant_id, exercise, source))
    if not mutants:
        return Row(check, "-", NOT_AVAILABLE, "no mutants for these exercises")
    problems, device = [], options.device
    for batch in _rounds(mutants):  # one mutant per exercise per grading run
        with tempfile.TemporaryDirectory(prefix="lumen-mutants-") as folder:
            for _, exercise, source in batch:
                (Path(folder) / exercise.file_name).write_text(source, encoding="utf-8")
            verdict = runner.grade([e for _, e, _ in batch], _with(options, submission=Path(folder)),
                                   launcher=launcher)
        device = verdict.device
        for (mutant_id, exercise, _), result in zip(batch, verdict.exercises):
            if result.passed:
                problems.append(f"{mutant_id} ({exercise.id}): passed every test, "
                                f"{result.score:g}/{result.max_score:g}")
    ids = {mutant_id for mutant_id, _, _ in mutants}
    return _row(check, device, problems, f"{len(mutants) - len(problems)} of {len(mutants)} mutants "
                                         f"({len(ids)} misconceptions) fail their exercise")


def _separation_row(verdict):
    """For every pair of misconceptions of an exercise, some call of its suites tells them apart: the
    calls the suites make on the solutions, replayed on every mutant of the two."""
    check = "misconceptions are told apart"
    misconceptions, missing = _catalogue(check)
    if missing:
        return missing
    if not hasattr(misconceptions, "for_exercise"):
        return Row(check, "-", NOT_AVAILABLE, "grader/misconceptions.py has no for_exercise(number)")
    from grader import diagnose

    problems, pairs = [], 0
    for result in verdict.exercises:
        number = catalog.find(result.id).number
        for a, b in diagnose.unseparated(number, result.calls):
            problems.append(f"{result.id}: no call of its tests tells {a} from {b}")
        ids = [m.id for m in misconceptions.for_exercise(number)]
        pairs += len(ids) * (len(ids) - 1) // 2
    return _row(check, verdict.device, problems, f"{pairs - len(problems)} of {pairs} pairs")


def _rounds(mutants):
    """Mutants grouped so that no group has two for the same exercise."""
    rounds = []
    for mutant in mutants:
        free = next((r for r in rounds if all(m[1] != mutant[1] for m in r)), None)
        if free is None:
            rounds.append([mutant])
        else:
            free.append(mutant)
    return rounds


# -- the table ----------------------------------------------------------------------------------

MARKS = {PASS: "✓ pass", FAIL: "✗ FAIL", NOT_AVAILABLE: "- not available"}


def render(rows, seconds=None):
    """The summary table, a line per check (and one per failure under it), then the verdict."""
    headers = ("check", "device", "result", "detail")
    table = [(row.check, row.device, MARKS[row.status], row.detail) for row in rows]
    widths = [max(len(line[i]) for line in [headers, *table]) for i in range(3)]
    lines = []
    for row, line in zip([None, *rows], [headers, *table]):
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(line, widths)) + "  " + line[3])
        lines.extend(f"    {failure}" for failure in (row.failures if row else []))
    counts = {status: sum(row.status == status for row in rows) for status in MARKS}
    verdict = "all holds" if passed(rows) else "NOT all holds"
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    lines += ["", f"{verdict}: {counts[PASS]} passed, {counts[FAIL]} failed, "
                  f"{counts[NOT_AVAILABLE]} not available{took}"]
    return "\n".join(lines) + "\n"
