"""Checks of what the student's code returned, each failing with one sentence a student can act on.

Every value arrives from the sandbox as a real tensor or plain value (see `grader.sandbox.wire`), so these checks
compare numbers the judge built itself. Expected values come from the float64 reference. A message
names what is wrong in plain words (which axis of a shape, the first wrong position with both
values and the tolerance, where a NaN is and what usually makes one, a dtype or device that
changed, an input changed in place) and summarises long tensors instead of printing them.

The tolerance policy, stated once. A result computed in a dtype with unit roundoff u (u = 2^-53,
2^-24, 2^-11, 2^-8 for float64, float32, float16, bfloat16) may differ from the exact answer y by

    |got - y|  <=  atol + rtol·|y|  +  ROUNDING_STEPS · u · magnitude

- `rtol`, `atol` (TOLERANCES, per dtype) cover what every honest method shares: the inputs and
  the result rounded to the dtype, and a few dozen roundings of values of the result's own size
  (a module's projections, softmax and weighted sum). float32 allows 1e-4 (about 1700 u), float16
  1e-2 (20 u) and bfloat16 3e-2 (8 u), where each step rounds to the half type. float64 allows
  1e-10 (about 10^6 u): a float64 result computed through a float32 step anywhere (an accumulator,
  a cast) is off by float32's rounding, about 6e-8 relative, and fails.
- `magnitude` is the problem's conditioning, given by the check where it matters: the size of
  the values a correct method has to round on the way, which can dwarf the result. A sum of
  products cancels to a small entry from large terms, so a product's entries may be off by
  a multiple of u·(|A| @ |B|) whatever the summation order (`product_magnitude`: einsum, a loop
  and @ all differ there). A softmax at scores x loses the absolute error of its exponent,
  u·|x|, relative to each weight: at scores of 1e4 in float32 no method promises better than
  about 6e-4 relative, and max-shift, exp(x - logsumexp(x)) and exp(log_softmax(x)) all land
  within a few u·|x| (`softmax_magnitude`); attention carries that into its output
  (`attention_magnitude`). ROUNDING_STEPS = 16 is the small constant of a backward-stable
  method's error bound c·u·magnitude; a wrong formula misses by a sizeable fraction of the
  magnitude itself, thousands of times more.
- Non-finite expected entries (-inf where a score is masked) must match exactly, and bool
  results (masks) must be equal.
"""

import math

import torch

from grader.sandbox.wire import dtype_text  # the one name of a dtype (the suites take it from here)

# (rtol, atol) for a student result in this dtype, compared with the float64 answer
TOLERANCES = {
    torch.float64: (1e-10, 1e-12),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (3e-2, 3e-2),
}
UNIT_ROUNDOFF = {torch.float64: 2.0 ** -53, torch.float32: 2.0 ** -24, torch.float16: 2.0 ** -11,
                 torch.bfloat16: 2.0 ** -8}
ROUNDING_STEPS = 16
PICTURE_SIZE = 16  # rows and columns of a picture at most (the tests' matrices are smaller)
SHOWN_VALUES = 6  # a tensor with at most this many values is shown in full, a longer one summarised


class Mismatch(AssertionError):
    """A wrong answer. `message` is the one line the report shows; `details` carry what front ends
    and the diagnosis use (the values, a `picture`, the `call` to replay, a `cause` id where the
    message itself names the mistake: a dtype or device changed, an input changed in place, and the
    `symptom`, the message without its remedy, where an example shows what went wrong). A detail given
    as None is not given."""

    def __init__(self, message, **details):
        super().__init__(message)
        self.message = message
        self.details = {key: value for key, value in details.items() if value is not None}


PLURAL_VERBS = {"is": "are", "has": "have"}


def agree(what, verb):
    """`verb` ("is" or "has") agreeing with `what`: plural when `what` names plural things, as an
    item's label does ("weights from f(q, k, v)", "keys from cache.update(k, v)"); a call
    ("split_heads(x, 3)") or "the gradient of ..." is singular."""
    words = what.split()
    head = words[1] if len(words) > 1 and words[0] == "the" else words[0] if words else ""
    plural = head.isalpha() and head.endswith("s") and not head.endswith(("ss", "us", "is", "as"))
    return PLURAL_VERBS[verb] if plural else verb


