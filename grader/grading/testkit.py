"""Helpers the hidden suites share: seeded inputs, the reference's float64 answers, checks that
record what they called.

A suite test reads like the check it makes: make inputs, ask the student, ask the reference in
float64, compare with `grader.grading.compare`. Inputs are drawn on the CPU from the test's generator and
then moved, so every device sees the same numbers.

Every failed check carries the call that produced the wrong value (`Mismatch.details["call"]`), so
that `grader.diagnosis.matcher` can replay it on mutants of the reference: for a function its name, args,
kwargs and the student's value; for an object (a module, a KV cache) also how it was made (`Made`:
constructor args and the state dict loaded into it) and every earlier call on it and on the objects
passed to it (`history`), so that a KV-cache sequence can be redone step by step. A call that raised
in the student's code is recorded the same way (`StudentError.call`), its value the error (`Raised`),
so that a mistake that crashes is replayed like one that computes a wrong number.
"""

import contextlib
import random
import re
from dataclasses import dataclass, field

import torch

from grader.grading.compare import Mismatch, check_close, check_tensor, check_unchanged, describe, dtype_text, shape_text
from grader.nested import leaves, map_values
from grader.sandbox.judge import StudentError, printable
from grader.sandbox.stand_in import DEVICE as STAND_IN
from lumen_ref import steps


def dims(size, *names):
    """The shape made of these entries of a suite's SIZES case, in order; "B" may be a tuple of
    batch dims, or absent (no batch dims)."""
    shape = []
    for name in names:
        value = size.get(name, ()) if name == "B" else size[name]
        shape.extend(value if isinstance(value, tuple) else (value,))
    return tuple(shape)


def cases(sizes, test):
    """The parameter ids of `test` in a suite's SIZES: the keys "test[id]"."""
    return [key[len(test) + 1:-1] for key in sizes if key.startswith(f"{test}[")]


def randn(rng, *shape, dtype=torch.float32, device="cpu", scale=1.0):
    """Standard normal values (times scale) from the test's generator."""
    return (torch.randn(*shape, generator=rng, dtype=torch.float64) * scale).to(device=device, dtype=dtype)


def randint(rng, low, high, *shape, device="cpu"):
    return torch.randint(low, high, shape, generator=rng).to(device)


# The operating system's randomness, which no seed drives, for one call beside a test's seeded ones: a function
# of few arguments whose answers the suite's messages print (find_heads, a count of FLOPs or bytes) could be a
# table of the suite's own calls (round 77's a03, a04); at arguments no report showed only the computation
# answers. Right code passes whatever is drawn.
UNFORESEEN = random.SystemRandom()


@contextlib.contextmanager
def one_thread():
    """Torch on one thread in this process: the judge's computations (replays, expected values,
    checks) are many small ones, and waking the intra-op thread pool for each costs more than the
    computation (8 times the time on a busy 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def as64(value):
    """Float tensors (anywhere in a tuple, list or dict) as CPU float64 copies, for the oracle."""
    return map_values(value, _cpu64)


def _cpu64(value):
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", torch.float64) if value.is_floating_point() else value.to("cpu")
    return value


def call_text(name, args, kwargs):
    """How a call reads in a message: MultiHeadAttention(12, 3, bias=False)."""
    shown = [repr(a) if isinstance(a, (int, float, str, bool)) else describe(a) for a in args]
    shown += [f"{key}={value!r}" for key, value in kwargs.items()]
    return f"{name}({', '.join(shown)})"


# -- what a recorded call keeps of the student's values -----------------------------------------

MAX_KEPT_ELEMENTS = 1 << 18  # elements of one recorded value: twice the largest tensor a suite makes
MAX_KEPT_BYTES = 64 << 20  # bytes of the student's values the failed checks of one run keep, in all


@dataclass(frozen=True)
class Withheld:
    """A student's tensor too large to keep as evidence: what the diagnosis may still know of it.
    It matches no value, so no diagnosis rests on it."""

    shape: tuple
    dtype: torch.dtype

    def __repr__(self):
        return f"<a {dtype_text(self.dtype)} tensor of shape {shape_text(self.shape)}, not kept>"


def bounded(value, limit=MAX_KEPT_ELEMENTS):
    """`value` with its tensors, in order, while their elements add up to at most `limit`; the
    others as `Withheld`."""
    left = [limit]

    def keep(item):
        if not isinstance(item, torch.Tensor):
            return item
        if item.numel() > left[0]:
            return Withheld(tuple(item.shape), item.dtype)
        left[0] -= item.numel()
        return item

    return map_values(value, keep)


class Evidence:
    """What the failed checks of one run keep of the student's values for the diagnosis: at most
    MAX_KEPT_BYTES in all (at the time it is made), each value bounded; past that, shapes only. A
    submission answering every test with a huge tensor must not make the judge hold them all."""

    def __init__(self):
        self.left = MAX_KEPT_BYTES

    def keep(self, call):
        """`call` (as a failed check recorded it) with the student's values it holds within the budget."""
        kept = {**call, "got": self._spend(call.get("got"))}
        if "history" in call:
            kept["history"] = [(*step[:4], self._spend(step[4])) for step in call["history"]]
        return kept

    def _spend(self, value):
        def spend(item):
            if not isinstance(item, torch.Tensor):
                return item
            size = item.numel() * item.element_size()
            if size > self.left:
                return Withheld(tuple(item.shape), item.dtype)
            self.left -= size
            return item

        return map_values(bounded(value), spend)


