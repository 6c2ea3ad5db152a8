"""Exercise 9 — What heads learn: `repeated_tokens`, `previous_token_score`, `induction_score`,
`find_heads`.

The scores are graded on synthetic patterns (each head planted with a job, then mixed with random
attention so no two sequences of the batch are alike) and on the patterns of lumen_ref's
two-layer attention-only transformer, whose weights are set by hand: a previous-token head at
(layer 0, head 1), an induction head at (1, 2). Expected values come from the NumPy float64
oracle. Every planted score is at least 0.15 away from the thresholds used, so `>` and `>=`
give the same heads, but for the threshold test's heads scoring exactly 0.5 against a threshold
of 0.5 (a float holds 0.5 exactly): the stub says a head counts when its score is strictly above.
"""

import itertools

import pytest
import torch

import lumen_ref as ref
from grader import oracle
from grader.catalog.exercise9_head_patterns.misconceptions import (AT_THE_THRESHOLD, HEADS_NOT_INTS, SHAPES_NOT_REFUSED,
                                                                 TOKEN_DTYPE, TOKEN_RULES)
from grader.grading.compare import Mismatch, check_unchanged, describe, picture_cells, shape_text
from grader.sandbox.judge import StudentError, printable
from grader.grading.testkit import (KEPT_FROM_A_CALL, UNFORESEEN, Raised, as64, bounded, check_call, check_device_kept,
                                    check_inputs_kept, dims, failing_call, passed)

KINDS = ("previous_token", "induction")

# B: sequences; n_layers patterns of n_heads heads, on seq_len tokens repeated twice (L = 2 * seq_len).
# tests/catalog/test_sizes.py holds every case to the rule.
UNIFORM_CHI_SQUARE = 30.0  # 3 degrees of freedom (tokens_uniform's 4 ids): a fair draw fails it once in a million
# 15 and 63 degrees of freedom (the 16 pairs, 64 triples of ids at two, three places of a row): over its 120 pairs
# and 560 triples of places, a fair draw fails once in two million, and once in eight million
UNIFORM_PAIRS_CHI_SQUARE, UNIFORM_TRIPLES_CHI_SQUARE = 70.0, 160.0

SIZES = {
    "tokens": dict(B=3, seq_len=5, vocab_size=11),
    "tokens_vocab": dict(B=64, seq_len=6, vocab_size=4),
    "tokens_uniform": dict(B=1024, seq_len=16, vocab_size=4),  # draws enough that a skewed id shows, not chance
    "previous": dict(B=2, n_heads=5, seq_len=6, L=12),
    "induction": dict(B=3, n_heads=4, seq_len=7, L=14),
    "find": dict(B=2, n_layers=3, n_heads=4, seq_len=5, L=10),
    "threshold": dict(B=5, n_layers=2, n_heads=3, seq_len=4, L=8),
    "model": dict(B=4, n_layers=2, n_heads=3, seq_len=7, L=14, vocab_size=40),
    "inputs": dict(B=2, n_heads=3, seq_len=4, L=8),
    "half": dict(B=2, n_heads=5, seq_len=6, L=12),
}

# the heads each synthetic case plants, by name (see `target`)
PLANTED = {
    "previous": ("previous", "self", "uniform", "two-back", "induction"),
    "induction": ("uniform", "induction", "previous", "sink"),
    "find": (("uniform", "previous", "sink", "self"),
             ("two-back", "both", "induction", "previous"),  # a head in both lists (round 61's a41: `elif`)
             ("induction", "sink", "self", "uniform")),
}
NOISE = 0.25  # the share of random attention mixed into every planted head
SHARES = (0.5, 0.25, 0.875)  # the scores of heads `mixed` exactly (find_heads's threshold and shortest sequences)
# what find_heads's tests and the shape checks wait on: find_heads's layouts are the suite's own, the same at
# every seed, so a table of the answers a report showed scored without a score computed, and a function that
# raises ValueError whatever it is given refuses every bad shape (round 57's a02)
SCORES = ("test_previous_token_score_planted", "test_induction_score_planted")


