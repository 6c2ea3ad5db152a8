"""What a wrong answer shows, without a catalogue entry: the structural analysers.

Given one failing call (its inputs, the student's value and the reference's float64 one), each
analyser tries one kind of relation between the two and, when it holds exactly (within the
tolerance the diagnosis uses), says what the student's code did, in the call's own quantities:

  * a constant factor, named by the quantity it equals ("√8: 8 is n_heads here");
  * axes permuted or transposed, or a reshape that mixed two axes (heads and positions);
  * weights normalised over another axis, or not normalised at all;
  * a mask that differs by its diagonal, its triangle, its corner (a cache offset) or its width
    (padding), or masked scores filled with a number instead of -inf;
  * heads taken in another order (tiled, interleaved, modulo), as the mapping the student built;
  * two returned values swapped; a value that another input gives (V made with W_K, K for V);
  * a missing output projection; a KV cache whose state did not advance or was overwritten;
  * scores divided by another quantity than the reference's (seen through a softmax too).

Every analyser returns `Finding`s: a `key` (the same for every call the same mistake explains,
whatever the sizes, so that a diagnosis can require all the evidence to agree) and a `message`.
They run only on failures (`grader.diagnosis.matcher` calls them), so a passing submission pays nothing.
"""

import inspect
import itertools
import math
import re
from dataclasses import dataclass

import torch

from grader.diagnosis import traits
from grader.diagnosis.reference import Reference
from grader.grading.compare import MASKED_BELOW, TOLERANCES
from grader.grading.testkit import AUTOGRAD_IN_PLACE, AUTOGRAD_OUT, Raised
from grader.nested import leaves

# A value matches within 10x the tolerance of the student's dtype, the absolute part scaled by the
# largest value (a float32 sum of many products rounds in proportion to its terms): rounding, not a
# mistake, since the mistakes change values by whole factors. grader.diagnosis.matcher matches the same way.
SLACK = 10


@dataclass(frozen=True)
class Finding:
    key: str  # what the mistake is, independent of the call's sizes
    message: str


# -- matching ------------------------------------------------------------------------------------


def close(got, value, dtype):
    """got (the student's) equals value (float64) within SLACK times dtype's tolerance; NaN = NaN."""
    if not isinstance(got, torch.Tensor) or not isinstance(value, torch.Tensor):
        return False
    if tuple(got.shape) != tuple(value.shape):
        return False
    if torch.bool in (got.dtype, value.dtype):
        return got.dtype == value.dtype and bool((got.cpu() == value.cpu()).all())
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    value = value.detach().to("cpu", torch.float64)
    finite = value[torch.isfinite(value)]
    scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
    return bool(torch.isclose(got.detach().to("cpu", torch.float64), value, rtol=SLACK * rtol,
                              atol=SLACK * atol * scale, equal_nan=True).all())


def _f64(t):
    return t.detach().to("cpu", torch.float64)


# -- the quantities of a call -----------------------------------------------------------------------