@dataclass(frozen=True)
class Raised:
    """What a call of the student's code gave instead of a value: the exception it raised, as the child
    described it (its type's name, its message, the student's frames, innermost last)."""

    type: str
    message: str
    frames: tuple = ()

    @classmethod
    def of(cls, error):
        return cls(error.type, error.message, tuple(error.frames))

    def __repr__(self):
        return f"<raised {self.type}: {self.message[:80]}>"


def crash_evidence(error, call):
    """Note on `error` (a StudentError a call raised) the call it came from, `got` being the error,
    for the diagnosis; only for a plain error of the student's code, not a stub, a forbidden call or the
    memory limit."""
    if type(error) is StudentError and error.type != "NotImplementedError" and getattr(error, "call", None) is None:
        error.call = {**call, "got": Raised.of(error)}


# autograd's error where the student's code wrote over a tensor its backward pass needs: their own
# line's doing, unlike autograd's other failures, so evidence even for a call made with gradients
AUTOGRAD_IN_PLACE = "needed for gradient computation has been modified by an inplace operation"
# and where it wrote a result through out=, which autograd refuses to follow
AUTOGRAD_OUT = "functions with out=... arguments don't support automatic differentiation"


def grad_request(wrt, upstream, trail=False):
    """A call's `grad`: gradients for args[i] (i in wrt), backpropagating `upstream` (one tensor or None
    per output); the same keys always (`trail` only for the diagnosis, after the tests)."""
    upstream = upstream if isinstance(upstream, (tuple, list)) else [upstream]
    return {"wrt": list(wrt), "upstream": list(upstream), "trail": trail}


def replayable(error, grad, stand_in):
    """Is the crash of a call (made with gradients `grad`, on the stand-in device or not) evidence the
    diagnosis replays? A crash of autograd or of the stand-in is not, but for an in-place edit or an out=
    of theirs, or a line of their own backward."""
    return not stand_in and (grad is None or any(text in getattr(error, "message", "")
                                                 for text in (AUTOGRAD_IN_PLACE, AUTOGRAD_OUT))
                             or _in_their_backward(error))


def _in_their_backward(error):
    """Whether the error was raised in a `backward` of the student's own (an autograd.Function's): a
    line of theirs, as a forward's is."""
    frames = getattr(error, "frames", None) or ()
    return bool(frames) and re.match(r"[^,]*, line \d+, in backward\b", frames[-1]) is not None


# -- checking a value ---------------------------------------------------------------------------


_passed_calls = []  # the calls of the checks that passed since the plugin last took them


def passed(call):
    """Note the call of a check that passed (a suite's own check; check_result does it itself)."""
    _passed_calls.append({**call, "got": bounded(call.get("got"))})


@contextlib.contextmanager
def failing_call(call):
    """A Mismatch raised inside carries `call` (the check's own, with the student's value as `got`) unless
    it names one: a check of a number or a type, not of check_result, keeps its evidence too, for the
    smallest example of the mistake."""
    try:
        yield
    except Mismatch as mismatch:
        mismatch.details.setdefault("call", {**call, "got": bounded(call.get("got"))})
        raise


def take_passed_calls():
    """The calls of the checks that passed since the last time, for the diagnosis (grader.grading.plugin)."""
    calls = list(_passed_calls)
    _passed_calls.clear()
    return calls


def check_result(got, expected, *, what, call=None, like=None, dtype=None, device=None, labels=None,
                 order=None, nan_hint="", picture=None, magnitude=None):
    """got against the float64 `expected`: a tensor, or a tuple of them (`labels` name the items,
    `order` is the order to check their values in). Shapes and types first, then values.

    `like`: a tensor whose dtype and device a float result must keep (or give `dtype`, `device`);
    a bool `expected` (a mask) must come back bool, on `device`. `picture` ("mask"/"weights", or a
    dict item index -> kind) lets the report draw a failing matrix. `magnitude`: the problem's
    conditioning (a tensor, or a tuple of them, one per item; see `grader.grading.compare`). A Mismatch
    carries `call`, and `subject`: `what`, the call as its message names it.
    """
    try:
        pairs = _items(got, expected, what, labels)
        dtype = like.dtype if like is not None else dtype
        device = like.device.type if like is not None else device
        for item, want, item_what in pairs:
            float_dtype = None if want.dtype == torch.bool else dtype
            check_tensor(item, what=item_what, shape=want.shape,
                         dtype=torch.bool if want.dtype == torch.bool else float_dtype, device=device)
        for index in order if order is not None else range(len(pairs)):
            item, want, item_what = pairs[index]
            kind = picture.get(index) if isinstance(picture, dict) else picture
            scale = magnitude[index] if isinstance(magnitude, tuple) else magnitude
            check_close(item, want, what=item_what, nan_hint=nan_hint, picture=kind, magnitude=scale)
    except Mismatch as mismatch:
        if call is not None:
            mismatch.details["call"] = {**call, "got": bounded(call.get("got"))}
        mismatch.details.setdefault("subject", what)  # the report folds failures that differ only in it
        raise
    if call is not None:
        passed(call)  # evidence too: a mistake that would have failed here is not the one
    return got