def shape_text(shape):
    """A shape as Python writes it: (2, 3), (3,), ()."""
    return str(tuple(int(n) for n in shape))


def describe(value):
    """A short description of any value, never a dump of a long tensor."""
    if isinstance(value, torch.Tensor):
        return f"a {dtype_text(value.dtype)} tensor of shape {shape_text(value.shape)}"
    if value is None:
        return "None"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {plural(len(value), 'item')}"
    kind = getattr(value, "kind", None)  # a RemoteObject
    return f"an object of type {kind or type(value).__name__}"


def summarise(value):
    """A value as a message shows it: numbers and short tensors in full, a long tensor by its shape
    and range (and how many of its values are NaN), anything else described."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return repr(value)
    if not isinstance(value, torch.Tensor):
        return describe(value)
    if value.numel() <= SHOWN_VALUES:
        return f"tensor({value.detach().cpu().tolist()})"
    text = describe(value)
    if value.is_floating_point():
        values = value.detach().to("cpu", torch.float64)
        finite = values[torch.isfinite(values)]
        if finite.numel():
            text += f" with values from {_number(finite.min())} to {_number(finite.max())}"
        nan = int(torch.isnan(values).sum())
        if nan:
            text += f", {nan} of them NaN"
    return text


def check_tensor(got, *, what, shape=None, dtype=None, device=None):
    """got is a tensor of this shape, dtype and device type (whichever are given)."""
    if got is None:
        raise Mismatch(f"{what} returned None: did you forget `return`?")
    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"{what} returned {describe(got)}, expected a tensor")
    if shape is not None and tuple(got.shape) != tuple(shape):
        raise Mismatch(_shape_message(what, tuple(got.shape), tuple(shape)))
    if dtype is not None and got.dtype != dtype:
        raise Mismatch(_dtype_message(what, got.dtype, dtype), cause=_dtype_cause(dtype))
    if device is not None and got.device.type != torch.device(device).type:
        raise Mismatch(
            f"{what} {agree(what, 'is')} on {got.device.type}, expected {torch.device(device).type} like its input: "
            "create new tensors with device=x.device", cause="device-changed"
        )


def _dtype_cause(expected):
    """The diagnosis id of a wrong dtype: a mask that is not bool, or a float result whose dtype changed."""
    return "mask-not-bool" if expected == torch.bool else "dtype-changed"


# a changed dtype's general advice, which grader.diagnosis.trails replaces by the line where it changed
KEEP_THE_DTYPE = "don't change the dtype"


def _dtype_message(what, got, expected):
    text = f"{what} {agree(what, 'is')} {dtype_text(got)}, expected {dtype_text(expected)}"
    if expected == torch.bool:
        return (f"{text}: a mask says yes or no for each (query, key) pair, and ~mask needs bool: build it "
                "with dtype=torch.bool")
    return f"{text} like its input: {KEEP_THE_DTYPE}"


def _shape_message(what, got, expected):
    if len(got) != len(expected):
        text = (f"{what} {agree(what, 'has')} shape {shape_text(got)} ({len(got)} dims), expected "
                f"{shape_text(expected)} ({len(expected)} dims)")
        return text + _axis_of_one(got, expected)
    wrong = [axis for axis in range(len(got)) if got[axis] != expected[axis]]
    axes = ", ".join(f"axis {axis - len(got)} is {got[axis]} not {expected[axis]}" for axis in wrong)
    hint = ""
    if sorted(got) == sorted(expected):
        hint = ": the right sizes in the wrong order, is a transpose missing or on the wrong axes?"
    return f"{what} {agree(what, 'has')} shape {shape_text(got)}, expected {shape_text(expected)} ({axes}){hint}"


def _axis_of_one(got, expected):
    """': ...' when the shapes differ by one axis of size 1, saying where; '' otherwise."""
    longer, shorter = (expected, got) if len(expected) > len(got) else (got, expected)
    if len(longer) != len(shorter) + 1:
        return ""
    for axis in range(len(longer)):
        if longer[axis] == 1 and longer[:axis] + longer[axis + 1:] == shorter:
            if longer is expected:
                return f": axis {axis} of size 1 is missing (which step of yours drops it, or never makes it?)"
            return f": there is an extra axis {axis} of size 1 (which step of yours adds it?)"
    return ""


def allowed_error(want, dtype, magnitude=None):
    """The policy above: how far a result in `dtype` may be from the float64 `want`, per entry."""
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    allowed = atol + rtol * want.abs()
    if magnitude is not None:
        unit = UNIT_ROUNDOFF.get(dtype, UNIT_ROUNDOFF[torch.float32])
        allowed = allowed + ROUNDING_STEPS * unit * _finite(torch.as_tensor(magnitude, dtype=torch.float64))
    return allowed


def product_magnitude(a, b):
    """The conditioning of a @ b: |a| @ |b|, the size of the terms each entry sums."""
    return a.abs() @ b.abs()


def softmax_magnitude(x, weights, dim=-1):
    """The conditioning of softmax(x) along dim: each weight times the largest finite |x| of its slice."""
    return weights.abs() * _finite(x.abs()).amax(dim=dim, keepdim=True)


def attention_magnitude(q, k, v, weights):
    """The conditioning of softmax(q kᵀ / √d) v: (for the output, for the weights). The scores'
    bound |q| @ |k|ᵀ / √d stands for x in `softmax_magnitude`, and the output adds the weighted
    sum's own terms."""
    scores = product_magnitude(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    weights_magnitude = softmax_magnitude(scores, weights)
    return (weights_magnitude + weights.abs()) @ v.abs(), weights_magnitude


def _finite(values):
    return torch.where(torch.isfinite(values), values, torch.zeros_like(values))


def check_close(got, expected, *, what, dtype=None, nan_hint="", picture=None, magnitude=None, tiny_causes=True):
    """got matches the float64 `expected` within the tolerance of `dtype` (default: got's dtype)
    and the problem's `magnitude` (see the policy above; None: no conditioning term).
    `tiny_causes`: whether a tiny float64 error may be named (an epsilon, float32 rounding; see
    _tiny_error_hint): not for a gradient, whose error has none of a value's row structure.

    Non-finite expected entries (-inf in a masked score) must match exactly. `picture` ("mask" or
    "weights") puts the failing query-by-key slice of both in the Mismatch, for the report to draw.
    """
    check_tensor(got, what=what, shape=expected.shape)
    if got.dtype == torch.bool or expected.dtype == torch.bool:
        return _check_equal(got, expected, what=what, picture=picture)
    dtype = dtype or got.dtype
    rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
    got64 = got.detach().to("cpu", torch.float64)
    want = expected.detach().to("cpu", torch.float64)
    if magnitude is not None:
        magnitude = torch.as_tensor(magnitude, dtype=torch.float64).to("cpu").expand_as(want)
    allowed = allowed_error(want, dtype, magnitude)
    finite = torch.isfinite(want)
    exact_wrong = ~finite & ~((got64 == want) | (torch.isnan(got64) & torch.isnan(want)))
    close = ((got64 - want).abs() <= allowed) | ~finite
    wrong = ~close | exact_wrong
    if not wrong.any():
        return None
    index = _first(wrong)
    details = {"got": got64, "expected": want, **_picture_details(got64, want, index, picture)}
    bad_nan = torch.isnan(got64) & ~torch.isnan(want)
    if bad_nan.any():
        raise Mismatch(_nan_message(what, got64, want, bad_nan, nan_hint), **details)
    overflow = torch.isinf(got64) & finite
    if overflow.any():
        raise Mismatch(_inf_message(what, got64, overflow, nan_hint), **details)
    got_text, want_text = _number(got64[index]), _number(want[index])
    if got_text == want_text:  # off in a digit the short form hides
        got_text, want_text = f"{float(got64[index]):.17g}", f"{float(want[index]):.17g}"
    conditioning = _conditioning(dtype, magnitude, index)
    if not conditioning:  # the dtype's own tolerance: a report listing mismatches may say it once for all
        details["tolerance"] = {"dtype": dtype_text(dtype), "text": f"{atol:g} + {rtol:g}·|expected|"}
    cause, hint = _tiny_error(dtype, got64, want, wrong) if tiny_causes else (None, "")
    raise Mismatch(
        f"{what} {agree(what, 'is')} wrong at {list(index)}: got {got_text}, expected {want_text}; "
        f"{int(wrong.sum())} of {wrong.numel()} values are off "
        f"(tolerance {atol:g} + {rtol:g}·|expected|{conditioning}){hint}",
        cause=cause, **details,
    )


FLOAT32_ROUNDING = 2.0 ** -24  # the largest relative change rounding one number to float32 makes


def _tiny_error(dtype, got, want, wrong):
    """(cause id, hint) of a float64 result off by a tiny amount (1e-10 to 1e-5 of its size), told by
    where the error is largest and how it scales: all of it one factor, float32's rounding of one
    number, is a constant made in float32; each row (the last axis) the right one times a factor just
    below 1, so the error is largest where the row's denominator is smallest, is an epsilon added to
    a denominator (or a clamp on it); an error about float32's rounding, 6e-8 relative, on nearly
    every value and of either sign is a step that computes in float32, and one far below it (no cause:
    a hint) a number written with fewer digits than float64's; anything else: (None, '')."""
    if dtype != torch.float64:
        return None, ""
    finite = torch.isfinite(want) & torch.isfinite(got)
    if not (finite & wrong).any():
        return None, ""
    scale = float(want.abs()[finite].amax())
    error = float((got - want).abs()[finite & wrong].amax()) / max(scale, 1e-300)
    if not 1e-10 < error < 1e-5:
        return None, ""
    sizeable = finite & (want.abs() >= 1e-3 * scale)  # entries whose relative error means something
    shrinks = _row_factor_below_one(got, want, sizeable, scale)
    # one row has one factor whatever made it, an epsilon as well as a constant rounded to float32 (round 75's 1-D
    # online_softmax call told lucidrains' epsilon "float32"): the other calls tell them apart
    if shrinks is not None and want.numel() == want.size(-1):
        return None, ""
    if shrinks is not None and shrinks[1] >= 0.999 * shrinks[0]:  # one factor for the whole result
        power = math.log10(shrinks[0])
        if abs(power - round(power)) < 0.002:  # 1 - 1e-08 to 0.5%: an epsilon over a divisor of 1, not a rounding
            return "epsilon-in-divisor", (f"; all of yours is the expected result times one factor, 1 - {shrinks[0]:.1g}, a "
                    f"round power of ten that float32's rounding of a number would not give: an epsilon ({shrinks[0]:.0e}) "
                    "added to a divisor of about 1 does that (a sum where one score dominates), not float32 — divide by "
                    "the value itself and guard only a sum of 0 (torch.where)")
        if shrinks[0] <= 1.01 * FLOAT32_ROUNDING:
            return "float32-constant", (f"; all of yours is the expected result times one factor, 1 - {shrinks[0]:.1g}: that is one number "
                    "rounded to float32 (a divisor or a scale made in float32: a tensor made without dtype=, a "
                    ".float()) — make it in the inputs' dtype")
        return "epsilon-in-divisor", (f"; all of yours is the expected result times one factor, 1 - {shrinks[0]:.1g}, larger than "
                f"float32's rounding of one number: a small constant (about {_order(shrinks[0])} of it) added to a "
                "divisor does that — divide by the value itself")
    if shrinks is not None:
        shrink = shrinks[0]
        return "epsilon-in-divisor", (f"; each row of yours is the expected one times a factor just below 1, 1 - δ with δ up to "
                f"{shrink:.1g}: an epsilon (about {_order(shrink)}) added to a denominator, or a clamp on it, does "
                "that (δ = ε / (sum + ε), largest where the sum is small), not float32 rounding — divide by the "
                "sum itself and guard only a sum of 0 (torch.where)")
    signs = torch.sign(got - want)[sizeable & wrong]
    everywhere = int((sizeable & wrong).sum()) >= 0.5 * int(sizeable.sum())
    if not (everywhere and bool((signs > 0).any()) and bool((signs < 0).any())):
        return None, ""
    if error < FLOAT32_ROUNDING / 4:  # far below what a step in float32 leaves on the largest values
        return None, (f"; that is about {error:.0e} of the largest value, far below float32's rounding (6e-8): not a "
                      "step in float32, but a number with fewer digits than float64 holds does that (a constant "
                      "written to 8 or 9 digits, such as log2(e) = 1.44269504): write it in full, or compute it")
    return "computes-in-float32", ("; that is the size of float32 rounding: a step of yours computes in float32 (a tensor made "
            "without dtype=, a .float(), a Python list turned into a default-dtype tensor) — keep "
            "every step in the inputs' dtype")


def _row_factor_below_one(got, want, sizeable, scale):
    """(the largest 1 - c, the smallest) when every row with two or more sizeable entries is the
    expected row times its own c < 1, to float64's rounding (and the other entries off by no more),
    else None."""
    if want.dim() == 0 or want.size(-1) < 2:
        return None
    width = want.size(-1)
    rows_got, rows_want, counted = got.reshape(-1, width), want.reshape(-1, width), sizeable.reshape(-1, width)
    used = counted.sum(dim=-1) >= 2
    if not used.any():
        return None
    ratio = torch.where(counted, rows_got / torch.where(counted, rows_want, torch.ones_like(rows_want)),
                        torch.full_like(rows_got, float("nan")))[used]
    factor = ratio.nanmean(dim=-1, keepdim=True)
    spread = (ratio - factor).abs().nan_to_num(0.0).amax(dim=-1)
    shrink = 1 - factor.squeeze(-1)
    if not bool((shrink > 0).all()) or not bool((spread <= 1e-3 * shrink + 1e-14).all()):
        return None
    largest, smallest = float(shrink.amax()), float(shrink.amin())
    others = ~sizeable & torch.isfinite(want)
    if not bool(((got - want).abs()[others] <= 1.001 * largest * want.abs()[others] + 1e-14 * scale).all()):
        return None
    return largest, smallest


def _order(x):
    """The power of ten nearest x: 6.7e-09 -> '1e-08'."""
    return f"{10.0 ** round(math.log10(x)):.0e}"


def _conditioning(dtype, magnitude, index):
    """' + 0.0096 for the size of the values rounded on the way' (or '' without a magnitude)."""
    if magnitude is None:
        return ""
    unit = UNIT_ROUNDOFF.get(dtype, UNIT_ROUNDOFF[torch.float32])
    return f" + {ROUNDING_STEPS * unit * float(magnitude[index]):.2g} for the size of the values rounded on the way"


def _check_equal(got, expected, *, what, picture=None):
    if got.dtype != expected.dtype:
        raise Mismatch(_dtype_message(what, got.dtype, expected.dtype), cause=_dtype_cause(expected.dtype))
    got, expected = got.to("cpu"), expected.to("cpu")
    wrong = got != expected
    if wrong.any():
        index = _first(wrong)
        raise Mismatch(
            f"{what} {agree(what, 'is')} wrong at {list(index)}: got {got[index].item()}, "
            f"expected {expected[index].item()}; "
            f"{int(wrong.sum())} of {wrong.numel()} entries differ",
            got=got, expected=expected, **_picture_details(got, expected, index, picture),
        )


def _nan_message(what, got, want, bad, hint):
    count = int(bad.sum())
    where = _first(bad)
    if got.dim() < 2:
        text = f"{what} {agree(what, 'has')} NaN at {plural(count, 'position')}, first at {list(where)}"
        return f"{text}: {hint}" if hint else text
    row = where[:-1]
    rows = int(bad.any(dim=-1).sum())
    whole = bool(bad[row].all())
    text = (f"{what} {agree(what, 'has')} NaN in {plural(rows, 'row')} (a row is the last axis), "
            f"first in row {list(row)}"
            f"{', all of it' if whole else f' at column {where[-1]}'}")
    if hint:
        return f"{text}: {hint}"
    if whole and bool((want[row] == 0).all()):
        return (f"{text}: is every key masked there? A row of only -inf must give zeros, not 0/0 = NaN "
                "(shift by 0 where the max is -inf, divide by 1 where the sum is 0)")
    return (f"{text}: NaN comes from 0/0, inf/inf, inf - inf or 0 × inf: did e^x overflow (it is inf above about "
            "88 in float32; subtract the row's max first), is a whole row -inf, or was a 0 multiplied by an inf "
            "(a mask of 0s and 1s times -inf)?")


def _inf_message(what, got, overflow, hint):
    count = int(overflow.sum())
    where = _first(overflow)
    sign = "-inf" if got[where] < 0 else "inf"
    text = (f"{what} {agree(what, 'has')} {sign} at {plural(count, 'position')} where a number is expected, "
            f"first at {list(where)}")
    if hint:
        return f"{text}: {hint}"
    if sign == "-inf":
        return f"{text}: is something masked that may be seen (a mask the wrong way round)?"
    return f"{text}: did a value overflow (e^x is inf above about 88 in float32)?"


def check_unchanged(before, after, *, what, call=None):
    """The student's code left an input as it was (no in-place edits); `call`: the function's name,
    as the message names it."""
    if isinstance(after, torch.Tensor) and after.shape == before.shape:
        after, before = after.to("cpu"), before.to("cpu")
        same = (after == before) | (torch.isnan(after) & torch.isnan(before))
        if bool(same.all()):
            return
        index = _first(~same)
        changed = int((~same).sum())
        where = (f" ({changed} of {same.numel()} entries changed, the first at {list(index)}: "
                 f"{_value(before[index])} became {_value(after[index])})")
        remedy = "masked_fill, not masked_fill_; x = x / s, not x /= s or x[...] = ..."
    else:
        where = f" (it is now {describe(after)}, it was {describe(before)})"
        remedy = "x.unsqueeze(0), not x.unsqueeze_(0); k.transpose(-2, -1), not k.transpose_(-2, -1)"
    symptom = f"{call or 'your code'} modified its input `{what}` in place{where}"
    raise Mismatch(f"{symptom}: build a new tensor instead ({remedy})", cause="input-changed-in-place",
                   symptom=symptom)


# -- pictures ----------------------------------------------------------------------------------------


def _picture_details(got, expected, index, kind):
    """{"picture": ...} for a failing mask or weight matrix, {} otherwise."""
    if kind is None or got.dim() < 2:
        return {}
    rows = "queries"
    if got.dim() >= 3 and got.shape[-2] == 1:  # a padding mask (B, 1, L): a row per sequence
        got, expected, index, rows = got[..., 0, :], expected[..., 0, :], index[:-2] + index[-1:], "sequences"
    where = tuple(index[:-2])
    got, expected = got[where], expected[where]
    if got.dim() == 1:
        got, expected = got[None], expected[None]
    picture = {"kind": kind, "slice": list(where), "rows": rows, "columns": "keys", "shape": list(got.shape),
               "expected": picture_cells(expected, kind), "got": picture_cells(got, kind)}
    note = _finite_mask_note(got) if kind == "mask" else ""
    if note:
        picture["note"] = note
    return {"picture": picture}


# A masked score is -inf; a finite one this negative masks too (its weight underflows to 0), so a
# picture draws it as masked: by what the code does, not by how it writes it.
MASKED_BELOW = -1e4


def _finite_mask_note(got):
    """What to say when masked scores are a large finite number instead of -inf."""
    if got.dtype == torch.bool:
        return ""
    finite = got[torch.isfinite(got) & (got <= MASKED_BELOW)]
    if not finite.numel():
        return ""
    return (f"your masked scores are {float(finite.min()):g}, a finite number, drawn as masked: a row whose every "
            "key is masked then softmaxes to equal weights over keys it must not see (with -inf it gives zeros)")


def picture_cells(matrix, kind):
    """A matrix as JSON-safe rows: a mask as 1 (may attend) / 0, a weight rounded; NaN as "nan". In
    masked scores, -inf and large finite negative numbers (at most MASKED_BELOW) are masked."""
    matrix = matrix[:PICTURE_SIZE, :PICTURE_SIZE]
    if matrix.dtype == torch.bool:
        return matrix.int().tolist()
    rows = []
    for row in matrix.tolist():
        if kind == "mask":  # masked scores: -inf is masked, any number is kept
            rows.append([_non_finite(x) if x != x else (0 if x <= MASKED_BELOW else 1) for x in row])
        else:
            rows.append([round(x, 3) if abs(x) != float("inf") and x == x else _non_finite(x) for x in row])
    return rows


def _non_finite(x):
    return "nan" if x != x else ("inf" if x > 0 else "-inf")


# -- small helpers -----------------------------------------------------------------------------------


def _first(mask):
    """The first True position of a bool tensor, as a tuple index."""
    return tuple(int(i) for i in mask.nonzero()[0])


def _number(x):
    value = float(x)
    return f"{value:.6g}"


def _value(x):
    return str(bool(x)) if x.dtype == torch.bool else _number(x)


def plural(count, noun):
    """'1 position', '2 positions'."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