def target(kind, L, seq_len):
    """(L, L) float64 weights of one planted head: rows sum to 1, nothing above the diagonal."""
    rows = torch.arange(L)
    uniform = torch.ones(L, L, dtype=torch.float64).tril()
    uniform = uniform / uniform.sum(-1, keepdim=True)
    keys = {"previous": (rows - 1).clamp(min=0), "self": rows, "two-back": (rows - 2).clamp(min=0),
            "sink": torch.zeros_like(rows)}
    if kind == "uniform":
        return uniform
    if kind == "both":  # a previous-token head whose second half gives 0.6 to the induction key: both scores
        both = target("previous", L, seq_len)  # pass 0.4 (2/3 and 0.6; at least 0.5 and 0.45 with NOISE)
        both[seq_len:] = 0.4 * both[seq_len:] + 0.6 * target("induction", L, seq_len)[seq_len:]
        return both
    weights = torch.zeros(L, L, dtype=torch.float64)
    if kind == "induction":  # the first half has no earlier copy: it spreads its weight evenly
        weights[:seq_len] = uniform[:seq_len]
        weights[rows[seq_len:], rows[seq_len:] - seq_len + 1] = 1.0
        return weights
    weights[rows, keys[kind]] = 1.0
    return weights


def planted(rng, B, kinds, seq_len, dtype=torch.float32, device="cpu"):
    """Patterns (B, H, L, L) with head h planted as kinds[h], each sequence mixed with NOISE of its own
    random causal attention; in `dtype` on `device`."""
    L = 2 * seq_len
    heads = torch.stack([target(kind, L, seq_len) for kind in kinds])  # (H, L, L)
    scores = torch.randn(B, len(kinds), L, L, generator=rng, dtype=torch.float64) * 2.0
    noise = ref.softmax(scores.masked_fill(~ref.causal_mask(L), float("-inf")), dim=-1)  # (B, H, L, L)
    return ((1 - NOISE) * heads + NOISE * noise).to(device=device, dtype=dtype)


def mixed(shares, other, L, seq_len):
    """(H, L, L): head h is shares[h] of a previous-token head (or an induction head: `other`) and the
    rest on the query itself, so its score is exactly shares[h]."""
    itself = target("self", L, seq_len)
    return torch.stack([share * target(other, L, seq_len) + (1 - share) * itself for share in shares])


def model_patterns(rng, dtype=torch.float32, device="cpu"):
    """lumen_ref's hand-set two-layer model on repeated random tokens: (tokens, [(B, H, L, L)] per layer)."""
    B, seq_len, vocab = dims(SIZES["model"], "B", "seq_len", "vocab_size")
    model = ref.induction_model(vocab, 2 * seq_len)
    tokens = ref.repeated_tokens(B, seq_len, vocab, generator=rng)
    with torch.no_grad():
        _, patterns = model(tokens)
    return tokens, [pattern.to(device=device, dtype=dtype) for pattern in patterns]


# -- pictures of heads ------------------------------------------------------------------------------


def cells(kind, L):
    """(L, L) bool: the cells a score of this kind averages."""
    seq_len, rows = L // 2, torch.arange(L)
    keep = torch.zeros(L, L, dtype=torch.bool)
    if kind == "previous_token":
        keep[rows[1:], rows[1:] - 1] = True
    else:
        keep[rows[seq_len:], rows[seq_len:] - seq_len + 1] = True
    return keep


def head_picture(pattern, head, kind, title):
    """A head's pattern in batch 0 beside the cells its `kind` score averages (their weights there)."""
    weights = as64(pattern)[0, head]  # (L, L)
    counted = weights.where(cells(kind, weights.size(-1)), torch.zeros(()))
    name = "key i-1 from query i" if kind == "previous_token" else "key i-seq_len+1, second half"
    return {"kind": "weights", "slice": [0, head], "rows": "queries", "columns": "keys",
            "shape": list(weights.shape), "titles": [title, name], "expected": picture_cells(weights, "weights"),
            "got": picture_cells(counted, "weights")}


def worst_head(got, expected):
    """The head whose score is furthest off (0 when the shapes differ)."""
    if isinstance(got, torch.Tensor) and got.shape == expected.shape:
        return int((as64(got) - expected).abs().nan_to_num(float("inf")).argmax())
    return 0


def check_score(student, name, pattern, *args, what):
    """The student's `name(pattern, *args)` against the oracle's float64 scores (H,); a failure draws the
    head furthest off beside the cells its score averages."""
    oracle_fn = getattr(oracle, name)
    kind = "previous_token" if name == "previous_token_score" else "induction"
    try:
        return check_call(student, name, pattern, *args, what=what, like=pattern,
                          ref=lambda *inputs: torch.from_numpy(oracle_fn(*inputs)))
    except Mismatch as mismatch:
        expected = torch.from_numpy(oracle_fn(as64(pattern), *args))
        head = worst_head(mismatch.details.get("call", {}).get("got"), expected)  # no call: a value refused on the wire
        mismatch.details.setdefault("picture", head_picture(pattern, head, kind, f"head {head}'s pattern"))
        raise


# -- repeated_tokens --------------------------------------------------------------------------------