def _items(got, expected, what, labels):
    """[(got item, expected item, what it is called)] for a tensor or a tuple of tensors."""
    if not isinstance(expected, tuple):
        return [(got, expected, what)]
    labels = labels or [f"item {i}" for i in range(len(expected))]
    if got is None:
        raise Mismatch(f"{what} returned None: did you forget `return`? Expected a tuple of {len(expected)} "
                       f"tensors ({', '.join(labels)})")
    if not isinstance(got, (tuple, list)) or len(got) != len(expected):
        raise Mismatch(f"{what} returned {describe(got)}, expected a tuple of {len(expected)} tensors "
                       f"({', '.join(labels)})")
    return [(item, want, f"{label} from {what}") for item, want, label in zip(got, expected, labels)]


def check_call(student, name, *args, ref, what=None, kwargs=None, magnitude=None, **options):
    """Call the student's `name(*args, **kwargs)` and check it against `ref` run in float64.

    `magnitude(expected, *args, **kwargs)`, given the float64 answer and inputs, returns the
    problem's conditioning (see `grader.grading.compare`). `options` are check_result's (like, labels,
    picture, ...). A failure carries the call, for the diagnosis. Returns the student's value.
    """
    kwargs = kwargs or {}
    got = student.run(name, *args, **kwargs)["value"]
    expected = ref(*as64(args), **as64(kwargs))
    scale = magnitude(expected, *as64(args), **as64(kwargs)) if magnitude else None
    call = {"target": name, "args": args, "kwargs": kwargs, "got": got}
    return check_result(got, expected, what=what or call_text(name, args, kwargs), call=call, magnitude=scale,
                        **options)


def product_conditioning(ref_fn):
    """A check_call `magnitude` for a function made of products and sums of its inputs (a
    projection, scores): its value on the inputs' absolute values, |x| @ |w|, bounds the terms
    each entry sums (`grader.grading.compare.product_magnitude`)."""
    def magnitude(expected, *args, **kwargs):
        return ref_fn(*map_values(args, _absolute), **kwargs)

    return magnitude


def _absolute(value):
    return value.abs() if isinstance(value, torch.Tensor) and value.is_floating_point() else value


def measure_call(student, target, *args, what, method=None, **kwargs):
    """What one call of the student's code does at the aten level, measured by the grader's probe in
    its process (grader.perf.probe): {"bytes", "shape", "products"}. A probe the student's code
    switched off fails the check, never passes it. A test's last calls: nothing replays them."""
    return check_measured(student.largest_allocation(target, *args, method=method, **kwargs), what)


def watched_calls(student, name, what):
    """Every call of `name` (one of the exercise's `watched`) the suites made so far, this test's
    included, as a `grader.grading.student.WatchedCall` whose measure is checked: a call a test checks
    is measured as every other is."""
    calls = [call._replace(measured=check_measured(call.measured, what)) for call in student.watched_calls(name)]
    if not calls:  # the test called it first: its process answered without the measure (round 30's a01)
        raise Mismatch(f"{what} could not be measured: your code's process answered without the grader's "
                       f"measure. {_LEAVE_THE_GRADER}")
    return calls


_COUNTS = ("bytes", "products", "every_product", "reductions", "written", "combining", "ops", "widest", "elements",
           "peak")
_LEAVE_THE_GRADER = "Leave the grader's connection and objects in your process as they are"


def _lists_well_formed(measured):
    """Whether a measure's lists are as the probe makes them: `returned`, ints; `combined`, [int, ints] pairs;
    `read_most`, [int, int] pairs."""
    def pairs(key, second):
        found = measured.get(key, [])
        return type(found) is list and all(type(pair) is list and len(pair) == 2 and type(pair[0]) is int
                                           and second(pair[1]) for pair in found)

    return _ints(measured.get("returned", [])) and pairs("combined", _ints) and pairs("read_most", _int)


def _int(value):
    return type(value) is int


def _ints(value):
    return type(value) is list and all(type(item) is int for item in value)