def quantities(call):
    """{name: size} of a call, in the chapter's names: what a wrong factor or divisor is made of."""
    target, args, kwargs = call["target"], call["args"], call["kwargs"]
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    named = {}
    made = call.get("object")
    if made is not None and not traits.has(made.target, "stores"):
        d_model, n_heads, *rest = made.args
        n_kv = rest[0] if rest else n_heads
        x = args[0] if args and isinstance(args[0], torch.Tensor) else None
        named.update({"d_model": d_model, "n_heads": n_heads, "d_head": d_model // n_heads})
        if rest:
            named.update({"n_kv_heads": n_kv, "n_rep": n_heads // n_kv})
        if x is not None and x.dim() == 3:
            named.update({"L": x.shape[1], "B": x.shape[0]})
        return named
    if traits.has(target, "qk") and len(tensors) >= 2:
        q, k = tensors[:2]
        named.update({"d_k": q.shape[-1], "L_q": q.shape[-2], "L_k": k.shape[-2]})
        if len(tensors) >= 3 and tensors[2].is_floating_point():
            named["d_v"] = tensors[2].shape[-1]
    elif traits.has(target, "scores-width") and tensors:
        named.update({"d_k": args[1] if len(args) > 1 else kwargs.get("d_k"),
                      "L_q": tensors[0].shape[-2] if tensors[0].dim() >= 2 else None,
                      "L_k": tensors[0].shape[-1]})
    elif traits.has(target, "counts"):
        names = traits.of(target).quantities
        named.update(dict(zip(names, args)))
        named.update({k: v for k, v in kwargs.items() if k in names})
        for name, value in traits.of(target).defaults.items():
            named.setdefault(name, value)
    elif traits.has(target, "projects") and tensors:
        named.update({"d_model": tensors[0].shape[-1], "L": tensors[0].shape[-2] if tensors[0].dim() > 1 else None})
    return {name: int(value) for name, value in named.items() if isinstance(value, int) and not isinstance(value, bool)}


QUANTITY_WORDS = {"d_k": "the width of q and k", "L_q": "the number of queries", "L_k": "the number of keys",
                  "d_v": "the width of v", "n_heads": "the number of heads", "d_model": "the model width",
                  "d_head": "each head's width", "L": "the sequence length", "n_kv_heads": "the number of KV heads",
                  "n_rep": "query heads per KV head", "B": "the batch size"}
EXTRA = {"2": (2, "2 (keys and values)"), "8": (8, "8 (bits in a byte)")}


def expressions(named, with_constants=False, halves=False):
    """[(value, name, text)] for every q, √q and q² of the call's quantities (q > 1); with `halves`
    also q/2 and 2·q (d_k ** 1/2 is d_k / 2) and ⌊√q⌋ (an integer square root)."""
    found = []
    for name, n in named.items():
        if n <= 1:
            continue
        found += [(float(n), name, f"{name} = {n}"), (math.sqrt(n), f"√{name}", f"√{name} = √{n} ≈ {math.sqrt(n):.3g}"),
                  (float(n * n), f"{name}²", f"{name}² = {n * n}")]
        if halves:
            found += [(n / 2, f"{name}/2", f"{name}/2 = {n / 2:g}"), (2.0 * n, f"2·{name}", f"2·{name} = {2 * n}")]
            if math.isqrt(n) ** 2 != n:  # int(math.sqrt(n)), math.isqrt(n): the root rounded down
                found.append((float(math.isqrt(n)), f"⌊√{name}⌋", f"⌊√{name}⌋ = {math.isqrt(n)}, the root of {n} "
                              f"rounded down to an integer (√{n} ≈ {math.sqrt(n):.4g})"))
    if with_constants:
        found += [(float(v), key, text) for key, (v, text) in EXTRA.items()]
    return found


def _named(value, named, with_constants=False, halves=False, rel=1e-6):
    """The expressions of the call's quantities equal to `value` (names, texts)."""
    return [(name, text) for v, name, text in expressions(named, with_constants, halves) if abs(v - value) <= rel * v]


def _ratio_text(c):
    return f"{c:.3g}" if abs(c - round(c)) > 1e-9 else f"{int(round(c))}"


# -- direct analysers: the student's value against the expected one ----------------------------------


def constant_factor(got, want, dtype):
    """c when got = c · want everywhere (c clearly not 1), else None."""
    if got.shape != want.shape or not got.is_floating_point() and got.dtype != want.dtype:
        return None
    g, w = _f64(got), _f64(want)
    ok = torch.isfinite(w) & (w.abs() > 1e-6 * max(1.0, float(w[torch.isfinite(w)].abs().max()) if
                                                   torch.isfinite(w).any() else 1.0))
    if not bool(ok.any()) or not bool(torch.isfinite(g[torch.isfinite(w)]).all()):
        return None
    c = float((g[ok] * w[ok]).sum() / (w[ok] * w[ok]).sum())
    if not math.isfinite(c) or c == 0 or abs(c - 1) < 1e-3:
        return None
    return c if close(g, w * c, dtype) and bool((~torch.isfinite(w) <= (g == w)).all()) else None


def factor_findings(call, got, want, dtype, what):
    c = constant_factor(got, want, dtype) if isinstance(got, torch.Tensor) else None
    if c is None and isinstance(got, (int, float)) and not isinstance(got, bool) and isinstance(want, (int, float)):
        c = got / want if want and got and got != want else None
    if c is None:
        return []
    named = quantities(call)
    big = c > 0 and c > 1
    size = abs(c) if big else 1 / abs(c)
    sign = "" if c > 0 else " and of the opposite sign"
    how = f"{_ratio_text(size)} times too {'large' if big else 'small'}{sign}"
    options = _named(size, named, with_constants=traits.has(call["target"], "counts"))  # a count: 2 keys and values, 8 bits
    findings = []
    for name, text in options:
        extra = (f"a factor of {name} too many (or a division by {name} missing)" if big else
                 f"a factor of {name} missing (or a division by {name} too many)")
        message = f"{what}: your result is {how} everywhere, and {text} here: {extra}"
        findings.append(Finding(f"factor:{'x' if big else '/'}{name}{':neg' if c < 0 else ''}", message))
    divisor = _divisor_findings(call, c, named, what)
    return divisor or findings


def _divisor_findings(call, c, named, what):
    """For a function whose job is a division of the scores: what the student divided by instead."""
    if traits.of(call["target"]).divisor is None or c <= 0 or "d_k" not in named:
        return []
    name, divisor = traits.of(call["target"]).divisor  # what the function divides its scores by
    theirs = divisor(named) / c
    d_k = "the d_k it is given" if call["target"] == "scale_scores" else "d_k = q.size(-1), the width of a query"
    must = (f" where they must be divided by √d_k = √{named['d_k']} ({d_k})"
            if name != "1" else " where attention_scores is the raw Q Kᵀ: no scaling in this step")
    if abs(theirs - 1) < 1e-6:  # not divided, or divided by a size that is 1 here
        ones = [name for name, n in {**named, **_dims(call)}.items() if n == 1]
        return [Finding("divisor:1", f"{what}: your scores are not divided by anything{must}"),
                *(Finding(f"divisor:√{name}", f"{what}: your scores are divided by √{name}{_words(name)}{must}")
                  for name in ones)]
    findings = []
    for text_name, text in _named(theirs, {**named, **_dims(call)}, halves=True):
        if text_name != name:
            findings.append(Finding(f"divisor:{text_name}", f"{what}: your scores are divided by {text}"
                                    f"{_words(text_name)}{must}{_PRECEDENCE.get(text_name, '')}"))
    for text_name, text in _named(1 / theirs, named):
        findings.append(Finding(f"divisor:1/{text_name}", f"{what}: your scores are multiplied by {text}{must}"))
    return findings


# a divisor of d_k / 2, or of 2·d_k, is what d_k ** 1/2 gives, in two places of a division
_PRECEDENCE = {"d_k/2": "; d_k ** 1/2 gives that: ** binds tighter than /, so it is (d_k ** 1) / 2",
               "2·d_k": "; scores / d_k ** 1/2 gives that: ** binds tighter than /, so it is (scores / d_k) / 2"}


def _words(expression):
    """', the number of keys,' for √L_k; '' for a quantity without words."""
    core = expression.removeprefix("√").removesuffix("²").removesuffix("/2")
    twice = "twice " if core.startswith("2·") else ""
    for name, words in QUANTITY_WORDS.items():
        if core.removeprefix("2·") == name:
            return f", {twice}{words},"
    if ".size(" in expression:
        return ", a size of the input that is not its last dim,"
    return ""


def _dims(call):
    """{"q.size(1)": 5, ...}: the sizes of a score function's inputs by position, in the student's
    words when a size is read from the wrong dim."""
    names = traits.of(call["target"]).args or ("scores",)
    sizes = {}
    for name, arg in zip(names, call["args"]):
        if isinstance(arg, torch.Tensor) and arg.is_floating_point():
            for i in range(arg.dim() - 1):
                sizes[f"{name}.size({i})"] = int(arg.shape[i])
    return sizes


def permutation_findings(got, want, dtype, what, axis_names=None):
    """got is want with its axes permuted (a transpose). (A reshape that mixed two axes is found by
    replaying the reshapes a student writes: `probes`.)"""
    if got.dim() != want.dim() or got.dim() < 2 or got.numel() != want.numel():
        return []
    findings = []
    n = want.dim()
    names = axis_names or [f"axis {i - n}" for i in range(n)]
    for perm in itertools.permutations(range(n)):
        if perm == tuple(range(n)):
            continue
        moved = want.permute(perm)
        if tuple(moved.shape) == tuple(got.shape) and close(got, moved, dtype):
            swapped = [i for i in range(n) if perm[i] != i]
            if len(swapped) == 2:
                a, b = swapped
                text = (f"{what} has {names[a]} and {names[b]} swapped: it is the expected result transposed "
                        f"(transpose({a - n}, {b - n}))")
            else:
                text = f"{what} has its axes in the order {[names[p] for p in perm]}: a permute or transpose too many"
            findings.append(Finding(f"axes:{'-'.join(str(p - n) for p in perm)}", text))
            return findings
    return findings


def normalisation_findings(got, want, dtype, what):
    """Weights (want sums to 1 along one axis) that sum to 1 along another axis, over everything, or
    along none while each slice is right up to its own factor (not divided by its sum)."""
    if got.shape != want.shape or got.dim() < 2 or not got.is_floating_point():
        return []
    g, w = _f64(got), _f64(want)
    if not torch.isfinite(g).all():
        return []
    axis = next((a for a in range(w.dim() - 1, -1, -1) if w.shape[a] > 1 and _sums_to_one(w, a, 1e-6)), None)
    if axis is None:
        return []
    rtol, _ = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    tol = max(1e-3, SLACK * rtol)
    if _sums_to_one(g, axis, tol):
        return []
    n = got.dim()
    along = "the keys" if axis == n - 1 else f"dim {axis - n}"
    if abs(float(g.sum()) - 1) < tol and got.numel() > got.shape[axis]:
        return [Finding("normalised-over:all", f"{what}: your weights sum to 1 over the whole tensor, not along "
                        f"{along}: the sum runs over everything; divide by the sum along dim (keepdim=True)")]
    for other in range(n):
        if other != axis and got.shape[other] > 1 and _sums_to_one(g, other, tol):
            return [Finding(f"normalised-over:{other - n}", f"{what}: your weights sum to 1 over dim {other - n}"
                            f"{' (the queries)' if other == n - 2 and axis == n - 1 else ''}, not over {along}: "
                            f"each slice along dim {axis - n} must sum to 1")]
    ok = w > 1e-12
    ratio = torch.where(ok, g / torch.where(ok, w, 1.0), torch.nan)
    high = torch.nan_to_num(ratio, nan=-math.inf).amax(axis)
    low = torch.nan_to_num(ratio, nan=math.inf).amin(axis)
    same = ((high - low).abs() <= tol * high.abs()) | ~ok.any(axis)
    if bool(ok.any()) and bool(same.all()):
        return [Finding("not-normalised", f"{what}: your weights do not sum to 1 along {along} but are otherwise "
                        "right, each slice off by its own factor: divide e^x by its sum along dim (keepdim=True)")]
    return []


def _sums_to_one(t, axis, tol):
    """Every slice of t along `axis` sums to 1 (or to 0: a fully masked row)."""
    sums = t.sum(axis)
    return bool((((sums - 1).abs() < tol) | (sums.abs() < tol)).all()) and bool(((sums - 1).abs() < tol).any())


def _mask_of(value):
    """A mask's 'may attend' pattern: a bool mask itself, or masked scores (-inf or a large finite negative
    number count as masked)."""
    if value.dtype == torch.bool:
        return value.cpu()
    v = _f64(value)
    return ~(v <= MASKED_BELOW)  # -inf, or a large finite negative number: its weight is 0 either way


def mask_findings(call, got, want, dtype, what):
    """A mask (bool, or scores with -inf) whose pattern differs by diagonal, triangle, corner or width."""
    if not isinstance(got, torch.Tensor) or got.dim() < 1:
        return []
    is_bool = want.dtype == torch.bool
    if not is_bool and not bool((want == -math.inf).any()):
        return []
    if (got.dtype == torch.bool) != is_bool:
        return []  # a mask of another dtype, or a bool where scores belong: the dtype message says it
    findings = []
    if not is_bool and got.shape == want.shape and got.is_floating_point():
        findings += _fill_findings(got, want, what)
        if findings:
            return findings
    if got.dim() != want.dim():
        return []
    try:
        mine, theirs = torch.broadcast_tensors(_mask_of(got), _mask_of(want))
    except RuntimeError:
        return []
    if bool((mine == theirs).all()):
        return []
    if not is_bool:  # the kept scores must be the scores themselves, or the pattern is not the story
        g, w = _f64(got), _f64(want)
        both = mine & theirs
        if not close(g[both], w[both], dtype):
            return []
    if bool((mine == ~theirs).all()):
        return [Finding("mask:inverted", f"{what}: your mask is the wrong way round: True must mean 'may attend' and "
                        "-inf goes where the mask is False (~mask); yours keeps exactly what must be hidden")]
    if bool(mine.all()):
        return [Finding("mask:nothing-masked", f"{what}: nothing is masked in yours: every query may see every key")]
    L_q, L_k = theirs.shape[-2:] if theirs.dim() >= 2 else (1, theirs.shape[-1])
    if theirs.dim() >= 2 and L_q > 1:
        rows = torch.arange(L_q)[:, None]
        cols = torch.arange(L_k)[None, :]
        for offset in range(-L_k, L_k + 1):
            lower = cols <= rows + offset
            if bool((theirs == lower).all()):
                expected_offset = offset
                break
        else:
            expected_offset = None
        if expected_offset is not None:
            for offset in range(-L_k, L_k + 1):
                if offset != expected_offset and bool((mine == (cols <= rows + offset)).all()):
                    shift = offset - expected_offset
                    if expected_offset:
                        text = (f"{what}: your mask's diagonal is at offset {offset}, not {expected_offset}: "
                                f"with {expected_offset} tokens before the new ones, new token i is at position "
                                f"{expected_offset} + i and sees keys 0 .. {expected_offset} + i "
                                f"(tril(diagonal={expected_offset}), the bottom-right corner)")
                        key = "mask:corner"
                    elif shift == -1:
                        text = (f"{what}: your causal mask leaves out the diagonal: query i may not see key i "
                                "(itself); torch.tril keeps it with diagonal=0")
                        key = "mask:no-diagonal"
                    elif shift > 0:
                        text = (f"{what}: your causal mask lets query i see keys up to i + {shift}: "
                                f"{shift} future token{'s leak' if shift > 1 else ' leaks'}; torch.tril with diagonal=0 "
                                "stops at key i")
                        key = f"mask:diagonal+{shift}"
                    else:
                        text = (f"{what}: your causal mask stops at key i - {-shift}, hiding tokens query i may see; "
                                "torch.tril with diagonal=0 keeps keys 0..i")
                        key = f"mask:diagonal{shift}"
                    return [Finding(key, text)]
                upper = cols >= rows + offset
                if bool((mine == upper).all()):
                    return [Finding("mask:upper-triangle", f"{what}: your mask is the upper triangle (torch.triu): "
                                    "query i (row i) must see keys 0..i, on and below the diagonal, torch.tril")]
    if theirs.dim() >= 2 and bool((mine == theirs.flip(-1)).all()) and bool((theirs == theirs[..., :1, :]).all()):
        return [Finding("mask:reversed", f"{what}: your padding mask keeps the last lengths[b] keys of each sequence, "
                        "not the first: the real tokens come first and the padding after them, so key j is real "
                        "when j < lengths[b]")]
    if theirs.dim() >= 2 and mine.dim() >= 2 and bool((theirs == theirs[..., :1, :]).all()) and \
            bool((mine == mine[..., :1, :]).all()):
        want_len, got_len = theirs[..., 0, :].sum(-1), mine[..., 0, :].sum(-1)
        prefix = bool((theirs == (torch.arange(L_k) < want_len[..., None, None])).all())
        widths = [d for d in (1, -1, 2, -2) if bool((got_len == (want_len + d).clamp(0, L_k)).all())]
        if prefix and widths and bool((mine == (torch.arange(L_k) < got_len[..., None, None])).all()):
            d = widths[0]
            return [Finding(f"mask:width{d:+d}", f"{what}: your padding mask keeps {abs(d)} key{'s' if abs(d) > 1 else ''} "
                            f"too {'many' if d > 0 else 'few'} in each sequence: key j is real when j < lengths[b] (a "
                            "length of 3 means keys 0, 1 and 2)")]
    return []


def _fill_findings(got, want, what):
    """Masked scores filled with a number instead of -inf (the kept ones right)."""
    g, w = _f64(got), _f64(want)
    masked = w == -math.inf
    if not bool(masked.any()) or not bool(torch.isfinite(w[~masked]).all()):
        return []
    if bool(torch.isnan(g[~masked]).all()) and bool((g[masked] == -math.inf).all()):
        return [Finding("mask:nan-kept", f"{what}: every score the mask keeps came out NaN, and the masked ones -inf: "
                        "0 × -inf is NaN, so adding (~mask) * -inf (or multiplying by a mask of 0 and -inf) poisons "
                        "the scores it should keep; masked_fill(~mask, float('-inf')) sets only the masked ones")]
    if not bool(torch.isclose(g[~masked], w[~masked], rtol=1e-4, atol=1e-5).all()):
        return []
    filled = g[masked]
    if bool((filled == math.inf).all()):
        return [Finding("mask:plus-inf", f"{what}: your masked scores are +inf, not -inf: e^+inf is inf, so a masked "
                        "key takes all the weight (and inf / inf is NaN); fill with float('-inf'), minus infinity")]
    if not bool(torch.isfinite(filled).all()):
        return []
    value = float(filled[0])
    if bool((filled == value).all()) and value <= -1e4:
        return [Finding("mask:finite-fill", f"{what}: your masked scores are {value:g}, a large finite number, not "
                        "-inf: e^x of it is 0 in float32, so most rows come out right, but a row whose every key is "
                        "masked then gets equal weights over keys it must not see; fill with float('-inf')")]
    if bool((filled == value).all()):
        return [Finding("mask:fill-value", f"{what}: your masked scores are {value:g}, not -inf: e^{value:g} is not "
                        "0, so a masked key still gets weight; fill with float('-inf')")]
    return []


def head_mapping_findings(call, got, want, dtype, what):
    """repeat_kv-like results: every output head is one input head; say which."""
    if not traits.has(call["target"], "repeats-heads") or not isinstance(got, torch.Tensor) or got.shape != want.shape:
        return []
    x = _f64(call["args"][0])
    n_rep = call["args"][1] if len(call["args"]) > 1 else call["kwargs"].get("n_rep")
    mapping = []
    for j in range(got.shape[1]):
        source = next((i for i in range(x.shape[1]) if close(got[:, j], x[:, i], dtype)), None)
        if source is None:
            return []
        mapping.append(source)
    right = [j // n_rep for j in range(got.shape[1])]
    if mapping == right:
        return []
    H_kv = x.shape[1]
    if mapping == [j % H_kv for j in range(len(mapping))]:
        how = "tiled: query head j reads KV head j mod n_kv_heads (what .repeat does)"
        key = "heads:tiled"
    else:
        how = "in an order of your own"
        key = "heads:other"
    return [Finding(key, f"{what}: your output heads read KV heads {mapping}, {how}; query head j must read KV "
                    f"head j // n_rep, {right}, so neighbouring query heads share a KV head (repeat_interleave "
                    "along dim 1)")]


# -- findings by replaying the reference with one structural change ------------------------------------


def _variant(**steps):
    return type("Probe", (Reference,), steps)


def probes(call):
    """(key, message, Reference variant) for the structural changes worth trying on this call."""
    target = call["target"]
    named = quantities(call)
    found = []
    if traits.has(target, "attends") or traits.has(target, "softmax"):
        found += _keepdim_probes()
    if traits.has(target, "softmax"):
        found.append(("softmax:global-max", "your softmax subtracts the largest score of the whole tensor, not each "
                      "slice's own maximum: a slice far below it underflows to e^(-large) = 0 everywhere, 0/0 or all "
                      "zeros; subtract x.amax(dim=dim, keepdim=True)", _variant(softmax=_global_max_softmax)))
        found.append(("softmax:max-clamped-at-zero", "your softmax shifts each slice by its maximum clamped at 0 (a "
                      "clamp(min=0) that guards the -inf maximum of a fully masked slice): a slice whose scores are "
                      "all far below 0 is then shifted by 0, and underflows to e^(-large) = 0 everywhere; replace only "
                      "the -inf maximum, torch.where(m == float('-inf'), 0, m)",
                      _variant(softmax=_max_clamped_at_zero_softmax)))
    if traits.has(target, "attends"):
        found += _scale_probes(named)
        for corner in ("bottom-right", "top-left"):  # tril(L_k - L_q) or a plain tril(): the same finding
            found.append(("mask:causal-by-default", "your attention hides the future when it is given no mask: "
                          "mask=None means every query reads every key (an encoder, or a caller that masks nothing); "
                          "apply a mask only when one is given",
                          _variant(attention_weights=lambda self, s, m, c=corner: _causal_by_default(self, s, m, c))))
        found.append(("mask:softmax-dim-2", "your weights are normalised over the queries (dim=-2), not over the "
                      "keys: each query's row must sum to 1, softmax(scores, dim=-1)",
                      _variant(attention_weights=lambda self, s, m: self.softmax(
                          s if m is None else self.apply_mask(s, m), dim=-2))))
        found.append(("not-normalised", "your attention weights are e^score without dividing by the row's sum: "
                      "softmax divides each row by its sum over the keys, so that it sums to 1",
                      _variant(softmax=lambda self, x, dim=-1: torch.exp(x - x.amax(dim=dim, keepdim=True)
                                                                         .clamp(min=-1e300)))))
    if traits.has(target, "module"):
        found.append(("no-output-projection", "your output is the heads merged side by side, without the output "
                      "projection: the last step is W_O (self.out / self.o_proj) applied to merge_heads(y)",
                      _variant(out_projection=lambda self, y, w, b=None: y)))
        found.append(("mask:inverted", "your attention uses its mask the wrong way round: it hides what the mask "
                      "allows and attends to what it hides (the future, the padding); True means 'may attend', and "
                      "-inf goes where the mask is False", _variant(attention_weights=lambda self, s, m: self.softmax(
                          s if m is None else self.apply_mask(s, ~m), dim=-1))))
        for offset in (1, -1):
            found.append((f"mask:diagonal{offset:+d}", (
                f"your causal mask is torch.tril(..., diagonal={offset}): "
                + ("query i also sees key i + 1, one token of the future" if offset > 0 else
                   "query i may not see itself (key i)") + "; the causal mask is tril with diagonal=0"),
                _variant(causal_mask=lambda self, L, device=None, o=offset: torch.ones(L, L, dtype=torch.bool).tril(o))))
    if traits.has(target, "gqa") and named.get("n_rep", 1) > 1:
        for kept in ("k", "v"):  # one finding: the shapes clash alike, so the tests cannot tell which it is
            found.append(("gqa:kv-not-repeated", f"your forward attends with keys or values as the projections made "
                          f"them, with n_kv_heads = {named['n_kv_heads']} heads, while q has n_heads = "
                          f"{named['n_heads']}: repeat_kv(k, n_rep) and repeat_kv(v, n_rep) both, so that every query "
                          "head has its keys and its values", _variant(_gqa_attend=_not_repeated(kept))))
        found.append(("heads:tiled", "query head j of yours reads KV head j mod n_kv_heads (the KV heads tiled, "
                      "[0, 1, 0, 1, …], what .repeat or .expand-then-reshape on the wrong axis gives); it must read "
                      "KV head j // n_rep, [0, 0, 1, 1, …]: repeat_interleave(n_rep, dim=1)",
                      _variant(repeat_kv=lambda self, x, n_rep: x.repeat(1, n_rep, 1, 1))))
    if traits.has(target, "gqa") and named.get("n_kv_heads", 1) not in (1, named.get("n_rep", 1)):
        found.append(("gqa:n-rep-is-n-kv-heads", f"your forward repeats each KV head n_kv_heads = "
                      f"{named['n_kv_heads']} times; each must be repeated n_rep = n_heads // n_kv_heads = "
                      f"{named.get('n_rep', 1)} times, so that the H_kv heads become the n_heads = {named['n_heads']} "
                      "the queries have: repeat_kv(k, self.n_heads // self.n_kv_heads)",
                      _variant(repeat_kv=lambda self, x, n_rep: torch.repeat_interleave(x, x.size(1), dim=1))))
    if traits.has(target, "gqa") and named.get("n_kv_heads", 1) > 1:  # with one KV head, n_heads is n_rep
        found.append(("gqa:n-rep-is-n-heads", f"your forward repeats each KV head n_heads = {named['n_heads']} "
                      f"times; each must be repeated n_rep = n_heads // n_kv_heads = {named.get('n_rep', 1)} times, so "
                      f"that the n_kv_heads = {named['n_kv_heads']} heads become the n_heads = {named['n_heads']} the "
                      "queries have: repeat_kv(k, self.n_heads // self.n_kv_heads)",
                      _variant(repeat_kv=lambda self, x, n_rep: torch.repeat_interleave(x, n_rep * x.size(1), dim=1))))
    if traits.has(target, "splits"):
        found.append(("split:no-transpose", "your split into heads (split_heads) reshapes (B, L, D) straight into (B, H, L, d_head), "
                      "which mixes positions and heads (a reshape keeps the numbers in their order); view it as "
                      "(B, L, H, d_head), then transpose(1, 2)", _variant(split_heads=_split_no_transpose)))
        found.append(("split:strided", "your split into heads (split_heads) gives head h every H-th column (columns h, h + H, h + 2H, …: "
                      "D viewed as (d_head, H)); head h must hold the contiguous chunk of columns h*d_head .. "
                      "(h+1)*d_head - 1: view (B, L, D) as (B, L, H, d_head), then transpose(1, 2)",
                      _variant(split_heads=_split_strided)))
    if traits.has(target, "merges"):
        found.append(("merge:no-transpose", "your merge of the heads (merge_heads) reshapes (B, H, L, d_head) straight into (B, L, D), "
                      "which mixes positions and heads; transpose(1, 2) back to (B, L, H, d_head) first, then "
                      ".contiguous().view(B, L, D)", _variant(merge_heads=lambda self, x: x.reshape(x.size(0), x.size(2), -1))))
        found.append(("merge:strided", "your merge of the heads (merge_heads) puts the heads' numbers interleaved (head 0's first number, "
                      "head 1's first, …) instead of side by side: after transpose(1, 2) to (B, L, H, d_head), "
                      "view it as (B, L, H * d_head) so that head 0's d_head numbers come first",
                      _variant(merge_heads=lambda self, x: x.permute(0, 2, 3, 1).reshape(x.size(0), x.size(2), -1))))
    if traits.has(target, "fused"):
        found.append(("fused:interleaved", "your code reads q, k and v from interleaved columns of the fused output "
                      "(q from columns 0, 3, 6, …); the fused weights hold W_Q, W_K and W_V side by side as three "
                      "blocks, so q is the first block of columns: split(d, dim=-1)",
                      _variant(cut_fused=lambda self, qkv, d, d_model: list(qkv.unflatten(-1, (-1, 3)).unbind(-1)))))
    if traits.has(target, "fused-per-head") and named.get("n_heads", 1) > 1:
        H = named["n_heads"]
        found.append(("fused:per-head", "your forward cuts the fused qkv output per head (each head's q | k | v "
                      "together) instead of as three D-wide blocks W_Q | W_K | W_V: self.qkv(x).split(D, dim=-1) "
                      "first, then split_heads on each",
                      _variant(cut_fused=lambda self, qkv, d, d_model: [
                          t.flatten(-2) for t in qkv.unflatten(-1, (H, -1)).chunk(3, dim=-1)])))
    if traits.has(target, "scores"):
        found.append(("diagonal-only", DIAGONAL, _variant(attention_scores=lambda self, q, k: (q * k).sum(-1))))
    if traits.has(target, "view-scores"):
        for a, b in ((0, 1), (0, 2), (1, 2)):  # dims counted from the front: right only where they are the last two
            found.append((f"scores:k-transposed-{a}-{b}", f"your k is transposed on dims ({a}, {b}), counted from the "
                          "front: those are L_k and d_k only for a k with exactly "
                          f"{b + 1} dims; with batch (or head) dims in front they swap a batch dim into the product. "
                          "k.transpose(-2, -1) swaps L_k and d_k whatever the dims before them",
                          _variant(attention_scores=lambda self, q, k, a=a, b=b: q @ _front_transposed(k, a, b))))
        found.append(("scores:view-not-transpose", "your k is reshaped (view or reshape) to (…, d_k, L_k) instead of "
                      "transposed: a view keeps the numbers in their memory order, so they land in the wrong places; "
                      "swap the last two dims with k.transpose(-2, -1)",
                      _variant(attention_scores=lambda self, q, k: q @ k.reshape(*k.shape[:-2], k.shape[-1], k.shape[-2]))))
    if traits.has(target, "decodes") and named.get("n_rep", 1) > 1:
        found.append(("cache:repeated-before-update", "your forward hands cache.update the keys and values after "
                      f"repeat_kv, with n_heads = {named['n_heads']} heads, while the cache holds n_kv_heads = "
                      f"{named['n_kv_heads']} (the point of GQA's small cache): cache.update(k, v) first, then "
                      "repeat_kv on the keys and values it returns", _variant(cached_attention=_repeated_before_update)))
    if traits.has(target, "decodes"):
        for offset in (1, -1):
            found.append((f"mask:decode{offset:+d}", (
                f"the causal mask of your new tokens is tril(diagonal=past {'+' if offset > 0 else '-'} 1): new token i "
                + ("also sees the next new token, one of the future" if offset > 0 else "may not see itself (key "
                   "past + i)") + "; new token i sits at position past + i and sees keys 0 .. past + i, "
                "tril(diagonal=past)"),
                _variant(decode_mask=lambda self, T, past, o=offset: torch.ones(T, past + T, dtype=torch.bool)
                         .tril(diagonal=past + o))))
        found.append(("cache:no-mask", "when a cache is given, each of your new tokens sees all the new tokens, the "
                      "later ones too (no causal mask among them, or one shifted by T_new, as when past is read after "
                      "cache.update): fine for one new token, but with several in one call token i must not see the "
                      "ones after it; use a (T_new, past + T_new) mask, tril(diagonal=past), with past = len(cache) "
                      "before the update", _variant(cached_attention=_unmasked_with_cache)))
    if traits.has(target, "decodes"):
        found.append(("cache:overwritten", "your cache writes every update at position 0, over the tokens before "
                      "it, so the past it returns is overwritten; write at [len(cache) : len(cache) + T_new], "
                      "where the cache's state has advanced to",
                      _variant(cache_update=_overwriting_update)))
        found.append(("mask:corner", "the causal mask of your new tokens starts at the top-left corner: new token i "
                      "sits at position past + i and sees keys 0 .. past + i, tril(diagonal=past) of a (T_new, past + "
                      "T_new) mask", _variant(decode_mask=lambda self, T, past: torch.ones(T, past + T, dtype=torch.bool)
                                              .tril())))
    # a len(cache) after updates tells these apart where the updates' answers cannot (round 68's m30): their
    # probes run on it too, as evidence against the one whose length the passed len(cache) disproves
    if traits.has(target, "caches") and call.get("method") in {"update", "__call__", "__len__"}:
        found.append(("cache:not-advancing", "your cache does not advance its state: every update writes at "
                      "position 0 and sets the length to the new tokens alone, so it forgets what it held; write at "
                      "[len : len + T_new] and add T_new to the length", _variant(cache_update=_forgetting_update)))
    if traits.has(target, "stores") and call.get("method") in ("update", "__len__"):
        found.append(("cache:returns-new", "your cache.update stores the new tokens after the past and counts them, "
                      "but returns only the new ones: it must return every token cached so far, the past and the new "
                      "together, the slices [:, :, :len] after the write", _variant(cache_update=_new_tokens_update)))
    if traits.has(target, "stores") and call.get("method") == "update":
        found.append(("cache:overwritten", "your cache.update writes the new tokens at position 0 every time, over "
                      "the ones before: write them where the cache's state has advanced to, at [len : len + T_new], "
                      "and return everything up to the new length", _variant(cache_update=_overwriting_update)))
    return found


def _front_transposed(k, a, b):
    """k.transpose(a, b), or the right k.transpose(-2, -1) where dims a and b are the last two (the
    probe then changes nothing on that call, and shows nothing there)."""
    if max(a, b) < k.dim() and {a, b} == {k.dim() - 2, k.dim() - 1}:
        return k.transpose(-2, -1)
    return k.transpose(a, b)


def _global_max_softmax(self, x, dim=-1):
    return _shifted_softmax(x, x.max().clamp(min=-1e300), dim)  # one shift for the whole tensor


def _max_clamped_at_zero_softmax(self, x, dim=-1):
    return _shifted_softmax(x, x.amax(dim=dim, keepdim=True).clamp(min=0.0), dim)  # a maximum below 0 becomes 0


def _shifted_softmax(x, shift, dim):
    """e^(x - shift), normalised along dim (a slice whose terms all underflow gives zeros, not 0/0)."""
    e = torch.exp(x - shift)
    total = e.sum(dim=dim, keepdim=True)
    return e / total.masked_fill(total == 0, 1.0)


def _causal_by_default(self, scores, mask, corner):
    L_q, L_k = scores.shape[-2:]
    if mask is None:
        offset = L_k - L_q if corner == "bottom-right" else 0
        mask = torch.ones(L_q, L_k, dtype=torch.bool, device=scores.device).tril(offset)
    return self.softmax(self.apply_mask(scores, mask), dim=-1)


def _keepdim_probes():
    """softmax's max or sum taken without keepdim=True: the reduced dim is gone, so it broadcasts against
    the last dims instead of its own (a shape error, or wrong numbers where the sizes happen to fit)."""
    def softmax(self, x, dim=-1, keep_max=True, keep_sum=True):
        x_max = x.amax(dim=dim, keepdim=keep_max)
        e = torch.exp(x - x_max.masked_fill(x_max == float("-inf"), 0.0))
        total = e.sum(dim=dim, keepdim=keep_sum)
        return e / total.masked_fill(total == 0, 1.0)

    # one finding for both: where the shapes clash, they clash alike, so the tests cannot tell which it is
    return [("softmax:without-keepdim", "your softmax takes its max or its sum along dim without keepdim=True: the "
             "reduced dim is dropped, so the result lines up with the last dims of x instead of its own slice (a "
             "shape error, or wrong numbers where the sizes happen to fit); x.amax(dim=dim, keepdim=True) and "
             "e.sum(dim=dim, keepdim=True) keep it as a dim of size 1 that broadcasts along the slice",
             _variant(softmax=lambda self, x, dim=-1, o=options: softmax(self, x, dim, **o)))
            for options in ({"keep_max": False}, {"keep_sum": False})]


def _not_repeated(kept):
    """GQA's attention with `kept` ("k" or "v") left with its n_kv_heads heads (repeat_kv forgotten)."""
    def attend(self, p, n_heads, n_kv_heads, q, k, v, mask, d_model):
        n_rep = n_heads // n_kv_heads
        k = k if kept == "k" else self.repeat_kv(k, n_rep)
        v = v if kept == "v" else self.repeat_kv(v, n_rep)
        y, _ = self.scaled_dot_product_attention(q, k, v, mask, d_k=self.head_width(d_model // n_heads, d_model))
        return self.out_projection(self.merge_heads(y), p["o_proj.weight"])
    return attend


def _repeated_before_update(self, p, n_heads, n_kv_heads, x, cache=None):
    """The cached forward repeating the KV heads before cache.update, so that the cache is handed n_heads heads."""
    if cache is None:
        return Reference.cached_attention(self, p, n_heads, n_kv_heads, x, cache)
    q, k, v = self._gqa_projections(p, n_heads, n_kv_heads, x)
    past, n_rep = len(cache), n_heads // n_kv_heads
    k, v = self.decode_keys(cache, self.repeat_kv(k, n_rep), self.repeat_kv(v, n_rep))
    return self._gqa_attend(p, n_heads, n_heads, q, k, v, self.decode_mask(x.size(1), past), x.size(-1))


def _split_no_transpose(self, x, n_heads):
    return x.reshape(x.size(0), n_heads, x.size(1), -1)


def _split_strided(self, x, n_heads):
    B, L, D = x.shape
    return x.view(B, L, D // n_heads, n_heads).permute(0, 3, 1, 2)


def _unmasked_with_cache(self, p, n_heads, n_kv_heads, x, cache=None):
    """The cached forward attending without any mask when a cache is given."""
    if cache is None:
        return Reference.cached_attention(self, p, n_heads, n_kv_heads, x, cache)
    q, k, v = self._gqa_projections(p, n_heads, n_kv_heads, x)
    k, v = self.decode_keys(cache, k, v)
    return self._gqa_attend(p, n_heads, n_kv_heads, q, k, v, None, x.size(-1))


def _forgetting_update(self, cache, k, v):
    """update that writes at position 0 and keeps only the new tokens: its state never advances."""
    T = k.size(2)
    cache.k[:, :, :T], cache.v[:, :, :T] = k, v
    cache.length = T
    return cache.k[:, :, :T], cache.v[:, :, :T]


def _new_tokens_update(self, cache, k, v):
    """update writing the new tokens after the past and counting them, that returns only them."""
    start, T = cache.length, k.size(2)
    cache.k[:, :, start:start + T], cache.v[:, :, start:start + T] = k, v
    cache.length = start + T
    return cache.k[:, :, start:start + T], cache.v[:, :, start:start + T]


def _overwriting_update(self, cache, k, v):
    """update writing the new tokens at position 0 (self.k[:, :, :T] = k) while its length advances."""
    T = k.size(2)
    cache.k[:, :, :T], cache.v[:, :, :T] = k, v
    cache.length += T
    return cache.k[:, :, :cache.length], cache.v[:, :, :cache.length]


def _scale_probes(named):
    """Scores divided by another quantity (or not at all) than the reference's √d_k (√d_head). Two
    quantities of one size give two probes of one value: the other calls decide between them."""
    width = "d_head" if "d_head" in named else "d_k"
    if width not in named:
        return []
    must = f" where they must be divided by √{width} = √{named[width]}" + (
        " (each head's own width)" if width == "d_head" else " (d_k = q.size(-1))")
    found = [("divisor:1", f"your scores are not divided by anything before the softmax{must}",
              _variant(scale_scores=lambda self, s, d_k: s))]
    for value, name, text in expressions(named):
        if name.endswith("²") or abs(value - math.sqrt(named[width])) < 1e-9:
            continue
        found.append((f"divisor:{name}", f"your scores are divided by {text}{_words(name)}{must}",
                      _variant(scale_scores=lambda self, s, d_k, v=value: s / v)))
    found.append((f"divisor:1/√{width}", f"your scores are multiplied by √{width}{must}",
                  _variant(scale_scores=lambda self, s, d_k: s * math.sqrt(d_k))))
    return found


def substitution_probes(call):
    """A value equal to what another input gives: each tensor input in the place of another of its shape
    (for a module, each weight in the place of another of its shape)."""
    found = []
    args = list(call["args"])
    names = traits.of(call["target"]).args
    if call.get("object") is None and names:
        for i, j in itertools.permutations(range(min(len(args), len(names))), 2):
            a, b = args[i], args[j]
            if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.is_floating_point() and \
                    b.is_floating_point() and a.dim() == b.dim() and (a.shape != b.shape or not torch.equal(a, b)):
                swapped = list(args)
                swapped[i] = b
                found.append((f"input:{names[j]}-for-{names[i]}", f"your result is what {call['target']} gives "
                              f"with `{names[j]}` passed in the place of `{names[i]}`: somewhere you use {names[j]} "
                              f"where {names[i]} belongs", {"args": tuple(swapped)}))
    return found


def axis_names(target, n):
    names = traits.of(target).axes
    if names is None:
        return None
    names = names[-n:] if len(names) >= n else None
    if names and (traits.has(target, "splits") or traits.has(target, "merges")):
        return list(names)
    return [f"the {name} axis" if name != "batch" else f"batch axis {i}" for i, name in enumerate(names)] if names else None


# -- one call --------------------------------------------------------------------------------------------


def length_findings(call, got, expected):
    """len(cache) that counts something else than the tokens cached."""
    made = call.get("object")
    if call.get("method") != "__len__" or made is None or not isinstance(got, int) or got == expected:
        return []
    args = dict(zip(("batch_size", "n_kv_heads", "d_head", "max_len"), made.args), **made.kwargs)
    history = call.get("history", ())
    updates = [event for event in history if event[0] is made and event[1] == "update"]
    if got == args.get("max_len"):
        return [Finding("len:max_len", "len(cache) is the storage's size, max_len: it must count the tokens cached so "
                        "far (0 for a new cache, + T_new = k.size(2) with each update)")]
    added = [n for n in (_tokens_added(event, made) for event in history) if n is not None]
    if added and got == added[-1]:  # (one update alone: got is expected)
        return [Finding("len:newest-update", "len(cache) is the newest update's token count only: it must count "
                        "every token cached so far, each update adding its T_new = k.size(2) to the length")]
    if updates and got == len(updates) and expected != len(updates):
        return [Finding("len:updates", "len(cache) counts the calls to update, not the tokens: each update adds "
                        "T_new = k.size(2) tokens")]
    return []


def _tokens_added(event, made):
    """The tokens one event of a cache's history added to it (`made`): an update's k.size(2), a module's call
    handed the cache x.size(1); None for another event, or one that raised (a refused update stores nothing)."""
    target, method, args, kwargs, got = event
    if isinstance(got, Raised) or not args or not isinstance(args[0], torch.Tensor):
        return None
    if target is made and method == "update" and args[0].dim() == 4:
        return args[0].shape[2]
    if method == "__call__" and any(value is made for value in (*args, *kwargs.values())) and args[0].dim() == 3:
        return args[0].shape[1]
    return None


def _storage_findings(call, got, expected, dtype, what):
    """cache.update returning its whole storage (max_len tokens), not the tokens cached so far."""
    if call.get("method") != "update" or not all(isinstance(t, torch.Tensor) for t in (*got, *expected)):
        return []
    T = expected[0].shape[2]
    if all(t.dim() == 4 and t.shape[2] > T and close(t[:, :, :T], e, dtype) for t, e in zip(got, expected)):
        return [Finding("cache:whole-storage", f"{what} returned the whole storage, {got[0].shape[2]} positions "
                        f"(max_len), not the {T} tokens cached so far: return the slices [:, :, :len(cache)]")]
    return []


# -- a call that raised: what its error and its line show ----------------------------------------------

_FRAME = re.compile(r"[^,]*, line (\d+), in ([^:]+): ?(.*)")  # a frame as the child describes it
_COMMENT = re.compile(r"\s*#[^'\"]*$")  # a line's trailing comment (one with no quote in it)
_NOT_CONTIGUOUS = "view size is not compatible with input tensor's size and stride"
_SIZES_CLASH = re.compile(r"size of tensor a \(\d+\) must match|Expected size for first two dimensions of batch2|"
                          r"shapes cannot be multiplied|must match the existing size")
_TWO_D_ONLY = re.compile(r"\b(self|mat1|mat2) must be a matrix")
_THREE_D_ONLY = re.compile(r"batch[12] must be a 3D tensor|Expected 3-dimensional tensor|expected 3D tensor")
_UNPACKED = re.compile(r"(?:too many|not enough) values to unpack \(expected (\d+)")
_EINSUM_FIXED = "does not match the number of dimensions"  # einsum's, for subscripts without '...'
_DTYPES_CLASH = re.compile(r"scalar type \w+ but found \w+|to have the same dtype|result type \w+ can't be cast|"
                           r"Found dtype \w+ but expected \w+")


_FLOAT_SIZE = re.compile(r"must be tuple of ints,\s*but (?:got|found element of type) float|"
                         r"'float' object cannot be interpreted as an integer|received an invalid combination of "
                         r"arguments.*\bfloat\b")
_BOOL_INDEX = re.compile(r"The shape of the mask \[([\d, ]*)\] at index \d+ does not match the shape of the indexed "
                         r"tensor \[([\d, ]*)\]")
_TRANSPOSE_2D = "t() expects a tensor with <= 2 dimensions"
_SCORES_1_2 = re.compile(r"transpose\(\s*1\s*,\s*2\s*\)")  # k's axes 1 and 2 swapped: scores:k-transposed-1-2
_UNPACK = re.compile(r"(not enough|too many) values to unpack \(expected (\d+)(?:, got (\d+))?\)")
_DIM_RANGE = re.compile(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)")
_VIEW_SIZE = re.compile(r"shape '\[([-\d, ]*)\]' is invalid for input of size (\d+)")


_EINSUM_EQUATION = re.compile(r"einsum\(\s*['\"]([a-zA-Z, \->]+)['\"]")


def _with_ellipsis(equation):
    """An einsum equation with every term of more than two letters led by '...' for all but its last two
    ('bld,dk->blk' -> '...ld,dk->...lk'): the batch dims, of any number."""
    inputs, _, output = equation.replace(" ", "").partition("->")
    terms = [term if len(term) <= 2 else "..." + term[-2:] for term in inputs.split(",")]
    result = ",".join(terms)
    return result if not output else result + "->" + (output if len(output) <= 2 else "..." + output[-2:])


def _view_size_text(found):
    """What a view or reshape asked for, against what the tensor holds (`found`: _VIEW_SIZE's match)."""
    sizes = [int(n) for n in found.group(1).split(",") if n.strip()]
    held, asked = int(found.group(2)), math.prod(n for n in sizes if n != -1)
    text = (f"a view (or reshape) keeps every number and only changes the shape, so the sizes must multiply to the "
            f"{held} numbers the tensor holds; {sizes} ")
    if -1 in sizes:
        return text + f"leaves -1 to be worked out, and {held} is not a whole multiple of the others' {asked}: is " \
                      "one of the sizes another tensor's?"
    if asked > held and asked % held == 0:
        return text + f"multiply to {asked}, {asked // held} times as many: is one of the sizes {asked // held} times " \
                      "too large, another tensor's?"
    if held > asked and held % asked == 0:
        return text + f"multiply to {asked}, {held // asked} times too few: is a size missing, or one " \
                      f"{held // asked} times too small?"
    return text + f"multiply to {asked}: is one of the sizes another tensor's?"


def raising_function(raised):
    """The name of the student's function whose line raised, or ''."""
    frames = [found for found in map(_FRAME.match, raised.frames) if found]
    return frames[-1].group(2) if frames else ""


def crash_place(raised):
    """'line 83, in merge_heads, `return x.view(B, L, H * d_head)`' (and the line of the student's that
    called it, when the line that raised is in another function): where the student's code raised."""
    frames = [found for found in map(_FRAME.match, raised.frames) if found]
    if not frames:
        return ""
    line, function, code = frames[-1].groups()
    code = _COMMENT.sub("", code).strip()
    place = f"line {line}, in {function}" + (f", `{code}`" if code else "")
    callers = [frame for frame in frames[:-1] if frame.group(2) != function]
    if callers:
        place += f" (called from line {callers[-1].group(1)}, in {callers[-1].group(2)})"
    return place


def crash_findings(call):
    """What a call that raised shows by its error and the line that raised it, when that names the
    mistake: a view of a tensor that is not contiguous, or to sizes that do not multiply to what it
    holds, a size made by `/`, a bool mask as an index (which does not broadcast), a .T or .t() on a
    batched tensor, a product that takes a fixed number of dims (torch.mm, torch.bmm, an einsum without '...'),
    Tensor.split given a count, an in-place edit the backward pass needed, a result written through
    out=, or two dtypes meeting where the inputs are not float32 (a tensor made in torch's default
    dtype)."""
    raised = call["got"]
    place = crash_place(raised)
    if raised.type == "RuntimeError" and AUTOGRAD_IN_PLACE in raised.message:
        return [Finding("crash:in-place-needed-by-autograd", f"{call_name(call)}: your code raised in the backward "
                        "pass: it needs a tensor that your code changed in place afterwards (copy_, mul_, add_, /=, "
                        "masked_fill_, an indexed assignment): autograd keeps the tensors a step used to compute its "
                        "gradient (torch.exp keeps its output), so write each new value to a new tensor (e = e / "
                        "total, p = p.masked_fill(...), l = l * alpha + ...) instead of updating one in place")]
    if raised.type not in ("RuntimeError", "ValueError", "TypeError", "IndexError") or not place:
        return []
    code = [found for found in map(_FRAME.match, raised.frames) if found][-1].group(3)
    at = f"your code raised at {place}: "
    if raised.type == "TypeError" and _FLOAT_SIZE.search(raised.message):
        return [Finding("crash:size-not-int", at + "a size must be a whole number, and `/` always gives a float (12 / 4 "
                        "is 3.0, not 3), also where it divides evenly: divide sizes with `//` (d_model // n_heads)")]
    shapes = _BOOL_INDEX.search(raised.message) if raised.type == "IndexError" else None
    if shapes:
        return [Finding("crash:bool-index-no-broadcast", at + "x[mask] with a bool mask picks entries, and the mask "
                        "must have x's own sizes from its first dim on: unlike arithmetic, indexing does not broadcast, "
                        f"so a mask of shape ({shapes.group(1)}) cannot index a tensor of shape ({shapes.group(2)}): "
                        "masked_fill and torch.where broadcast it (x.masked_fill(~mask, value))")]
    out_of_range = _DIM_RANGE.search(raised.message) if raised.type == "IndexError" else None
    if out_of_range and int(out_of_range.group(3)) >= 0 and re.search(
            rf"\bdim\s*=\s*{out_of_range.group(3)}\b|\b(?:transpose|swapaxes|movedim)\((?:\s*\d+\s*,)?\s*{out_of_range.group(3)}\b",
            code) and not _SCORES_1_2.search(code):  # dim=2, or transpose(2, 3)'s 3 (transpose(1, 2): its own finding)
        rank, n = -int(out_of_range.group(1)), int(out_of_range.group(3))
        return [Finding("crash:dim-from-the-front", at + f"dim {n} counts from the front, so it is the axis you mean "
                        f"only in tensors of one number of dims, and this one has {rank}: count from the end (dim=-1 "
                        "for the last axis), which names the same axis whatever batch dims sit in front")]
    if raised.type not in ("RuntimeError", "ValueError"):
        return []
    unpacked = _UNPACK.search(raised.message) if raised.type == "ValueError" else None
    if unpacked and re.search(r"=\s*[\w.]+\.(?:shape|size\(\))\s*$", code):
        return [Finding("crash:shape-unpacked", at + f"unpacking a tensor's shape into {unpacked.group(2)} names takes "
                        f"only tensors of {unpacked.group(2)} dims, and this one has {unpacked.group(3)}: take the "
                        "sizes you need from the end (L, d = x.shape[-2:]) and keep whatever batch dims sit in front "
                        "(x.shape[:-2])")]
    if _TRANSPOSE_2D in raised.message and re.search(r"\.t\(\)|\.t_\(\)|torch\.t\(", code):
        dims = raised.message.rsplit("self is ", 1)[-1].removesuffix(".")
        return [Finding("crash:t-on-batched", at + f".t() transposes a matrix, a tensor of at most 2 dims, and this one "
                        f"is {dims}: to swap the last two dims whatever sits in front of them (a batch, heads), use "
                        ".transpose(-2, -1) (or .mT)")]
    wrong_size = _VIEW_SIZE.search(raised.message)
    if wrong_size:
        return [Finding("crash:view-size-mismatch", at + _view_size_text(wrong_size))]
    if "out=" in code and AUTOGRAD_OUT in raised.message:
        return [Finding("crash:out-argument", at + "out= writes the result into a tensor you made, outside autograd's "
                        "record, so no gradient can flow back through it: let the operation make its own result "
                        "(y = a @ b)")]
    if _NOT_CONTIGUOUS in raised.message:
        return [Finding("crash:view-not-contiguous", at + ".view needs a tensor whose numbers lie in memory in the order "
                        "of the new shape; after a transpose or a permute they do not (the tensor is not contiguous), "
                        "nor after an expand, which repeats an axis without copying it (stride 0), so the view "
                        "cannot be made: call .contiguous() before .view, or use .reshape")]
    tensors = [t for t in leaves((call["args"], call["kwargs"])) if isinstance(t, torch.Tensor)]
    if _SIZES_CLASH.search(raised.message) and re.search(r"\.T\b", code) and any(t.dim() > 2 for t in tensors):
        return [Finding("crash:T-reverses-all-dims", at + ".T reverses ALL the dims of a tensor with more than two "
                        "(a (B, H, L, d) tensor becomes (d, L, H, B)), the batch dims too, so the shapes no longer "
                        "fit: swap only the last two, .transpose(-2, -1) (or .mT)")]
    if _SIZES_CLASH.search(raised.message) and raising_function(raised).strip() == "backward":
        return [Finding("crash:custom-backward-shapes", at + "your own backward pass (an autograd.Function's) "
                        "multiplies tensors whose shapes do not fit. Each gradient has the shape of the input it is "
                        "for, and for a product A @ B the gradient is g @ Bᵀ for A and Aᵀ @ g for B (for a factor "
                        "used transposed, B = Cᵀ, C's is that one transposed: gᵀ @ A): the transposes make the "
                        "shapes fit, and only seem optional while the sizes are equal. Or leave the gradient to "
                        "autograd: the forward alone, in torch operations, without an autograd.Function")]
    if _THREE_D_ONLY.search(raised.message) and re.search(r"\bbmm\b|\bbaddbmm\b", code):
        dims = " and ".join(sorted({str(t.dim()) for t in tensors}))
        return [Finding("crash:bmm-3d-only", at + f"torch.bmm takes exactly 3-D tensors, (batch, n, m) and (batch, "
                        f"m, p), and this call's inputs have {dims} dims: the scores must work with any dims in front "
                        "(none, a batch, a batch and heads); the @ operator (torch.matmul) broadcasts over them")]
    if _TWO_D_ONLY.search(raised.message) and re.search(r"\bmm\b|\baddmm\b", code):
        dims = " and ".join(sorted({str(t.dim()) for t in tensors}))
        return [Finding("crash:mm-2d-only", at + f"torch.mm multiplies exactly two 2-D matrices, and this call's inputs "
                        f"have {dims} dims: a step must work with any dims in front of the last two (none, a "
                        "batch, a batch and heads); the @ operator (torch.matmul) broadcasts over them")]
    unpacked = _UNPACKED.search(raised.message)
    if raised.type == "ValueError" and unpacked and re.search(r"\.split\(\s*" + unpacked.group(1) + r"\b", code):
        n = unpacked.group(1)
        return [Finding("crash:split-size-as-count", at + f"Tensor.split({n}) cuts into pieces of {n} entries each, "
                        f"not into {n} pieces, so there are as many pieces as the width holds {n}s: give it the width "
                        f"of one piece (split(d, dim=-1)), or ask for {n} pieces with chunk({n}, dim=-1)")]
    if _EINSUM_FIXED in raised.message and "no ellipsis" in raised.message and "einsum" in code:
        equation = _EINSUM_EQUATION.search(code)
        shown = f"'{_with_ellipsis(equation.group(1))}'" if equation else "'...qd,...kd->...qk'"
        return [Finding("crash:einsum-fixed-dims", at + "your einsum equation names one letter per dim, so it "
                        "takes tensors of exactly that many dims; these have " + " and ".join(
                            sorted({str(t.dim()) for t in tensors})) + " dims: write the leading dims as '...' "
                        f"(einsum({shown}, ...)), which stands for any number of them, none included")]
    floats = {t.dtype for t in tensors if t.is_floating_point()}
    if _DTYPES_CLASH.search(raised.message) and floats and torch.float32 not in floats:
        names = " and ".join(sorted(str(d).removeprefix("torch.") for d in floats))
        return [Finding("crash:dtype-made-float32", at + f"two tensors of different dtypes meet there ({raised.message}), "
                        f"and this call's inputs are {names}: {MADE_IN_FLOAT32}")]
    return []


# a dtype clash's likeliest cause, where no line that brought float32 in is known (grader.diagnosis.trails)
MADE_IN_FLOAT32 = ("a tensor made without dtype= is float32, torch's default (torch.zeros, ones, full, tensor, "
                   "arange): make it with dtype=x.dtype, or from an input (torch.zeros_like(x), x.new_zeros(...))")


# crash findings whose advice cures only the crash (.contiguous() before a view): beside another finding
# in the same function they are that mistake's consequence, not a mistake of their own
SYMPTOMS = {"crash:view-not-contiguous"}


# direct findings that other mistakes' values can coincide with on one call (a lone key's scores,
# squeezed or paired element-wise, are the same numbers): the probes are tried beside them
COINCIDENT = {"shape:squeezed"}


def coincident(key):
    """Whether a finding of `key` may coincide with another mistake's values: a squeeze, or a size."""
    return key in COINCIDENT or is_size(key)


def is_size(key):
    """A finding of an axis sized like something else of the call (`size_findings`): it names where
    a size came from, not why, so it gives way to any other finding all the calls agree on (a value
    another input gives has that input's size too)."""
    return key.split(":")[-3:-2] == ["size"]


def direct(call, expected, dtype):
    """Findings that need no replay: None returned, swapped values, a factor, axes, normalisation, masks;
    for a call that raised, what its error shows."""
    got, target = call["got"], call["target"]
    what = call_name(call)
    if isinstance(got, Raised):
        return crash_findings(call)
    if call.get("method") == "__len__":
        return length_findings(call, got, expected)
    if got is None and expected is not None:
        return [Finding("returned-none", f"{what} returned None: did you forget `return`?")]
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return []
        if any(item is None for item in got):
            return [Finding("returned-none", f"{what} returned a None in its tuple: did you forget to return one value?")]
        labels = (traits.of(target).method_labels.get(call.get("method")) if call.get("object") is not None
                  else traits.of(target).labels) or \
            [f"item {i}" for i in range(len(expected))]
        wrong = [i for i in range(len(expected)) if not close(got[i], expected[i], dtype)]
        if not wrong:
            return []
        for perm in itertools.permutations(range(len(expected))):
            if perm != tuple(range(len(expected))) and all(close(got[i], expected[perm[i]], dtype) for i in range(len(got))):
                order = ", ".join(labels[p] for p in perm)
                return [Finding("swapped:" + "-".join(labels[p] for p in perm),
                                f"{what} returned ({order}): the right values in the wrong order; return "
                                f"({', '.join(labels)})")]
        storage = _storage_findings(call, got, expected, dtype, what)
        if storage:
            return storage
        first = traits.of(target).explains_first
        for i in sorted(wrong, key=lambda i: first.index(i) if i in first else i):
            if isinstance(got[i], torch.Tensor) and isinstance(expected[i], torch.Tensor):
                item_what = f"the {labels[i]} from {what}"
                findings = _tensor_findings(call, got[i], expected[i], dtype, item_what, key_prefix=f"{labels[i]}:")
                if findings:
                    return findings  # the first item that shows something, in the order items explain each other
        return []
    if isinstance(expected, torch.Tensor) and isinstance(got, torch.Tensor):
        return _tensor_findings(call, got, expected, dtype, what)
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)) and not isinstance(got, bool):
        return factor_findings(call, got, expected, dtype, what)
    return []


def later_step_findings(call, got, want, dtype, what):
    """Scores that came out already softmaxed (a later step done here)."""
    if not traits.has(call["target"], "scores") or got.shape != want.shape or not torch.isfinite(want).all():
        return []
    named = quantities(call)
    for extra, how in ((1.0, ""), (math.sqrt(named.get("d_k", 1)), " of the scaled scores")):
        if close(got, torch.softmax(_f64(want) / extra, dim=-1), dtype):
            return [Finding("softmax-applied", f"{what}: your scores are already softmaxed (each row sums to 1: "
                            f"they are the weights{how}); this step returns the raw scores, and the softmax into "
                            "weights comes later (step 4)")]
    return []


def diagonal_findings(call, got, want, dtype, what):
    """One score per query (query i with key i only) instead of every query with every key."""
    if not traits.has(call["target"], "scores") or want.dim() < 2 or tuple(got.shape) != tuple(want.shape[:-1]):
        return []
    if want.shape[-1] != want.shape[-2] or want.shape[-1] < 2:
        return []
    if close(got, torch.diagonal(_f64(want), dim1=-2, dim2=-1), dtype):
        return [Finding("diagonal-only", f"{what}: {DIAGONAL}")]
    return []


DIAGONAL = ("your scores pair query i with key i only (an element-wise q * k summed over the width: the diagonal "
            "of Q Kᵀ); every query must be scored against every key, the matrix product q @ k.transpose(-2, -1) "
            "of shape (…, L_q, L_k)")


def outer_batch_findings(call, got, want, dtype, what):
    """Scores of every sequence's queries with every sequence's keys, (B, L_q, B, L_k): torch.tensordot, or
    an einsum whose batch letters differ, multiplies over every pair of batch entries."""
    tensors = [t for t in call["args"] if isinstance(t, torch.Tensor)][:2]
    if not traits.has(call["target"], "scores") or len(tensors) < 2 or tensors[0].dim() < 3:
        return []
    q, k = tensors
    batch = q.dim() - 2
    if tuple(got.shape) != (*q.shape[:-1], *k.shape[:-1]) or q.shape[:-2] != k.shape[:-2]:
        return []
    n, L_q, L_k = math.prod(q.shape[:-2]), q.shape[-2], k.shape[-2]
    order = [*range(batch), *range(batch + 1, 2 * batch + 1), batch, 2 * batch + 1]  # both batches, then L_q, L_k
    pairs = got.permute(order).reshape(n, n, L_q, L_k)
    if not close(torch.diagonal(pairs, dim1=0, dim2=1).movedim(-1, 0).reshape(want.shape), _f64(want), dtype):
        return []
    return [Finding("scores:outer-over-batch", f"{what}: your result has shape {tuple(got.shape)}, q's leading dims "
                    "then k's: it scores the queries of every sequence against the keys of every sequence, as "
                    "torch.tensordot (or an einsum whose batch letters differ) does, and only the pairs within one "
                    "sequence are wanted; share the batch dims: q @ k.transpose(-2, -1)")]


def finite_fill_findings(got, want, dtype, what):
    """Uniform weights, 1/L_k each, in the rows where every key is masked (zeros expected), and the
    other rows right: masked scores filled with a finite number (-1e9, finfo.min), not -inf."""
    if got.shape != want.shape or want.dim() < 2 or not got.is_floating_point() or want.shape[-1] < 2:
        return []
    got, want = got.double(), _f64(want)
    empty = (want == 0).all(dim=-1)  # the rows of a query that sees no key
    if not empty.any() or empty.all() or not close(got[~empty], want[~empty], dtype):
        return []
    if not torch.allclose(got[empty], torch.full_like(got[empty], 1.0 / want.shape[-1]), rtol=1e-3, atol=1e-6):
        return []
    return [Finding("mask:finite-fill", f"{what}: where every key of a query is masked, your weights are uniform, "
                    f"1/{want.shape[-1]} each, where they must be 0: masked scores filled with a finite number (-1e9, "
                    "finfo.min) leave that row's scores all equal, and a softmax of equal scores spreads the weight "
                    "evenly; fill with -inf, and give a row with no key zero weights (shift by 0 where the max is "
                    "-inf, divide by 1 where the sum is 0)")]


def flattened_findings(got, want, what):
    """A 1-D result holding as many numbers as the expected one: an operation without dim= flattened it."""
    if got.dim() != 1 or sum(n > 1 for n in want.shape) < 2 or got.numel() != want.numel():
        return []  # (with one axis longer than 1, a 1-D result is that axis squeezed: squeezed_findings)
    return [Finding("shape:flattened-to-1d", f"{what}: your result is 1-D, {tuple(got.shape)}, with as many numbers as "
                    f"the expected {tuple(want.shape)}: a step flattened the tensor, as repeat_interleave, repeat's "
                    "1-D form or flatten do when they are given no dim=: name the axis (dim=...)")]


def flatten_findings(got, want, dtype, what):
    """The right numbers in the right order, in more dims than expected: the final reshape is missing."""
    if got.dim() <= want.dim() or got.numel() != want.numel() or not got.is_floating_point():
        return []
    if not close(got.reshape(want.shape), _f64(want), dtype):
        return []
    return [Finding("shape:not-flattened", f"{what}: your result has the right numbers in the right order, but the "
                    f"shape {tuple(got.shape)} instead of {tuple(want.shape)}: the last reshape (a view to "
                    f"{tuple(want.shape)}, putting the last dims side by side) is missing")]


def merged_findings(got, want, dtype, what):
    """The right numbers in the right order, with two or more leading axes (of more than one entry)
    merged into one: a reshape(-1, d) that never reshapes back."""
    leading = [size for size in want.shape[:-1] if size != 1]
    if got.dim() != 2 or want.dim() < 3 or len(leading) < 2 or not got.is_floating_point():
        return []
    if tuple(got.shape) != (math.prod(want.shape[:-1]), want.shape[-1]) or not close(got.reshape(want.shape), _f64(want), dtype):
        return []
    return [Finding("shape:batch-merged", f"{what}: your result has the right numbers in the right order, but the "
                    f"shape {tuple(got.shape)} instead of {tuple(want.shape)}: its leading axes are merged into one, "
                    "what a reshape(-1, d) does; the result keeps the input's leading axes (@ and "
                    "nn.functional.linear keep them as they are)")]


def squeezed_findings(got, want, dtype, what):
    """The right numbers with every axis of size 1 dropped: a squeeze() with no dim."""
    kept = tuple(size for size in want.shape if size != 1)
    if got.dim() >= want.dim() or tuple(got.shape) != kept or not got.is_floating_point():
        return []
    if not close(got.reshape(want.shape), _f64(want), dtype):
        return []
    return [Finding("shape:squeezed", f"{what}: your result has the right numbers, but the shape {tuple(got.shape)} "
                    f"instead of {tuple(want.shape)}: every axis of size 1 is gone, what squeeze() with no dim does; "
                    "a query, a key or a batch of one is still an axis: squeeze only the dim you mean, or none")]


def _sizes_of_the_call(call):
    """{source: size} of a function's call, in the reference's argument names: each tensor's axes
    ("x.size(-1)", counted from the end, as they do not move with the batch dims), an integer
    argument ("L"), and the largest entry of a 1-D integer tensor ("max(lengths)")."""
    if call.get("object") is not None or not hasattr(Reference, call["target"]):
        return {}
    names = [name for name in inspect.signature(getattr(Reference, call["target"])).parameters][1:]
    sizes = {}
    for name, arg in zip(names, call["args"]):
        if isinstance(arg, torch.Tensor) and arg.is_floating_point():
            sizes.update({f"{name}.size({i - arg.dim()})": int(arg.shape[i]) for i in range(arg.dim())})
        elif isinstance(arg, torch.Tensor) and arg.dim() == 1 and arg.numel() and not arg.dtype == torch.bool:
            sizes[f"max({name})"] = int(arg.max())
        elif isinstance(arg, int) and not isinstance(arg, bool):
            sizes[name] = arg
    return sizes


def size_findings(call, got, want, what):
    """An axis of the wrong size that is the size of something else of the call: the length of x's
    last axis where the result's last axis is w's, the longest of the lengths where it is L. One
    finding per source that fits, for the other calls to decide between them."""
    if got.dim() != want.dim() or got.shape == want.shape:
        return []
    wrong = [axis for axis in range(got.dim()) if got.shape[axis] != want.shape[axis]]
    if len(wrong) != 1:
        return []
    axis = wrong[0] - got.dim()
    size, expected = got.shape[axis], want.shape[axis]
    sizes = _sizes_of_the_call(call)
    right = [source for source, value in sizes.items() if value == expected]
    sources = [source for source, value in sizes.items() if value == size]
    message = (f"{what}: axis {axis} of your result is {size}, what {_and(sources)} {'is' if len(sources) == 1 else 'are'}"
               f" here, where it should be {expected}" + (f", what {_and(right)} {'is' if len(right) == 1 else 'are'}"
                                                          if right else "")
               + ": read that axis's size from what the docstring says it is")
    return [Finding(f"size:{axis}:{source}", message) for source in sources]


def _and(names):
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _tensor_findings(call, got, want, dtype, what, key_prefix=""):
    findings = (mask_findings(call, got, want, dtype, what) or head_mapping_findings(call, got, want, dtype, what)
                or diagonal_findings(call, got, want, dtype, what) or outer_batch_findings(call, got, want, dtype, what)
                or finite_fill_findings(got, want, dtype, what))
    if not findings and got.is_floating_point() and want.is_floating_point():
        # a uniform row off by a factor is also a row not divided by its sum: both, for the other calls to decide
        findings = (factor_findings(call, got, want, dtype, what) + normalisation_findings(got, want, dtype, what)
                    or permutation_findings(got, want, dtype, what, axis_names(call["target"], want.dim()))
                    or later_step_findings(call, got, want, dtype, what)
                    or flatten_findings(got, want, dtype, what) or merged_findings(got, want, dtype, what)
                    or squeezed_findings(got, want, dtype, what) or flattened_findings(got, want, what))
    findings = findings or size_findings(call, got, want, what)
    return [Finding(key_prefix + f.key, f.message) for f in findings]


def call_name(call):
    """How a diagnosis names the function a call showed it in: 'scaled_scores(...)', 'len(cache)'."""
    if call.get("object") is not None:
        method = call.get("method")
        if method == "__len__":
            return "len(cache)"
        return f"{call['target']}{'' if method in (None, '__call__') else '.' + method}(...)"
    return f"{call['target']}(...)"
