"""Checks of what the student's code returned, each failing with one sentence a student can act on.

Every value arrives from the sandbox as a real tensor or plain value (see `wire`), so these checks
compare numbers the judge built itself. Expected values come from the float64 reference; the
tolerance depends on the dtype the student computed in.
"""

import torch

# (rtol, atol) for a student result in this dtype, compared with the float64 answer
TOLERANCES = {
    torch.float64: (1e-7, 1e-9),
    torch.float32: (1e-4, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}


class Mismatch(AssertionError):
    """A wrong answer. `message` is the one line the report shows."""

    def __init__(self, message, **details):
        super().__init__(message)
        self.message = message
        self.details = details


def shape_text(shape):
    return "(" + ", ".join(str(n) for n in shape) + ")"


def describe(value):
    """A short description of any value, never a dump of a long tensor."""
    if isinstance(value, torch.Tensor):
        return f"a {str(value.dtype).removeprefix('torch.')} tensor of shape {shape_text(value.shape)}"
    if isinstance(value, (tuple, list)):
        return f"a {type(value).__name__} of {len(value)} items"
    kind = getattr(value, "kind", None)  # a RemoteObject
    return f"an object of type {kind or type(value).__name__}"


def check_tensor(got, *, what, shape=None, dtype=None, device=None):
    """got is a tensor of this shape, dtype and device type (whichever are given)."""
    if not isinstance(got, torch.Tensor):
        raise Mismatch(f"{what} returned {describe(got)}, expected a tensor")
    if shape is not None and tuple(got.shape) != tuple(shape):
        raise Mismatch(_shape_message(what, tuple(got.shape), tuple(shape)))
    if dtype is not None and got.dtype != dtype:
        raise Mismatch(
            f"{what} is {str(got.dtype).removeprefix('torch.')}, expected "
            f"{str(dtype).removeprefix('torch.')} like its input: don't change the dtype"
        )
    if device is not None and got.device.type != torch.device(device).type:
        raise Mismatch(
            f"{what} is on {got.device.type}, expected {torch.device(device).type} like its input: "
            "create new tensors with device=x.device"
        )


def _shape_message(what, got, expected):
    if len(got) != len(expected):
        return (f"{what} has shape {shape_text(got)} ({len(got)} dims), expected "
                f"{shape_text(expected)} ({len(expected)} dims)")
    wrong = [axis for axis in range(len(got)) if got[axis] != expected[axis]]
    axes = ", ".join(f"axis {axis - len(got)} is {got[axis]} not {expected[axis]}" for axis in wrong)
    hint = ""
    if sorted(got) == sorted(expected):
        hint = ": the right sizes in the wrong order, is a transpose missing or on the wrong axes?"
    return f"{what} has shape {shape_text(got)}, expected {shape_text(expected)} ({axes}){hint}"


def check_close(got, expected, *, what, dtype=None, nan_hint=""):
    """got matches the float64 `expected` within the tolerance of `dtype` (default: got's dtype).

    Non-finite expected entries (-inf in a masked score) must match exactly.
    """
    check_tensor(got, what=what, shape=expected.shape)
    if got.dtype == torch.bool or expected.dtype == torch.bool:
        return _check_equal(got, expected, what=what)
    rtol, atol = TOLERANCES.get(dtype or got.dtype, TOLERANCES[torch.float32])
    got64 = got.detach().to("cpu", torch.float64)
    want = expected.detach().to("cpu", torch.float64)
    finite = torch.isfinite(want)
    bad_nan = torch.isnan(got64) & ~torch.isnan(want)
    if bad_nan.any():
        raise Mismatch(_nan_message(what, bad_nan, nan_hint), got=got64, expected=want)
    exact_wrong = ~finite & ~((got64 == want) | (torch.isnan(got64) & torch.isnan(want)))
    close = torch.isclose(got64, want, rtol=rtol, atol=atol) | ~finite
    wrong = ~close | exact_wrong
    if wrong.any():
        index = _first(wrong)
        raise Mismatch(
            f"{what} is wrong at {list(index)}: got {_number(got64[index])}, expected "
            f"{_number(want[index])}; {int(wrong.sum())} of {wrong.numel()} values are off "
            f"(tolerance {atol:g} + {rtol:g}·|expected|)",
            got=got64, expected=want,
        )


def _check_equal(got, expected, *, what):
    if got.dtype != expected.dtype:
        raise Mismatch(f"{what} is {str(got.dtype).removeprefix('torch.')}, expected "
                       f"{str(expected.dtype).removeprefix('torch.')}")
    wrong = got.to("cpu") != expected.to("cpu")
    if wrong.any():
        index = _first(wrong)
        raise Mismatch(
            f"{what} is wrong at {list(index)}: got {got[index].item()}, expected {expected[index].item()}; "
            f"{int(wrong.sum())} of {wrong.numel()} entries differ",
            got=got.to("cpu"), expected=expected.to("cpu"),
        )


def _nan_message(what, bad, hint):
    where = _first(bad)
    count = int(bad.sum())
    text = f"{what} has NaN at {count} position{'s' * (count > 1)}, first at {list(where)}"
    return f"{text}: {hint}" if hint else text


def check_unchanged(before, after, *, what):
    """The student's code left an input as it was (no in-place edits)."""
    if isinstance(after, torch.Tensor) and after.shape == before.shape:
        same = (after == before) | (torch.isnan(after) & torch.isnan(before))
        if bool(same.all()):
            return
        where = f" (first change at {list(_first(~same))})"
    else:
        where = ""
    raise Mismatch(
        f"your code modified its input `{what}` in place{where}: build a new tensor instead "
        "(masked_fill, not masked_fill_; x = x / s, not x /= s)"
    )


def _first(mask):
    """The first True position of a bool tensor, as a tuple index."""
    return tuple(int(i) for i in mask.nonzero()[0])


def _number(x):
    value = float(x)
    return f"{value:.6g}"