def check_measured(measured, what):
    """A probe's measure, or the failure of a probe the student's code switched off or answered for
    (a measure not as the probe makes it: round 30's a04 sent `{"products": "many"}`)."""
    if not isinstance(measured, dict) or "products" not in measured \
            or not all(type(measured[key]) is int for key in _COUNTS if key in measured) \
            or not all(isinstance(measured.get(key), (str, type(None))) for key in ("disabled", "exported")) \
            or not _lists_well_formed(measured):
        raise Mismatch(f"{what} could not be measured: what your code's process answered is not the grader's "
                       f"measure. {_LEAVE_THE_GRADER}")
    if measured.get("exported"):
        raise Mismatch(f"{what} could not be measured: your code handed a tensor's data to numpy or Python "
                       f"({measured['exported']}), where the grader cannot see what it computes. Compute with "
                       "torch's operations on the tensors themselves")
    if measured["disabled"]:
        raise Mismatch(f"{what} could not be measured: {measured['disabled']}. The grader measures the tensors "
                       "your code allocates and the products it runs; leave torch's modes, dispatch and profiling "
                       "as they are")
    return measured


def check_inputs_kept(caller, target, *args, names, new=False, **kwargs):
    """Run `caller.run(target, *args, **kwargs)` (a Student or a Tracked object) and check that each
    argument named in `names` came back as it was sent: no in-place edits; with `new` (a docstring
    that says "returns a new tensor"), that the value shares no memory with them either. Returns the reply."""
    reply = caller.run(target, *args, return_args=True, **kwargs)
    function = (f"{caller.made.target}.{'forward' if target == '__call__' else target}" if isinstance(caller, Tracked)
                else target)  # a tracked object's method is named with its class
    try:
        for before, after, name in zip(args, reply["args"], names):
            check_unchanged(before, after, what=name, call=f"{function}(...)")
        shared = [names[i] for i in reply.get("shares", ()) if i < len(names)] if new else []
        if shared:
            symptom = (f"{function}(...) returned a tensor that shares its memory with its input `{shared[0]}` (the "
                       "input itself, or a view of it)")
            raise Mismatch(f"{symptom}: the docstring asks for a new tensor, which a caller may change without "
                           "changing its input: compute the result into a tensor of its own (x / s makes one)",
                           cause=RETURNS_AN_INPUT, symptom=symptom)
    except Mismatch as mismatch:  # the call, for the diagnosis's example: it redoes this check
        mismatch.details["call"] = {**_pending(caller, target, args, kwargs, check="inputs-kept", names=list(names),
                                               new=new, check_cause=mismatch.details.get("cause")),
                                    "got": bounded(reply["value"])}
        raise
    return reply


# -- devices ------------------------------------------------------------------------------------

NO_GRADIENT = "no-gradient"  # a cause (grader.diagnosis.hints): an input the output does not depend on through autograd
GRADIENT_SCALED = "gradient-scaled"  # a cause: right values, gradients one factor off (a step autograd did not see)
PEEKS_AT_THE_FUTURE = "peeks-at-the-future"  # a cause: changing a later token changed an earlier one's result
KEPT_FROM_A_CALL = "kept-from-an-earlier-call"  # a cause: a module answers differently after a call of another size
LAYERS_DIFFER = "parameters-differ"  # a cause: a module's parameters are not the chapter's (a name or a shape)
STATE_EXTRA = "state-dict-extra"  # a cause: a module's state dict holds more than its parameters (a saved buffer)
RETURNS_AN_INPUT = "returns-an-input"  # a cause: a result shares memory with an input, where a new tensor is due
BUILT_ON_THE_CPU = ("pass `device=x.device` (an input's device, or the function's `device` argument) where you "
                    "make it, and `dtype=x.dtype` where it holds values, or make it from an input "
                    "(torch.zeros_like(x), x.new_ones(...)), which takes both")  # the remedy for a tensor made on the CPU
_MIXED_ON_CUDA = "Expected all tensors to be on the same device"  # CUDA's error when a call mixes devices


def placed_on(device):
    """The device a check_device_kept call asks the student's code for: CUDA itself, or the stand-in."""
    return "cuda" if device == "cuda" else STAND_IN.type


def check_device_kept(caller, target, *args, device, what, device_arg=None, **kwargs):
    """`caller.run(target, *args, **kwargs)` (a Student or a Tracked object) with every tensor
    argument on a device other than the CPU: nothing it makes may stay on the CPU, and every tensor
    it returns is on that device. On "cuda" that is CUDA itself (`args` are moved there); on the
    CPU it is the child's stand-in (grader.sandbox.stand_in), so that a CPU-only machine sees what a
    GPU would. `device_arg`: the keyword that takes the device (causal_mask's `device`). Returns
    the reply's value."""
    on_cuda = device == "cuda"
    if device_arg:
        kwargs[device_arg] = STAND_IN.type
    call = _pending(caller, target, args, kwargs, check="device", device_arg=device_arg)  # the example redoes it
    if device_arg:
        kwargs[device_arg] = placed_on(device)
    if on_cuda:
        args, kwargs = map_values((args, kwargs), lambda t: t.to("cuda") if isinstance(t, torch.Tensor) else t)
    try:
        reply = caller.run(target, *args, stand_in=not on_cuda, **kwargs)
    except StudentError as error:
        if error.type == "StandInDisabled":
            raise Mismatch(f"{what}: {error.message}") from None
        if error.type == "DeviceMismatch" or (on_cuda and _MIXED_ON_CUDA in error.message):
            where = f" ({error.location})" if error.frames else ""
            symptom = f"on a GPU, {what} fails{where}: {error.message}: built on the CPU"
            raise Mismatch(f"{symptom}: {BUILT_ON_THE_CPU}", cause="built-on-cpu", call=call, symptom=symptom) from None
        raise
    value = reply["value"]
    tensors = [item for item in leaves(value) if isinstance(item, torch.Tensor)]
    placed = [item.device.type == "cuda" or None for item in tensors] if on_cuda else reply.get("placed")
    if not isinstance(placed, list) or len(placed) != len(tensors):  # only a child that was tampered with
        raise Mismatch(f"the devices of what {what} returned could not be checked: did your code change the grader?")
    astray = [(tensor, where) for tensor, where in zip(tensors, placed) if where is not True]
    if astray:
        tensor, where = astray[0]
        made = f", made at {printable(where, 300)}," if isinstance(where, str) else ""
        symptom = (f"{what} returned a tensor {shape_text(tensor.shape)}{made} on the CPU, not on the device of its "
                   "inputs (or the device it was given): built on the CPU")
        raise Mismatch(f"{symptom}: {BUILT_ON_THE_CPU}", cause="built-on-cpu", call={**call, "got": bounded(value)},
                       symptom=symptom)
    return value


