"""Where a failed call went wrong in the student's code, from what the child saw while replaying it.

Two mistakes say only their symptom: a result in another dtype than its inputs (or two dtypes that
clash inside the student's code), and a gradient that is not finite where the reference's is. For
each, the first failed call a diagnosis explains runs once more in the student's confined process
with a trail on: the dtype trail (grader.sandbox.dtype_trail) says where the dtype entered (a cast, a
tensor made without `dtype=`, or one made before the call), the gradient trail
(grader.sandbox.gradient_trail) which line's backward pass first made an inf or a NaN. The located
text replaces the message's general advice. It shares the time of the exercise's examples
(grader.diagnosis.examples.Budget); anything the student's code does here costs only that text.
"""

import re

from grader.diagnosis.analysers import MADE_IN_FLOAT32
from grader.grading.compare import KEEP_THE_DTYPE
from grader.grading.testkit import Made, one_thread
from grader.nested import leaves
from grader.sandbox.judge import printable

DTYPE_IDS = {"dtype-changed", "crash:dtype-made-float32"}  # the diagnoses whose text names a likeliest cause
GENERAL = (KEEP_THE_DTYPE, MADE_IN_FLOAT32)  # that cause, which a located line replaces
KINDS = {"made", "cast", "met"}
MAX_TEXT = 400  # characters of one field the child sends: a line of code, quoted


# -- a changed dtype ---------------------------------------------------------------------------------


def dtype_located(message, student, calls, budget):
    """`message` with its general advice replaced by the line where the dtype entered, or unchanged."""
    general = next((text for text in GENERAL if message.endswith(text)), None)
    if general is None:
        return message
    entered = _first(calls, budget, student, _dtype_trail, ("where", "kind", "dtype", "from"))
    if entered is None or entered["kind"] not in KINDS:
        return message
    return message[:-len(general)] + dtype_advice(entered)


def _dtype_trail(student, call):
    if call.get("check") or call.get("history") or any(
            isinstance(value, Made) for value in leaves((call["args"], call["kwargs"]))):
        return None  # a check's call, or one after others on the same object (its past would have to be replayed)
    made = call.get("object")
    if made is None:
        return student.run(call["target"], *call["args"], dtype_trail=True, **call["kwargs"])["entered"]
    dtype = next((t.dtype for t in leaves((call["args"], call["kwargs"]))
                  if hasattr(t, "is_floating_point") and t.is_floating_point()), None)
    remote = student.run(made.target, *made.args, **made.kwargs)["value"]
    if dtype is not None:
        remote.to(dtype=dtype)
        if made.state:
            remote.load_state_dict({key: value.to(dtype) for key, value in made.state.items()}, strict=False)
    return student.run(remote, *call["args"], method=call.get("method") or "__call__", dtype_trail=True,
                       **call["kwargs"])["entered"]


def dtype_advice(entered):
    """The remedy for where the dtype entered."""
    where, dtype = entered["where"], entered["dtype"]
    if entered["kind"] == "cast":
        source = f", a cast from {entered['from']}" if entered["from"] else ", a cast"
        return (f"it becomes {dtype} at {where}{source}: leave tensors in their inputs' dtype (no .float(), "
                f".double(), .half() or .to(torch.{dtype})), and use .to(x.dtype) where a dtype must change")
    if entered["kind"] == "made":
        return (f"{where} makes a {dtype} tensor whatever the inputs' dtype: make it with dtype=x.dtype, or from "
                "an input (torch.zeros_like(x), x.new_zeros(...))")
    return (f"a {dtype} tensor made before this call (in __init__, or outside the function) meets the inputs at "
            f"{where}: make it in the input's dtype, or register it as a buffer so that .to() converts it")


# -- a gradient that is not finite ---------------------------------------------------------------------

# what the backward pass of an operation does that turns finite gradients into an inf or a NaN
_BACKWARDS = {
    "DivBackward0": "a division's gradient divides by the divisor (g / d, and g·n / d² for the divisor): where the "
                    "divisor is 0, or a sum clamped to a tiny number, it overflows to inf, and 0 · inf = NaN",
    "ExpBackward0": "exp's gradient multiplies by exp's own value, which is NaN where its input was (-inf - -inf)",
    "LogsumexpBackward0": "logsumexp's gradient is e^(x - logsumexp(x)), which is e^(-inf - -inf) = NaN in a slice "
                          "of only -inf",
    "LogBackward0": "log's gradient divides by its input, inf at 0",
    "SqrtBackward0": "sqrt's gradient divides by the root, inf at 0",
    "PowBackward0": "a power's gradient can divide by its base, inf at 0",
}


def gradient_located(message, general, student, calls, budget):
    """`message` with `general` (the failing check's list of the ways a NaN gradient arises) replaced by
    the line whose backward pass made the first inf or NaN, or unchanged."""
    if not general or general not in message:
        return message
    first = _first(calls, budget, student, _gradient_trail, ("where", "function"))
    if first is None:
        return message
    what = _BACKWARDS.get(first["function"], f"the gradient of that step ({first['function']}) is not finite there")
    return message.replace(general, f"but in yours the backward pass first makes an inf or a NaN at "
                                    f"{first['where']}, from finite gradients: {what}.", 1)


def _gradient_trail(student, call):
    if call.get("check") != "gradient" or call.get("object") is not None or call.get("upstream") is None:
        return None
    return student.first_non_finite(call["target"], *call["args"], wrt=call["wrt"], upstream=call["upstream"])


# -- both ------------------------------------------------------------------------------------------


def located(key, message, general, student, calls, budget):
    """The message of the diagnosis `key` with the line where it went wrong, where a trail finds it:
    a changed dtype's, or a non-finite gradient's whose check says its `general` advice."""
    if key in DTYPE_IDS:
        return dtype_located(message, student, calls, budget)
    return gradient_located(message, general, student, calls, budget)


def _first(calls, budget, student, trail, fields):
    """The note `trail(student, call)` gives for the first of `calls` (two at most) that has one, with
    exactly `fields`, as the report may show it; or None."""
    try:
        for call in calls[:2]:
            if budget.left() <= 0:
                return None
            with one_thread(), student.within(budget.left()):
                note = sanitized(trail(student, call), fields)
            if note is not None:
                note["where"] = _lines_of(note["where"], student.path)
                return note if note["where"] else None
    except Exception:  # noqa: BLE001 - a crash, a loop or an odd reply of theirs costs only the located text
        return None
    return None


_LINE = re.compile(r"line (\d+), in ([A-Za-z_][A-Za-z0-9_.<>]*) \(`")


def _lines_of(where, path):
    """The place the child named ("line 12, in f (`code`) called from ..."), with each line's code read
    from the student's file by the judge: the child's own copy of the code (linecache) is the student's
    process's to change (round 13's a01 put a fake report there)."""
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return None
    frames = [(int(n), name) for n, name in _LINE.findall(where)[:2] if 0 < int(n) <= len(lines)]
    return " called from ".join(f"line {n}, in {name} (`{printable(lines[n - 1].strip(), 200)}`)"
                                for n, name in frames) or None


def sanitized(note, fields):
    """The child's note (the student's process made it) if it has exactly `fields`, each text (or None,
    but `where`), shortened and cleaned as the report may show it; otherwise None."""
    if type(note) is not dict or set(note) != set(fields) or type(note.get("where")) is not str:
        return None
    if not all(value is None or type(value) is str for value in note.values()):
        return None
    return {key: None if value is None else printable(value, MAX_TEXT) for key, value in note.items()}
