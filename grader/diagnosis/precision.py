"""Where a changed dtype entered the student's code: the line a "dtype-changed" diagnosis names.

A result in float32 for float64 inputs, or two dtypes that clash inside the student's code, says
only that some tensor on the way had another dtype. `locate` runs the first failed call such a
diagnosis explains once more in the student's confined process, with its dtype trail on
(grader.sandbox.dtype_trail), and turns where that dtype entered (a cast, a tensor made without
`dtype=`, or one made before the call) into the remedy for that line. It shares the time of the
exercise's examples (grader.diagnosis.examples.Budget); anything the student's code does here costs
only the located text.
"""

import string

from grader.grading.compare import KEEP_THE_DTYPE
from grader.grading.testkit import Made, one_thread
from grader.nested import leaves
from grader.diagnosis.analysers import MADE_IN_FLOAT32

IDS = {"dtype-changed", "crash:dtype-made-float32"}  # the diagnoses whose text names a likeliest cause
GENERAL = (KEEP_THE_DTYPE, MADE_IN_FLOAT32)  # that cause, which a located line replaces
KINDS = {"made", "cast", "met"}
MAX_TEXT = 400  # characters of one field the child sends: a line of code, quoted


def located(message, student, calls, budget):
    """`message` with its general advice replaced by the line where the dtype entered, or unchanged."""
    general = next((text for text in GENERAL if message.endswith(text)), None)
    if general is None:
        return message
    entered = locate(student, calls, budget)
    return message if entered is None else message[:-len(general)] + advice(entered)


def locate(student, calls, budget):
    """The trail's note ({where, kind, dtype, from}) for the first of `calls` it can replay, or None."""
    try:
        for call in calls[:2]:
            if call.get("history") or any(isinstance(value, Made) for value in leaves((call["args"], call["kwargs"]))):
                continue  # a call after others on the same object: its past would have to be replayed
            if budget.left() <= 0:
                return None
            with one_thread(), student.within(budget.left()):
                entered = _trail(student, call)
            if _valid(entered):
                return entered
    except Exception:  # noqa: BLE001 - a crash, a loop or an odd reply of theirs costs only the located text
        return None
    return None


def _trail(student, call):
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


def _valid(entered):
    """The child's note as the trail makes it: text fields only, printable and short (it is the student's process)."""
    if type(entered) is not dict or set(entered) != {"where", "kind", "dtype", "from"} or entered["kind"] not in KINDS:
        return False
    return type(entered["where"]) is str and all(
        value is None or (type(value) is str and len(value) <= MAX_TEXT and set(value) <= _PRINTABLE)
        for value in entered.values())


_PRINTABLE = set(string.printable) - set("\r\x0b\x0c")


def advice(entered):
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