def _pending(caller, target, args, kwargs, **check):
    """The call `caller.run(target, *args, **kwargs)` as a failed check records it, before its reply
    (`check`: which check it was, for a replay that must redo that check, not compare values)."""
    if isinstance(caller, Tracked):
        return {"target": caller.made.target, "object": caller.made, "method": target, "args": map_values(args, _made),
                "kwargs": map_values(kwargs, _made), "got": None, "history": list(caller.log), **check}
    return {"target": target, "args": args, "kwargs": dict(kwargs), "got": None, **check}


def reference_grads(fn, args, wrt, upstream):
    """Gradients of fn(*args) w.r.t. args[i] for i in wrt, in float64, for the given upstream."""
    args = list(as64(args))
    for index in wrt:
        args[index] = args[index].clone().requires_grad_(True)
    outputs = fn(*args)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    upstream = upstream if isinstance(upstream, (tuple, list)) else [upstream]
    pairs = [(out, as64(up)) for out, up in zip(outputs, upstream) if up is not None]
    loss = sum((out * up).sum() for out, up in pairs)  # its gradient w.r.t. each out is `up`
    return list(torch.autograd.grad(loss, [args[i] for i in wrt]))


def check_grads(student, name, ref_fn, args, wrt, rng, *, what, names=None, nan_hint="", upstream=None, cause=None,
                general=""):
    """The student's gradients of `name` w.r.t. args[wrt] match the reference's, in the input dtype,
    for a random upstream gradient (or the given one: see `upstream_through_softmax`); `cause`,
    `general`: as check_gradients'."""
    expected_out = ref_fn(*as64(args))
    outputs = expected_out if isinstance(expected_out, tuple) else (expected_out,)
    if upstream is None:
        upstream = [randn(rng, *out.shape, dtype=args[wrt[0]].dtype, device=args[wrt[0]].device)
                    if out.is_floating_point() else None for out in outputs]
    value = student.run(name, *args)["value"]
    check_output_shapes(value, outputs, what=what)
    _, grads, _ = student.backward(name, *args, wrt=wrt, upstream=upstream)
    expected = reference_grads(ref_fn, args, wrt, upstream)
    check_gradients(grads, expected, names or [f"argument {i}" for i in wrt], what=what,
                    dtype=args[wrt[0]].dtype, nan_hint=nan_hint, cause=cause, general=general,
                    call=gradient_call(student, name, args, wrt, value, cause, upstream),
                    forward_right=lambda: _right(value, expected_out, args[wrt[0]].dtype))


def _right(value, expected, dtype):
    """Is the student's forward value the reference's, as check_result would find it (no Mismatch)?"""
    try:
        check_result(value, expected, what="the forward value", dtype=dtype)
    except Mismatch:
        return False
    return True


def gradient_call(caller, target, args, wrt, got, cause, upstream=None):
    """A gradient check's call as a failure with `cause` records it (`got`: the forward value, right or
    not; `upstream`: the judge's), for an example that redoes the check at smaller sizes
    (grader.diagnosis.examples) and a replay that finds where it went wrong (grader.diagnosis.trails)."""
    return {**_pending(caller, target, args, {}, check="gradient", wrt=list(wrt), gradient_cause=cause,
                       upstream=upstream), "got": bounded(got)}


def check_output_shapes(got, expected, *, what):
    """Before a gradient check: the student's output (a tensor or tuple) has the shapes of the
    float64 `expected` outputs, for which the upstream gradient is made. Otherwise the judge's own
    product of the two would fail, and say nothing about the student's code."""
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    outputs = got if isinstance(got, (tuple, list)) and len(expected) > 1 else (got,)
    wanted = " and ".join(shape_text(want.shape) for want in expected)
    shapes = " and ".join(shape_text(out.shape) if isinstance(out, torch.Tensor) else describe(out) for out in outputs)
    if len(outputs) != len(expected) or any(not isinstance(out, torch.Tensor) or out.shape != want.shape
                                            for out, want in zip(outputs, expected)):
        raise Mismatch(f"the gradients of {what} could not be checked: your output has shape {shapes}, "
                       f"expected {wanted}")