def tokens_of(student, case, generator):
    """The student's repeated_tokens for a SIZES case, checked to be a LongTensor (B, 2 * seq_len); (the
    tokens, how the call reads, its record: a failed rule of the tokens carries it, for the example)."""
    B, seq_len, vocab = dims(SIZES[case], "B", "seq_len", "vocab_size")
    what = f"repeated_tokens({B}, {seq_len}, {vocab}, generator=...)"
    got = student.run("repeated_tokens", B, seq_len, vocab, generator=generator)["value"]
    call = {"target": "repeated_tokens", "args": (B, seq_len, vocab), "kwargs": {}, "got": got}
    with failing_call(call):
        if not isinstance(got, torch.Tensor):
            raise Mismatch(f"{what} returned {describe(got)}, expected a tensor of token ids", cause=TOKEN_RULES)
        if tuple(got.shape) != (B, 2 * seq_len):
            raise Mismatch(f"{what} has shape {shape_text(got.shape)}, expected {shape_text((B, 2 * seq_len))}: "
                           f"batch rows of seq_len tokens and then the same seq_len tokens again (2 * {seq_len})",
                           cause=TOKEN_RULES)
        if got.dtype != torch.int64:
            raise Mismatch(f"{what} is {str(got.dtype).removeprefix('torch.')}, expected int64 (torch.long): token "
                           "ids index an embedding (torch.randint gives int64)", cause=TOKEN_DTYPE)
    return got, what, call


@pytest.mark.points(2)
def test_repeated_tokens_repeat(student, rng):
    tokens, what, call = tokens_of(student, "tokens", rng)
    seq_len, vocab = dims(SIZES["tokens"], "seq_len", "vocab_size")
    with failing_call(call):
        if not torch.equal(tokens[:, :seq_len], tokens[:, seq_len:]):
            raise Mismatch(f"in {what} the second half is not the first again: row 0 is {tokens[0].tolist()}; draw "
                           "seq_len tokens once, then concatenate them with themselves (torch.cat along dim 1)",
                           cause=TOKEN_RULES)
        if int(tokens.min()) < 0 or int(tokens.max()) >= vocab:
            raise Mismatch(f"{what} holds tokens from {int(tokens.min())} to {int(tokens.max())}, expected ids in "
                           f"0 .. {vocab - 1} (0 .. vocab_size - 1)", cause=TOKEN_RULES)
        if (tokens == tokens[0, 0]).all():  # a constant repeats itself too (round 67's a02): random draws differ
            raise Mismatch(f"{what} is {int(tokens[0, 0])} everywhere: the first half must be random tokens, drawn "
                           "with torch.randint(vocab_size, ..., generator=generator)", cause=TOKEN_RULES)


def test_repeated_tokens_use_the_generator(student):
    seq_len = SIZES["tokens"]["seq_len"]
    first, what, call = tokens_of(student, "tokens", torch.Generator().manual_seed(1))
    again, *_ = tokens_of(student, "tokens", torch.Generator().manual_seed(1))
    other, *_ = tokens_of(student, "tokens", torch.Generator().manual_seed(2))
    if not torch.equal(first, again):
        raise Mismatch(f"{what} with two generators seeded alike gave different tokens: draw them with "
                       "generator=generator (torch.randint(..., generator=generator))", cause=TOKEN_RULES,
                       call={**call, "check": "seeded"})  # its example: smaller calls, generators seeded alike
    if torch.equal(first, other) or (first[:, :seq_len] == first[0, 0]).all():
        raise Mismatch(f"{what} gave the same tokens for generators seeded 1 and 2 ({first[0].tolist()}): the "
                       "tokens must be random, drawn with the generator", cause=TOKEN_RULES)
    moved = torch.Generator().manual_seed(1)
    torch.rand(1, generator=moved)  # the same seed, one draw further on
    later, *_ = tokens_of(student, "tokens", moved)
    if torch.equal(first, later):  # made from the seed, not drawn from the generator (round 69's a02)
        raise Mismatch(f"{what} gave the same tokens for a generator seeded 1 and for one seeded 1 that had already "
                       "drawn a number: the tokens must be drawn from the generator as it is now, "
                       "torch.randint(..., generator=generator), not made from its seed", cause=TOKEN_RULES)