def upstream_through_softmax(scores, mask, rng):
    """The gradient that reaches masked scores from a random loss on softmax(scores masked): what
    `apply_mask`'s contract defines. It is 0 wherever a score is masked, so -inf by masked_fill and
    by adding log(mask) (whose own gradients differ there) get the same gradient."""
    masked = steps.apply_mask(as64(scores), as64(mask)).requires_grad_(True)
    weights = steps.softmax(masked, dim=-1)
    loss = (weights * randn(rng, *weights.shape, dtype=torch.float64)).sum()
    (upstream,) = torch.autograd.grad(loss, [masked])
    return [upstream.to(device=scores.device, dtype=scores.dtype)]


def per_head_mask(rng, mask, n_heads):
    """`mask` (B, 1, L or 1, L) with each of n_heads heads hiding random keys of its own besides: a (B, H, L, L)
    mask, which only code that keeps the heads' axis where the scores have it reads right (round 73's a03 and
    a04 folded the heads into the batch). Key 0 stays as `mask` has it, so no query loses its every key."""
    B, L = mask.size(0), mask.size(-1)
    own = torch.rand(B, n_heads, L, L, generator=rng) < 0.5
    own[..., 0] = True
    return mask & own.to(mask.device)


def check_gradients(grads, expected, names, *, what, dtype=None, nan_hint="", cause=None, call=None, general="",
                    forward_right=False):
    """Each gradient the student's process sent back (None: none reached it) against the reference's.

    `cause`: the diagnosis id of a NaN or inf gradient where the reference's is finite, for a check
    whose `nan_hint` names that mistake itself (the diagnosis replays values forward only, and a
    forward pass that is right tells it nothing); `call` (gradient_call's) is recorded with it, and
    `general`, the part of `nan_hint` that lists the ways such a NaN arises, which the line the
    diagnosis finds replaces (grader.diagnosis.trails). `forward_right`: whether the forward values are
    right (a bool, or a function that says, asked only when a gradient is wrong), so that gradients one
    factor off are a step autograd did not see (cause GRADIENT_SCALED).
    A tensor no gradient reached is named first: where autograd's record was cut explains the
    wrong gradients of the others."""
    for got, name in zip(grads, names):
        if got is None:
            symptom = f"{what}: no gradient reached `{name}`"
            raise Mismatch(f"{symptom}: is it used, and kept in autograd's record all the way (no .detach(), .data, "
                           "torch.no_grad(), .item(), .numpy() or torch.tensor(...) on its path)?", cause=NO_GRADIENT,
                           symptom=symptom, **({"call": {**call, "gradient_cause": NO_GRADIENT}} if call else {}))
    for got, want, name in zip(grads, expected, names):
        try:
            check_close(got, want, what=f"the gradient of {what} w.r.t. {name}", dtype=dtype, nan_hint=nan_hint,
                        tiny_causes=False)
        except Mismatch as mismatch:
            if cause and _not_finite_where_finite(got, want):
                mismatch.details["cause"] = cause
                if call is not None:
                    mismatch.details["call"] = call
                if general:
                    mismatch.details["general"] = general
            right = forward_right() if callable(forward_right) else forward_right
            factor = _one_factor(got, want, dtype) if right and not mismatch.details.get("cause") else None
            if factor is not None:
                symptom = f"{mismatch.message}: every entry is {factor:.4g} times the chapter's gradient"
                found = {"call": {**call, "gradient_cause": GRADIENT_SCALED}} if call else {}  # for its example
                raise Mismatch(f"{symptom}, so the values your forward pass returns are right but its recorded steps "
                               "are not: a step autograd does not see (a change made through .data or under "
                               "torch.no_grad()) or a factor only the backward pass meets",
                               **{**mismatch.details, "cause": GRADIENT_SCALED, "symptom": symptom, **found}) from None
            raise


def _one_factor(got, want, dtype):
    """The one factor (not 1) that makes `want` into `got` at every entry, within the dtype's
    tolerance, where `want` has entries clear of 0; or None."""
    if not (isinstance(got, torch.Tensor) and isinstance(want, torch.Tensor)) or got.shape != want.shape:
        return None
    got, want = got.detach().double().cpu(), want.detach().double().cpu()
    if not want.numel() or not bool(torch.isfinite(got).all()):
        return None
    clear = want.abs() > 1e-6 * want.abs().amax()
    if not bool(clear.any()):
        return None
    ratio = got[clear] / want[clear]
    factor = float(ratio.median())
    tolerance = 1e-3 if dtype in (torch.float16, torch.bfloat16) else 1e-5
    same = torch.allclose(got, factor * want, rtol=tolerance, atol=tolerance * float(want.abs().amax()))
    return factor if same and abs(factor - 1) > 10 * tolerance else None


def _not_finite_where_finite(got, want):
    """got (a tensor of want's shape) is NaN or inf somewhere `want` is finite."""
    return (isinstance(got, torch.Tensor) and got.shape == want.shape
            and bool((~torch.isfinite(got.detach().cpu()) & torch.isfinite(want.cpu())).any()))


# -- objects in the student's process, recorded so that a mutant can redo what they did ---------------


@dataclass(eq=False)
class Made:
    """How an object in the student's process was made: `target(*args, **kwargs)`, then `state`
    (float64) loaded into it. A mutant of the reference makes its own from this."""

    target: str
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    state: dict = None


class Tracked:
    """A student's object (a module, a KV cache) that logs every call on it, in one log shared with
    the tracked objects passed to it, so that any call can be replayed with all that came before."""

    def __init__(self, remote, made):
        self.remote, self.made = remote, made
        self.log = []  # (Made, method, args, kwargs, the student's value), in call order

    def run(self, method, *args, **options):
        """The student's reply to method(*args, **kwargs); options as Student.run's."""
        kwargs = {key: options.pop(key) for key in list(options) if key not in _RUN_OPTIONS}
        self._share_log(list(args) + list(kwargs.values()))
        try:
            reply = self.remote.student.run(self.remote, *map_values(args, _remote), method=method,
                                            **map_values(kwargs, _remote), **options)
        except StudentError as error:
            if replayable(error, options.get("grad"), options.get("stand_in")):
                crash_evidence(error, {"target": self.made.target, "object": self.made, "method": method,
                                       "args": map_values(args, _made), "kwargs": map_values(kwargs, _made),
                                       "history": list(self.log)})
            raise
        self.log.append((self.made, method, map_values(args, _made), map_values(kwargs, _made),
                         bounded(reply["value"])))
        return reply

    def backward(self, *args, wrt, upstream, **kwargs):
        """module(*args, **kwargs) with gradients for args[wrt], as Student.backward: (value, grads, param grads)."""
        reply = self.run("__call__", *args, grad=grad_request(wrt, upstream), **kwargs)
        return reply["value"], reply["grads"], reply["param_grads"]

    def last_call(self):
        """The newest call, as the diagnosis replays it."""
        made, method, args, kwargs, got = self.log[-1]
        return {"target": made.target, "object": made, "method": method, "args": args, "kwargs": kwargs,
                "got": got, "history": self.log[:-1]}

    def _share_log(self, values):
        for value in values:
            if isinstance(value, Tracked) and value.log is not self.log:
                self.log.extend(value.log)  # the two were independent until now: any order will do
                value.log = self.log

    def __call__(self, *args, **kwargs):
        return self.run("__call__", *args, **kwargs)["value"]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.run(name, *args, **kwargs)["value"]


_RUN_OPTIONS = {"grad", "return_args", "no_grad", "stand_in"}


def _remote(value):
    """What the student's process knows a tracked object by."""
    return value.remote if isinstance(value, Tracked) else value


def _made(value):
    """What a replay knows a tracked object by."""
    return value.made if isinstance(value, Tracked) else value


def make(student, target, *args, **kwargs):
    """The student's `target(*args, **kwargs)` (a KV cache), tracked."""
    return Tracked(student.run(target, *args, **kwargs)["value"], Made(target, args, kwargs))


# -- modules ------------------------------------------------------------------------------------


def reference_module(rng, cls, *args, dtype=torch.float32, **kwargs):
    """lumen_ref's `cls(*args, **kwargs)` in float64, its parameters drawn from the test's generator
    with spread 1/√d_model (d_model = args[0]), as values `dtype` holds exactly: the student's copy
    in `dtype` holds the very same numbers."""
    module = cls(*args, **kwargs).double()
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.copy_(randn(rng, *parameter.shape, dtype=dtype, scale=args[0] ** -0.5))
    return module