def test_repeated_tokens_cover_the_vocabulary(student, rng):
    tokens, what, call = tokens_of(student, "tokens_vocab", rng)
    B, seq_len, vocab = dims(SIZES["tokens_vocab"], "B", "seq_len", "vocab_size")
    seen = sorted(set(tokens.flatten().tolist()))
    if seen != list(range(vocab)):
        raise Mismatch(f"{what} gave the tokens {seen} in {B * seq_len} draws, expected every id 0 .. {vocab - 1}: "
                       f"torch.randint(vocab_size, ...) draws from 0 to vocab_size - 1 (its high is exclusive)",
                       cause=TOKEN_RULES, call=call)
    torch_global = student.run("repeated_tokens", 2, 3, vocab)["value"]  # generator=None: torch's own
    if not isinstance(torch_global, torch.Tensor) or tuple(torch_global.shape) != (2, 6):
        raise Mismatch(f"repeated_tokens(2, 3, {vocab}) (no generator) returned {describe(torch_global)}, expected "
                       "(2, 6): with generator=None draw from torch's global generator", cause=TOKEN_RULES)
    # torch's global generator moves on with each draw: two calls alike give other tokens (round 26's a2)
    first, again = (student.run("repeated_tokens", 4, 16, 50)["value"] for _ in range(2))
    if isinstance(first, torch.Tensor) and isinstance(again, torch.Tensor) and torch.equal(first, again):
        raise Mismatch("repeated_tokens(4, 16, 50) (no generator) gave the same tokens twice: with generator=None "
                       "draw from torch's global generator, which moves on with every draw", cause=TOKEN_RULES)
    # a vocabulary drawn anew at each grading (UNFORESEEN), larger than the cases': ids from all of it (round 84's
    # a09 drew from min(vocab_size, 64), right at every vocabulary of the cases); 2048 draws fall short of its
    # last tenth, or of its first, about once in 10^93 gradings
    large = UNFORESEEN.randrange(1000, 50_000)
    drawn = student.run("repeated_tokens", 64, 32, large, generator=torch.Generator().manual_seed(3))["value"]
    if isinstance(drawn, torch.Tensor) and drawn.numel() and not drawn.dtype.is_floating_point and (
            int(drawn.min()) < 0 or int(drawn.max()) >= large or int(drawn.max()) < large * 0.9
            or int(drawn.min()) > large * 0.1):
        raise Mismatch(f"repeated_tokens(64, 32, {large}, generator=...) drew ids from {int(drawn.min())} to "
                       f"{int(drawn.max())}, where 2048 draws from the whole vocabulary reach near 0 and near "
                       f"{large - 1}: draw with torch.randint(vocab_size, ...) at every vocab_size", cause=TOKEN_RULES,
                       call={"target": "repeated_tokens", "args": (64, 32, large), "kwargs": {}, "got": drawn})
    # each id as likely as any other (round 26's a7 drew the last one twice as often)
    tokens, what, call = tokens_of(student, "tokens_uniform", torch.Generator().manual_seed(0))
    seq_len, vocab = dims(SIZES["tokens_uniform"], "seq_len", "vocab_size")
    if int(tokens.min()) < 0 or int(tokens.max()) >= vocab:  # before counting them: an id of 10^12 is no count
        raise Mismatch(f"{what} holds tokens from {int(tokens.min())} to {int(tokens.max())}, expected ids in 0 .. "
                       f"{vocab - 1}", cause=TOKEN_RULES, call=call)
    counts = torch.bincount(tokens[:, :seq_len].flatten(), minlength=vocab).double()
    spread, expected = _chi_square(counts)  # vocab - 1 degrees of freedom
    if spread > UNIFORM_CHI_SQUARE:
        raise Mismatch(f"{what} drew the ids {counts.long().tolist()} times in {int(counts.sum())} draws, where each "
                       f"is as likely as any other (about {expected:.0f} each): draw with torch.randint(vocab_size, "
                       "...), whose high is exclusive", cause=TOKEN_RULES, call=call)
    # and no pattern over the ids, which can have every id alike often (counting on, round 71's a01; a random
    # stride, round 75's a03; runs of three counted on, round 77's a01; sums of two draws, round 81's a01)
    _check_independent(tokens[:, :seq_len], vocab, what, call)