def check_parameters(state, reference, *, what, layers, bias, exact=False, formulas=None, made=None):
    """The student's state dict holds the reference's parameters, with their shapes, and no bias it
    lacks; with `exact`, nothing else either. `layers` says which layers to make, `bias` how to
    leave a bias out, `formulas` (name -> text) what a shape is made of. `made` (a Made): how the
    module was constructed, which a failure carries as its call (`parameters_call`), for the
    smallest example of the mistake."""
    expected = {name: tuple(p.shape) for name, p in reference.state_dict().items()}
    if not isinstance(state, dict):
        raise Mismatch(f"{what}.state_dict() returned {describe(state)}, expected a dict of parameter names and "
                       "tensors: leave state_dict to nn.Module")
    got = {name: tuple(t.shape) for name, t in state.items() if isinstance(t, torch.Tensor)}

    def differ(text, cause):
        call = {} if made is None else {"call": parameters_call(made, got)}
        return Mismatch(text, cause=cause, **call)

    missing = [name for name in expected if name not in got]
    if missing:
        have = ", ".join(sorted(got)) or "no parameters at all"
        raise differ(f"{what} has no parameter `{missing[0]}` (it has {have}): {layers}", cause=LAYERS_DIFFER)
    extra = sorted(set(got) - set(expected))
    biases = [name for name in extra if name.endswith("bias") and len(got[name]) == 1]  # not nanoGPT's mask "bias"
    if biases:
        raise differ(f"{what} has a parameter `{biases[0]}` the chapter's layer doesn't have: {bias}",
                     cause=LAYERS_DIFFER)
    if exact and extra:
        raise differ(f"{what}'s state_dict also holds {', '.join(extra)}: keep anything else out of the state dict "
                     "(a causal-mask buffer: register it with persistent=False, or build it in forward with "
                     "causal_mask(L))", cause=STATE_EXTRA)
    for name, shape in expected.items():
        if got[name] == shape:
            continue
        text = f"{what}: `{name}` has shape {shape_text(got[name])}, expected {shape_text(shape)}"
        if (formulas or {}).get(name):
            text += f", that is {formulas[name]}"
        if got[name] == shape[::-1]:
            text += ": nn.Linear(in_features, out_features) stores its weight as (out, in)"
        raise differ(text, cause=LAYERS_DIFFER)


def parameters_call(made, shapes):
    """The call record of a constructor whose parameters are not the chapter's: the object `made` (a
    Made), called with nothing; `got`, its parameters' shapes. Its check ("parameters") is what the
    smallest example redoes; the diagnosis's replay of it fails, so it is no evidence of its own."""
    return {"target": made.target, "args": (), "kwargs": {}, "object": made, "method": None,
            "check": "parameters", "got": dict(shapes)}


def load_module(student, name, reference, *args, dtype=torch.float32, device="cpu", checks, **kwargs):
    """The student's `name(*args, **kwargs)` with the reference's parameters, in dtype on device, tracked;
    `checks` are check_parameters' options. Returns (module, how its construction reads)."""
    remote = student.run(name, *args, **kwargs)["value"]
    what = call_text(name, args, kwargs)
    check_parameters(remote.state_dict(), reference, what=what, made=Made(name, args, kwargs), **checks)
    remote.to(device=device, dtype=dtype)
    # not strict: check_parameters has seen the names and shapes, and an extra buffer (a causal mask)
    # costs only the constructor's own test
    remote.load_state_dict({key: value.to(device=device, dtype=dtype) for key, value in
                            reference.state_dict().items()}, strict=False)
    return Tracked(remote, Made(name, args, kwargs, reference.state_dict())), what


def check_forward(module, reference, *args, what, got=None, like=None, nan_hint="", **kwargs):
    """The tracked module's forward(*args, **kwargs) (or its value `got`, from module.backward)
    against the reference's in float64; keeps the input's dtype and device."""
    if got is None:
        got = module(*args, **kwargs)
    with torch.no_grad():
        expected = reference(*as64(args), **as64(kwargs))
    like = args[0] if like is None else like
    return check_result(got, expected, what=what, call=module.last_call(), like=like, nan_hint=nan_hint)


def check_fully_masked_queries(module, reference, x, *, what, nan_hint):
    """The tracked module's forward(x, mask) where the second sequence's mask is all False (all padding:
    its queries see no key, and read nothing), against the reference's in float64."""
    B, L, _ = x.shape
    mask = torch.ones(B, 1, L, L, dtype=torch.bool, device=x.device)
    mask[1] = False
    return check_forward(module, reference, x, mask, what=f"{what}(x, mask) where every key of a query is masked",
                         nan_hint=nan_hint)


def check_module_gradients(module, reference, x, upstream, *, what, mask=None, nan_hint="", cause=None,
                           fresh=dict):
    """The tracked module's forward on x (and `mask`, if given), then its gradients w.r.t. x and every
    parameter for the upstream gradient, against the reference's: wrong values first, as they explain
    wrong gradients. `nan_hint`, `cause`: as check_gradients'. `fresh()`: keyword arguments for the
    student's module alone, made anew for each of its calls (an empty cache, which changes nothing of
    the reference's answer)."""
    args = (x,) if mask is None else (x, mask)
    with torch.no_grad():
        expected_out = reference(*as64(args))
    check_output_shapes(module(*args, **fresh()), expected_out, what=what)
    kwargs = fresh()
    value, grads, param_grads = module.backward(*args, wrt=[0], upstream=[upstream], **kwargs)
    check_forward(module, reference, *args, what=what, got=value, nan_hint=nan_hint)
    x64 = as64(x).requires_grad_(True)
    names, parameters = zip(*reference.named_parameters())
    expected = torch.autograd.grad((reference(x64, *as64(args[1:])) * as64(upstream)).sum(), [x64, *parameters])
    call = None if kwargs else gradient_call(module, "__call__", args, [0], value, cause, [upstream])  # not a cache's
    check_gradients([grads[0], *(param_grads.get(name) for name in names)], expected, ("x", *names), what=what,
                    dtype=x.dtype, nan_hint=nan_hint, cause=cause, call=call, forward_right=True)  # forward passed