def _check_independent(first, vocab, what, call):
    """What comes at some places of a row tells nothing of another: each pair and each triple of places as likely
    to hold any ids as any others, and no two rows of `first` (B, seq_len) alike, where random draws make each
    new (round 77's a01 counted each run of three on from one draw a row: every run alike often, each fixing the
    next; round 81's a01 drew 11 tokens a row and made each of the 5 others the sum of two of them)."""
    B, seq_len = first.shape
    for size, bound in ((2, UNIFORM_PAIRS_CHI_SQUARE), (3, UNIFORM_TRIPLES_CHI_SQUARE)):
        for places in itertools.combinations(range(seq_len), size):
            cells = sum(first[:, place] * vocab ** (size - 1 - n) for n, place in enumerate(places))
            counts = torch.bincount(cells, minlength=vocab ** size).double()
            spread, expected = _chi_square(counts)
            if spread > bound:
                most = ", ".join(str(int(counts.argmax()) // vocab ** (size - 1 - n) % vocab) for n in range(size))
                *given, last = places
                kind = ("pairs", "triples")[size - 2]
                raise Mismatch(f"in {what} token {last} of a row follows from token{'s' * (size > 2)} "
                               f"{' and '.join(map(str, given))}: of the {vocab ** size} {kind} of ids they could "
                               f"hold, {int((counts > 0).sum())} came, ({most}) in "
                               f"{int(counts.max())} rows of {B}, where random draws make each about as likely as "
                               f"any other (about {expected:.0f} rows each): draw every token independently, "
                               "torch.randint(vocab_size, (batch, seq_len), generator=generator)", cause=TOKEN_RULES,
                               call=call)
    rows = len(set(map(tuple, first.tolist())))
    if rows < B - 1:  # of vocab^seq_len kinds, random rows repeat once in 8,000 gradings, twice almost never
        raise Mismatch(f"in {what} only {rows} of the {B} rows differ, where random draws of {seq_len} tokens "
                       f"from {vocab} ids ({vocab ** seq_len:,} possible rows) make each new: draw every token, "
                       "torch.randint(vocab_size, (batch, seq_len), generator=generator)", cause=TOKEN_RULES, call=call)


def _chi_square(counts):
    """(Pearson's chi-square of `counts` against all cells alike, the count each cell expects)."""
    expected = counts.sum() / counts.numel()
    return float(((counts - expected) ** 2 / expected).sum()), float(expected)


# -- previous_token_score and induction_score ---------------------------------------------------------


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_previous_token_score_planted(student, rng, device, dtype):
    B, seq_len = dims(SIZES["previous"], "B", "seq_len")
    pattern = planted(rng, B, PLANTED["previous"], seq_len, dtype, device)
    check_score(student, "previous_token_score", pattern,
                what="previous_token_score(pattern) on heads planted as " + ", ".join(PLANTED["previous"]))
    for part, which in _one_of_each(rng, pattern, PLANTED["previous"]):  # round 26's a1 squeezed them
        check_score(student, "previous_token_score", part, what=f"previous_token_score(pattern) of {which}")


@pytest.mark.points(2)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_induction_score_planted(student, rng, device, dtype):
    B, seq_len = dims(SIZES["induction"], "B", "seq_len")
    pattern = planted(rng, B, PLANTED["induction"], seq_len, dtype, device)
    check_score(student, "induction_score", pattern, seq_len,
                what=f"induction_score(pattern, {seq_len}) on heads planted as " + ", ".join(PLANTED["induction"]))
    for part, which in _one_of_each(rng, pattern, PLANTED["induction"]):
        part_len = part.size(-1) // 2
        check_score(student, "induction_score", part, part_len, what=f"induction_score(pattern, {part_len}) of {which}")


def _one_of_each(rng, pattern, kinds):
    """(pattern, what it is) of a float64 (B, H, L, L) pattern planted as `kinds`: one sequence, one head, and
    the shortest sequence the docstrings allow, seq_len = 1 (round 73's a01 refused L = 2 at full marks); none
    of a pattern in another dtype."""
    if pattern.dtype != torch.float64:
        return []
    shortest = planted(rng, pattern.size(0), kinds, 1, pattern.dtype, pattern.device)
    return [(pattern[:1], "one sequence, (1, H, L, L)"), (pattern[:, 1:2], "one head, (B, 1, L, L)"),
            (shortest, f"the shortest sequences, seq_len = 1, {shape_text(shortest.shape)}")]


@pytest.mark.points(2)
def test_scores_of_the_hand_set_model(student, rng):
    _, patterns = model_patterns(rng)
    seq_len = SIZES["model"]["seq_len"]
    for layer, pattern in enumerate(patterns):
        model = f"layer {layer} of the two-layer model (previous-token head (0, 1), induction head (1, 2))"
        check_score(student, "previous_token_score", pattern, what=f"previous_token_score of {model}")
        check_score(student, "induction_score", pattern, seq_len, what=f"induction_score(pattern, {seq_len}) of {model}")


@pytest.mark.needs_values("test_previous_token_score_planted", "test_induction_score_planted")
def test_scores_leave_the_pattern_unchanged(student, rng):
    B, seq_len = dims(SIZES["inputs"], "B", "seq_len")
    pattern = planted(rng, B, ("previous", "induction", "uniform"), seq_len)
    check_inputs_kept(student, "previous_token_score", pattern, names=["pattern"])
    check_inputs_kept(student, "induction_score", pattern, seq_len, names=["pattern"])
    # find_heads' layers too, one with a query that sees no key (a row of zeros: round 26's a10 divided by its sum)
    empty = pattern.clone()
    empty[0, :, -1] = 0.0
    patterns = [pattern, empty]
    reply = student.run("find_heads", patterns, return_args=True)
    (after,) = reply["args"]
    for layer, (before, kept) in enumerate(zip(patterns, after if isinstance(after, list) else [after] * 2)):
        check_unchanged(before, kept, what=f"patterns[{layer}]", call="find_heads(patterns)")


@pytest.mark.hidden
def test_scores_half_precision(student, rng, device):
    B, seq_len = dims(SIZES["half"], "B", "seq_len")
    for dtype in (torch.float16, torch.bfloat16):
        pattern = planted(rng, B, PLANTED["previous"], seq_len, dtype, device)
        check_score(student, "previous_token_score", pattern, what=f"previous_token_score in {dtype}")
        check_score(student, "induction_score", pattern, seq_len, what=f"induction_score in {dtype}")


BAD_SHAPES = {  # case: the function, and each (shape, its other arguments, why it is refused) it must refuse
    "3-d": ("previous_token_score", [((2, 6, 6), (), "a pattern without its batch axis, (H, L, L)")]),
    "not-square": ("previous_token_score", [((2, 3, 6, 5), (), "6 queries but 5 keys")]),
    "one-position": ("previous_token_score", [((2, 3, 1, 1), (), "L = 1: no query has a previous token")]),
    "not-twice-seq-len": ("induction_score", [((2, 3, 10, 10), (4,), "L = 10 with seq_len = 4"),
                                              ((2, 3, 9, 9), (4,), "L = 9 with seq_len = 4: one more than twice")]),
    "odd-length": ("find_heads", [((2, 3, 9, 9), (), "a layer of 9 positions, which is not a sequence repeated twice")]),
}


@pytest.mark.needs_values(*SCORES)
@pytest.mark.parametrize("case", list(BAD_SHAPES))
def test_bad_shapes_raise_value_error(student, rng, case):
    name, tries = BAD_SHAPES[case]
    for shape, args, why in tries:
        _expect_value_error(student, name, torch.rand(*shape, generator=rng), args, why)


def _expect_value_error(student, name, pattern, args, why):
    """The student's `name` refuses this pattern (and args) with a ValueError."""
    call = f"{name}({'[pattern]' if name == 'find_heads' else 'pattern'}{''.join(f', {a}' for a in args)})"
    what = f"{call} with pattern of shape {shape_text(tuple(pattern.shape))} ({why})"
    record = {"target": name, "args": ([pattern] if name == "find_heads" else pattern, *args), "kwargs": {},
              "refuses": "ValueError"}  # the smallest example: a call the reference refuses and theirs does not
    try:
        got = student.run(name, *record["args"])["value"]
    except StudentError as error:
        if type(error) is not StudentError or error.type == "NotImplementedError":
            raise  # a forbidden call, the memory limit, a stub: the plugin reports those itself
        if not error.is_a("ValueError"):
            raise Mismatch(f"{what} raised {error.type}, expected ValueError: check the shapes first and raise "
                           "ValueError saying what is wrong", cause=SHAPES_NOT_REFUSED,
                           call={**record, "got": Raised.of(error)}) from None
        return
    raise Mismatch(f"{what} returned {describe(got)}, expected ValueError, as the docstring says: check the "
                   "shapes first and raise ValueError saying what is wrong", cause=SHAPES_NOT_REFUSED,
                   call={**record, "got": bounded(got)})


# -- find_heads ------------------------------------------------------------------------------------


def check_heads(student, patterns, *, what, **kwargs):
    """The student's find_heads(patterns, **kwargs) against the oracle's (`_check_heads`), then on the same
    heads, their layers and heads in an order drawn anew at each grading (UNFORESEEN) and the weight no score
    reads spread anew (`_moved`): the answer follows the heads, where a table of the answers the suite's
    messages print does not (round 77's a03), nor one that finds each head again in the call before
    (round 81's a02, by torch.equal)."""
    _check_heads(student, patterns, what=what, **kwargs)
    generator = torch.Generator().manual_seed(UNFORESEEN.getrandbits(62))
    layers = UNFORESEEN.sample(patterns, len(patterns))
    reordered = [_moved(pattern, generator)[:, UNFORESEEN.sample(range(pattern.size(1)), pattern.size(1))]
                 for pattern in layers]
    _check_heads(student, reordered, what=f"{what}, its layers and heads in an order drawn anew at each grading",
                 **kwargs)


def _moved(pattern, generator):
    """The pattern (B, H, L, L) with each row's weight outside the cells a score reads spread anew, at random, over
    those cells (its total kept): the scores are the same to the bit, the values no earlier call's."""
    L = pattern.size(-1)
    seq_len, rows = L // 2, torch.arange(L)
    read = torch.zeros(L, L, dtype=torch.bool)
    read[rows[1:], rows[1:] - 1] = True  # previous_token_score's cells, key i - 1
    read[rows[seq_len:], rows[seq_len:] - seq_len + 1] = True  # induction_score's, key i - seq_len + 1
    free = torch.ones(L, L, dtype=torch.bool).tril() & ~read  # (L, L) the other keys a query may read
    weights = pattern.cpu().double()  # (B, H, L, L); float32 -> float64 -> float32 is exact
    spread = torch.rand(weights.shape, generator=generator, dtype=torch.float64) * free
    spread = spread / spread.sum(-1, keepdim=True).clamp(min=1e-300) * (weights * free).sum(-1, keepdim=True)
    return torch.where(free, spread, weights).to(device=pattern.device, dtype=pattern.dtype)


def _check_heads(student, patterns, *, what, **kwargs):
    """find_heads(patterns, **kwargs) against the oracle's: both keys, (layer, head) tuples of ints in (layer,
    head) order. A missed or extra head is drawn."""
    got = student.run("find_heads", patterns, **kwargs)["value"]
    expected = oracle.find_heads(as64(patterns), **kwargs)
    call = {"target": "find_heads", "args": (patterns,), "kwargs": kwargs, "got": got}
    if not isinstance(got, dict) or set(got) != set(KINDS):
        keys = (f"a dict with the keys {', '.join(printable(repr(key), 40) for key in list(got)[:6])}"
                f"{', ...' if len(got) > 6 else ''}" if isinstance(got, dict) else describe(got))  # any keys, bounded
        raise Mismatch(f"{what} returned {keys}, expected a dict with the keys 'previous_token' and 'induction'",
                       call=call)
    for kind in KINDS:
        heads = got[kind]
        if not isinstance(heads, list) or not all(isinstance(h, tuple) and len(h) == 2 and all(type(i) is int for i in h)
                                                  for h in heads):
            shown = heads if isinstance(heads, list) and len(heads) <= 8 else describe(heads)
            tensors = isinstance(heads, list) and any(isinstance(i, torch.Tensor) for h in heads
                                                      if isinstance(h, tuple) for i in h)
            if tensors:  # torch.nonzero's rows, or indexing a tensor, give 0-d tensors
                raise Mismatch(f"{what}: its '{kind}' entry is {shown}, expected a list of (layer, head) tuples of "
                               "ints: a head's number there is a 0-d tensor, what torch.nonzero or indexing a tensor "
                               "gives, not a Python int: make each one with int(...) (or take .tolist() of the "
                               "indices)", call=call, cause=HEADS_NOT_INTS)
            raise Mismatch(f"{what}: its '{kind}' entry is {shown}, expected a list of (layer, head) tuples of ints",
                           call=call)
    for kind in KINDS:
        if got[kind] == expected[kind]:
            continue
        message = f"{what}: its '{kind}' list is {got[kind]}, expected {expected[kind]}"
        if sorted(got[kind]) == expected[kind]:
            raise Mismatch(f"{message}: the right heads, in another order; list them in (layer, head) order, "
                           "layer by layer and head by head", call=call)
        n = len(expected[kind])
        if n and got[kind][-n:] == expected[kind] and (len(set(got[kind])) < len(got[kind]) or any(
                not (0 <= layer < len(patterns) and 0 <= head < patterns[layer].size(1)) for layer, head in got[kind])):
            raise Mismatch(f"{message}: its last {n} are this model's, and before them come heads of an earlier call "
                           "(listed twice, or not in this model): a list made once, outside the function or as a "
                           "default argument, keeps what every call put in it; make the lists inside find_heads",
                           call=call, cause=KEPT_FROM_A_CALL)
        missed = [h for h in expected[kind] if h not in got[kind]]
        extra = [h for h in got[kind] if h not in expected[kind]]
        layer, head = (missed or extra)[0]
        kind_name = "a previous-token" if kind == "previous_token" else "an induction"
        threshold = kwargs.get("threshold", 0.4)
        picture, score, cause = None, "", None
        if 0 <= layer < len(patterns) and 0 <= head < patterns[layer].size(1):
            picture = head_picture(patterns[layer], head, kind, f"layer {layer}, head {head}")
            pattern = as64(patterns[layer])
            value = (oracle.previous_token_score(pattern) if kind == "previous_token"
                     else oracle.induction_score(pattern, pattern.size(-1) // 2))[head]
            score = f" (its {kind.replace('_', '-')} score is {value:.3g}, threshold {threshold:g})"
            if value == threshold:
                score += ": a head counts only when its score is strictly above the threshold, score > threshold"
                cause = AT_THE_THRESHOLD
        if (layer, head) in missed:
            message += f": (layer {layer}, head {head}) is {kind_name} head you missed{score}"
        else:
            message += f": (layer {layer}, head {head}) is not {kind_name} head{score}"
        raise Mismatch(message, call=call, cause=cause, **({"picture": picture} if picture else {}))
    passed(call)


@pytest.mark.needs_values(*SCORES)
@pytest.mark.points(2)
def test_find_heads_planted(student, rng):
    B, seq_len = dims(SIZES["find"], "B", "seq_len")
    patterns = [planted(rng, B, kinds, seq_len) for kinds in PLANTED["find"]]
    check_heads(student, patterns, what=f"find_heads(patterns) on {len(patterns)} layers of planted heads")
    # the shortest sequences, seq_len = 1: key i - seq_len + 1 is the query itself, so a layer of heads
    # that read themselves is all induction heads; the scores are exact (SHARES)
    shortest = [mixed(SHARES, "previous", 2, 1), mixed(SHARES, "self", 2, 1)]
    check_heads(student, [pattern.expand(B, -1, -1, -1).float() for pattern in shortest],
                what="find_heads(patterns) on the shortest sequences, seq_len = 1 (L = 2)")


@pytest.mark.needs_values(*SCORES)
@pytest.mark.points(2)
def test_find_heads_of_the_hand_set_model(student, rng):
    _, patterns = model_patterns(rng)
    check_heads(student, patterns, what="find_heads(patterns) of the two-layer model (a previous-token head at "
                                        "(0, 1), an induction head at (1, 2))")


@pytest.mark.needs_values(*SCORES)
@pytest.mark.parametrize("threshold", [0.65, None, 0.5], ids=["0.65", "default-0.4", "0.5-equal-to-a-score"])
def test_find_heads_threshold(student, rng, threshold):
    """Heads whose scores are exactly 0.25, 0.5, 0.875 (floats hold them exactly): 0.65 keeps one per layer,
    the default 0.4 two, and 0.5 one, since a score equal to the threshold is not above it. No average
    of them over other axes is 0.5 (theirs is 0.54), so a score of the wrong shape is not on it too."""
    B, seq_len = dims(SIZES["threshold"], "B", "seq_len")
    L = 2 * seq_len
    patterns = [mixed(SHARES, "previous", L, seq_len), mixed(SHARES[::-1], "induction", L, seq_len)]
    patterns = [pattern.expand(B, -1, -1, -1).float() for pattern in patterns]
    kwargs = {} if threshold is None else {"threshold": threshold}
    shown = "" if threshold is None else f", threshold={threshold}"
    check_heads(student, patterns, what=f"find_heads(patterns{shown}) on heads scoring 0.5, 0.25 and 0.875",
                **kwargs)


@pytest.mark.needs_values(*SCORES)
@pytest.mark.hidden
def test_find_heads_float64_on_device(student, rng, device):
    B, seq_len = dims(SIZES["find"], "B", "seq_len")
    patterns = [planted(rng, B, kinds, seq_len, torch.float64, device) for kinds in PLANTED["find"][::-1]]
    check_heads(student, patterns, what=f"find_heads(patterns) on {device} in float64")


# -- devices: a score is computed on the pattern's device -------------------------------------------


@pytest.mark.needs_values(previous_token_score="test_previous_token_score_planted",
                          induction_score="test_induction_score_planted")
@pytest.mark.parametrize("call", ["previous_token_score", "induction_score"])
def test_scores_on_the_inputs_device(student, rng, device, call):
    """Nothing made on the CPU: on CUDA itself, and on the CPU with the pattern on a stand-in device."""
    B, seq_len = dims(SIZES["previous"], "B", "seq_len")
    pattern = planted(rng, B, PLANTED["previous"], seq_len, torch.float32, "cpu")
    args = (pattern,) if call == "previous_token_score" else (pattern, seq_len)
    check_device_kept(student, call, *args, device=device, what=f"{call}(pattern{', seq_len' * (len(args) - 1)})")
