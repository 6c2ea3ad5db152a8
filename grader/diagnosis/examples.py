"""The smallest example of a diagnosed mistake: the hint ladder's level 2 (grader.diagnosis.hints).

A diagnosis explains failed calls; `shrink` takes one and looks for the smallest sizes, and then the
simplest values (small integers, a plain causal mask), at which the student's answer still differs
from lumen_ref's. Each try runs the student's code in their confined process, through the same
`Student` the suites call (`grader.grading.student`), and compares as the suites do
(`grader.grading.compare`: the float64 answer, the dtype's tolerance). It stops at the first
smaller try that still differs, one size at a time, within a few dozen tries and the time it is
given; a student's code that raises, loops or dies on small sizes costs only the example. A
failing call that failed a check rather than a value (its device, on the child's stand-in for a
GPU; its inputs kept or a new tensor; a gradient, a module's included; a module's parameters or
state dict; the matrix products the probe counts; a whole (L_q, L_k) matrix the probe finds; draws
from generators seeded alike) is shrunk by redoing that check; one the reference must refuse
(`"refuses"`) by finding the smallest call it refuses and theirs answers (or the first of the small
calls the exercise lists, `Function.refused`); one that raised in its backward pass by running the
smaller calls backwards too. A function that answers one call two ways keeps state between calls,
which a call alone in a fresh process may not show: it gets no example.

What the engine needs to know of a function, how its arguments' sizes hang together, each exercise
declares in its package as `EXAMPLES = {name: Function(...), Module(...) or Stateful(...)}` in
`grader/catalog/<stem>/examples.py` (the engine names no exercise). A declaration names the
symbols of each argument's axes ("L_q", "d_k", a product ("n_heads", "d_head"), "..." for any
leading batch axes); a smaller call is the failing call's own tensors cut to smaller symbols
(which keeps the values a mistake may need, 1e4 or a masked row), or fresh small integers of
those sizes. Modules are made anew at the smaller sizes, with small integer weights; a class whose
answers depend on its past (a KV cache) is `Stateful`: tried as the exercise's short scenarios (on
the stand-in for a GPU where its failing check was a device's; a last step measured by the probe,
or run backwards, where the scenario says so); a function of random draws is `Drawn`: its answers,
from a generator seeded 0, held to the rules the exercise writes.
"""

import importlib
import itertools
from contextlib import contextmanager
import math
import time
from dataclasses import dataclass, field

import torch

from grader import catalog
from grader.grading.compare import Mismatch, dtype_text, picture_cells
from grader.grading.testkit import (GRADIENT_SCALED, LAYERS_DIFFER, NO_GRADIENT, RETURNS_AN_INPUT, STATE_EXTRA, Made,
                                    Raised, Tracked, Withheld, as64,
                                    check_device_kept, check_grads, check_inputs_kept, check_module_gradients,
                                    check_parameters, check_result, grad_request,
                                    one_thread)
from grader.nested import leaves, map_values
from grader.sandbox.stand_in import DEVICE as STAND_IN
from grader.sandbox.wire import axis_order, laid_out

MAX_TRIES = 60  # calls of the student's code one example may cost, at most
SECONDS = 5.0  # the time one exercise's examples may take (never past its deadline): a guard against slow code
ANOMALY_HINT = "Hint: enable anomaly detection"  # the end of autograd's in-place error, which an example leaves out
MESSAGE = 300  # characters of an error's message an example keeps (a device's names the line that made the tensor)
MAX_SHOWN = 64  # elements of one tensor an example may hold: a bigger one is no napkin example
MAX_WEIGHTS = 16  # elements of a module's weight the example's text prints (a larger one: its shape)
SIZES = (1, 2, 3, 4)  # the sizes tried for each symbol, smallest first (then halving from the original)
BATCH = "..."  # the symbol of an argument's leading batch axes
FROM = "_from_"  # FROM + symbol: where a cut along that symbol's axes starts
CUT, COUNTING, SMALL = 0, 1, 2  # the values of a try: the failing call's, cut; 1, 2, 3, ...; small integers
FRESH = (COUNTING, SMALL)  # simple values, simplest first
ON_STAND_IN = "gpu"  # a scenario's device keyword: the child's stand-in for a GPU (see Scenario)
MATRIX_AXES = ("rows", "columns", "block")  # a "whole-matrix" check's symbols: the matrix's axes, a block of columns
SEEDED_OUTCOMES, SEEDED_DRAWS = 16, 6  # a "seeded" check's example: 6 draws of torch's own all agree 1 time in 16⁵
BACKWARDS = ", backwards for an upstream gradient of 10, 20, 30, …"  # see _upstream
FINITE_THERE = "the float64 reference's is finite there"  # a NaN gradient's symptom: the example shows, not tells


@dataclass(frozen=True)
class Tensor:
    """A tensor argument: its axes' symbols, the last ones last (`BATCH` first: any leading batch
    axes; an axis may be a tuple of symbols and ints, their product). `kind` says what its simple
    values are: "real" (small integers), "mask" (a plain causal mask), "lengths" (counts, at most the
    symbol `at_most`) or "keep" (none simpler: only cut)."""

    axes: tuple
    kind: str = "real"
    at_most: str = None


@dataclass(frozen=True)
class Tensors:
    """A list argument of tensors alike (one pattern per layer): `each` declares them all, and the
    symbol `count` is the list's length; a smaller call keeps its first `count` items, each cut."""

    each: Tensor
    count: str


@dataclass(frozen=True)
class Size:
    """An int argument that is a symbol (or a product of symbols and ints)."""

    of: object


@dataclass(frozen=True)
class Function:
    """A function of the exercise: its parameters in order (name -> Tensor, Size, or None for one
    kept as the failing call had it); `picture`: "mask" or "weights" for a result drawn as a
    matrix (or {item index: kind} for a tuple's items); `labels`: the names of a tuple's items."""

    params: dict
    picture: object = None
    labels: tuple = None
    smallest: dict = field(default_factory=dict)  # symbol -> the smallest size it may take (default 1)
    # small calls ({parameter: value}) the reference refuses, smallest first, for a refusal the declared axes
    # cannot express by cutting (a pattern of 3 dims, or not square): tried where cutting shows none
    refused: tuple = ()


@dataclass(frozen=True)
class Drawn:
    """A function of random draws from its `generator` keyword's torch.Generator: its answer is no value
    to compare with the reference's, so the exercise says which rules an answer breaks: `broken(value,
    args)` (args: {parameter: value}) is a sentence naming the first rule broken, or None. Its
    parameters as Function's (ints: `Size`); each try draws from a generator seeded 0."""

    params: dict
    broken: object
    generator: str = "generator"
    smallest: dict = field(default_factory=dict)
    # args -> how many answers a call may draw: a failed "seeded" check (generators seeded alike, answers that
    # differ) is shown only where draws from torch's own generator would rarely all agree (SEEDED_OUTCOMES)
    outcomes: object = None
    picture = labels = None  # as Function's: nothing to draw, one answer


@dataclass(frozen=True)
class Module:
    """A class of the exercise, made anew for each try: its constructor's parameters (name -> Size or
    None) and its forward's (as Function's); made with small integer weights."""

    made: dict
    forward: dict
    picture: object = None
    labels: tuple = None
    smallest: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Stateful:
    """A class whose answers depend on what was done to it before (a KV cache, a module using one):
    tried as whole small scenarios, smallest first. `scenarios(call)`, given the failing call, yields
    `Scenario`s."""

    scenarios: object
    labels: dict = field(default_factory=dict)  # method -> the names of its tuple's items
    names: dict = field(default_factory=dict)  # method -> the names of its arguments


@dataclass
class Scenario:
    """Objects made in order, then steps on them; the first step whose answer differs is the example.

    `made`: [(name, class, args, kwargs)], a module with small integer weights; `steps`:
    [(name, method, args)], where an argument that is the name of a made object (`Handle`) stands
    for it ("__call__": the object called, "__len__": len()). A constructor's keyword whose value is
    `ON_STAND_IN` (a device) is the stand-in for a GPU in theirs, and left out of the reference's."""

    sizes: dict
    made: list
    steps: list
    weights: dict = field(default_factory=dict)  # the modules' weights, once run
    # a rule no value shows (a docstring's "writes into its storage"): the last step, measured by the grader's
    # probe, allocates no tensor of this many bytes (`measured`), which `held` names
    measured: int = None
    held: str = ""
    backward: bool = False  # the last step run backwards: a gradient reaches each weight the reference's reaches


@dataclass(frozen=True)
class Handle:
    """An object of a scenario, as an argument of a step."""

    name: str


def declared(exercise):
    """{name: Function or Module} of an exercise's examples.py ({} if it has none)."""
    if not (exercise.folder / "examples.py").is_file():
        return {}
    return importlib.import_module(f"grader.catalog.{exercise.stem}.examples").EXAMPLES


class Budget:
    """The time left to one exercise's examples (all its diagnoses share it)."""

    def __init__(self, seconds=None):
        self.until = time.monotonic() + (SECONDS if seconds is None else seconds)

    def left(self):
        return max(self.until - time.monotonic(), 0.0)


def shrink(student, exercise, calls, budget):
    """The example (a JSON-able dict) of the first of `calls` (failed calls a diagnosis explains) that
    a smaller call still shows, or None. Nothing the student's code does here escapes: no example.
    Each search runs in a student process that has run nothing else (`Student.fresh`): the failing call
    may be a hidden check's, and what the code kept of its inputs would show in the example's answers
    (round 66's a01)."""
    try:
        specs = declared(exercise)
        for call in calls[:2]:
            spec = specs.get(call.get("target"))
            if spec is None or budget.left() <= 0:
                continue
            if isinstance(spec, Stateful) and call.get("check") != "parameters":
                student.fresh()
                with one_thread(), student.within(budget.left()):
                    found = next(filter(None, (_scenario_example(student, exercise, specs[target], call, target)
                                               for target in _stateful_targets(call, specs))), None)
            elif _shrinkable(call, spec):
                with one_thread(), student.within(budget.left()):
                    if not _answers_alike(student, call, spec):
                        continue  # it keeps state between calls: a call alone, in a fresh process, may not show it
                    student.fresh()
                    found = _Search(student, exercise, call, spec).run()
                    if found is None and call.get("refuses"):
                        found = _Search(student, exercise, call, spec).refused()
                    if found is None and isinstance(call["got"], Raised):  # then the smallest call that raises so
                        found = _Search(student, exercise, call, spec, crashes=True).run()
            else:
                continue
            if found is not None:
                return found
    except Exception:  # noqa: BLE001 - a loop, a crash or an odd value of theirs costs only the example
        return None
    return None


def _stateful_targets(call, specs):
    """The stateful classes a call on an object involves: its own, then those of the objects its
    history used with it (len(cache) after a module's forward: the mistake may be the module's)."""
    targets = [call["target"]] + [made.target for made, *_ in call.get("history", ())]
    return [target for n, target in enumerate(targets)
            if isinstance(specs.get(target), Stateful) and target not in targets[:n]]


def _answers_alike(student, call, spec):
    """Does the student's function answer the failing call again as it did in the suites? One that keeps
    state between calls (a module-level list it appends to) may not: its example would not reproduce.
    A module is made anew for each try, and a kept answer too large to compare is taken as alike."""
    if not isinstance(spec, Function) or call.get("check") or call.get("refuses") or isinstance(call["got"], Raised) \
            or any(isinstance(value, Withheld) for value in leaves(call["got"])):
        return True
    try:
        again = student.run(call["target"], *call["args"], **call["kwargs"])["value"]
    except _THEIRS:
        return False
    return _alike(call["got"], again)


def _shrinkable(call, spec):
    """A call of a declared function, or of a module's forward, with no object of the student's among
    its arguments (a KV cache holding tokens: its past would have to shrink with it)."""
    if isinstance(spec, Module) != (call.get("object") is not None) or call.get("method") not in (None, "__call__"):
        return False
    return not any(isinstance(value, Made) for value in leaves((call["args"], call["kwargs"])))


class _Search:
    """The greedy search for one call: each symbol made as small as it can be while the answer still
    differs, then simple values tried at those sizes."""

    def __init__(self, student, exercise, call, spec, crashes=False):
        """`crashes`: a try on which the student's code raises the failing call's error shows it too."""
        self.student, self.exercise, self.call, self.spec = student, exercise, call, spec
        self.crashes = crashes
        self.module = isinstance(spec, Module)
        self.drawn = isinstance(spec, Drawn)
        self.params = spec.forward if self.module else spec.params
        self.args = _bind(self.params, call["args"], call["kwargs"])
        if self.module:
            made = call["object"]
            self.made_args = _bind(spec.made, made.args, made.kwargs)
        self.symbols = _symbols({**self.args, **(self.made_args if self.module else {})},
                                {**self.params, **(spec.made if self.module else {})})
        self.cuttable = {axis for declaration in self.params.values() if isinstance(declaration, (Tensor, Tensors))
                         for axis in _named_axes(getattr(declaration, "each", declaration)) if isinstance(axis, str)}
        self.tries = 0
        self.shown = None  # the last try that differed

    def run(self):
        sizes = dict(self.symbols)
        values = next((style for style in FRESH if self._try(sizes, style)), CUT)
        if values == CUT and not self._cut_possible():
            return None
        symbols = sorted((key for key in sizes if not key.startswith("_")), key=lambda key: key != BATCH)
        for _ in range(2):  # again for those left large: one may shrink once a later one has
            changed = False
            for symbol in symbols:
                for change in self._changes(symbol, sizes, values):
                    if self.tries >= MAX_TRIES:
                        break
                    if self._try({**sizes, **change}, values):
                        sizes, changed = {**sizes, **change}, True
                        break
            # the batch again while it is not one entry (it may crash until the others shrink), the rest while large
            symbols = [symbol for symbol in symbols if sizes[symbol] > (1 if symbol == BATCH else SIZES[-1])]
            if not changed or not symbols:
                break
        if self.shown is None and values == CUT:
            self._try(sizes, CUT)  # the failing call itself: it may be small enough to show
        if self.shown is not None and self.shown["values"] == CUT:
            any(self._try(self.shown["sizes"], style) for style in FRESH)  # simple values at the smallest sizes
        if self.shown is None or any(isinstance(t, torch.Tensor) and t.numel() > MAX_SHOWN
                                     for t in [*leaves(list(self.shown["args"].values())), *leaves(self.shown["got"])]):
            return None
        return _example(self)

    def refused(self):
        """The first of the spec's small calls the reference refuses (`Function.refused`) that theirs
        answers, as the example; or None."""
        for args in getattr(self.spec, "refused", ()):
            self.tries += 1
            got, expected = _run_refused(self.student, self.exercise, self.call, self.spec, args)
            if got is not None:
                sizes = {f"{name}[{axis}]": n for name, value in args.items() if isinstance(value, torch.Tensor)
                         for axis, n in enumerate(value.shape)}
                self.shown = {"sizes": sizes, "values": CUT, "args": args, "got": got, "expected": expected,
                              "made": None, "state": None}
                return _example(self)
        return None

    def _changes(self, symbol, sizes, values):
        """The smaller sizes tried for `symbol`, smallest first: for the batch, one entry of it. Of the
        failing call's own values (CUT), each of the first few entries or rows in turn: a mistake may
        show in one sequence or row only (a fully masked one)."""
        entries = len(SIZES) if values == CUT else 1
        if symbol == BATCH:
            return [{BATCH: 1, "_at": i} for i in range(min(sizes[BATCH], entries))] if sizes[BATCH] > 1 else []
        changes = []
        for n in _smaller(sizes[symbol], self.spec.smallest.get(symbol, 1)):
            changes.append({symbol: n, FROM + symbol: 0})
            if n == 1 and symbol in self.cuttable and values == CUT:  # one row of many: which one shows it
                changes += [{symbol: 1, FROM + symbol: i} for i in range(1, min(sizes[symbol], entries))]
        return changes

    def _cut_possible(self):
        """Every declared tensor argument of the failing call is a tensor (kept, not withheld), so it can be cut."""
        return all(not isinstance(d, Tensor) or isinstance(self.args.get(n), torch.Tensor)
                   for n, d in self.params.items() if n in self.args)

    def _try(self, sizes, values):
        """Does the student's answer differ from the reference's on the call at `sizes`, with `values`
        (CUT, COUNTING, SMALL)? If it does, that call becomes the example."""
        args = _made_at(self.args, self.params, sizes, self.symbols, values)
        made = _made_at(self.made_args, self.spec.made, sizes, self.symbols, SMALL) if self.module else None
        if args is None or (self.module and made is None):
            return False
        self.tries += 1
        if self.call.get("refuses") or self.drawn:
            run = _run_drawn if self.drawn else _run_refused
            got, expected = run(self.student, self.exercise, self.call, self.spec, args)
            state = None
            if got is None:
                return False
        elif self.call.get("check"):
            got, expected, state = self._check(made, args, sizes)
            if got is None:
                return False
        else:
            try:
                got, expected, state = self._module(made, args) if self.module else (*self._function(args), None)
            except _Refused:  # sizes the reference refuses (an odd length): no example there
                return False
            if isinstance(got, _Raised):
                if not (self.crashes and got.type == self.call["got"].type):
                    return False
                try:
                    if expected is None:  # a module's: a function's answer came with theirs
                        with torch.no_grad():
                            expected, state = self._expected(made, args)
                except Exception:  # noqa: BLE001 - sizes the reference refuses too: no example there
                    return False
            elif not _differs(got, expected, _dtype(args)):
                return False
            elif not self.module and not _alike(got, self._function(args)[0]):
                return False  # it answers the same call two ways: it keeps state, and the example would not reproduce
        self.shown = {"sizes": sizes, "values": values, "args": args, "got": got, "expected": expected,
                      "made": made, "state": state}
        return True

    def _check(self, made, args, sizes):
        """(the check's message, what it asks for, the weights) if the call at these sizes fails the
        check the failing call failed (its device, or its inputs kept), or (None, None, None)."""
        return _run_check(self.student, self.exercise, self.call, self.spec, made, args, sizes=sizes)

    def _function(self, args):
        return _run_function(self.student, self.exercise, self.call["target"], self.params, args, self.call["kwargs"],
                             self.call.get("wrt") if self.crashes else None)

    def _module(self, made, args):
        return _run_module(self.student, self.exercise, self.call["target"], self.spec, made,
                           self.call["object"].kwargs, args, self.call["kwargs"])

    def _expected(self, made, args):
        """(the reference's answer, its module's weights) on a try where the student's code raised."""
        positional, keywords = _unbind(self.params, args, self.call["kwargs"])
        if not self.module:
            return self.exercise.reference_object(self.call["target"])(*as64(positional), **as64(keywords)), None
        made_positional, made_keywords = _unbind(self.spec.made, made, self.call["object"].kwargs)
        reference = _small_module(self.exercise, self.call["target"], made_positional, made_keywords)
        return reference(*as64(positional), **as64(keywords)), reference.state_dict()


def _run_function(student, exercise, name, params, args, kwargs, wrt=None):
    """(theirs, the reference's in float64) of `name` on the bound `args` (the failing call's other
    keywords `kwargs` as they were), theirs an `_Raised` where it raised; with `wrt`, theirs run
    backwards too, for `_upstream` (a crash of the backward pass: an in-place edit autograd saw)."""
    positional, keywords = _unbind(params, args, kwargs)
    with torch.no_grad(), _refused():
        expected = exercise.reference_object(name)(*as64(positional), **as64(keywords))
    options = {}
    if wrt:
        outputs = expected if isinstance(expected, tuple) else (expected,)
        dtype = positional[wrt[0]].dtype
        options["grad"] = grad_request(wrt, [_upstream(out, dtype) if out.is_floating_point() else None
                                             for out in outputs])
    try:
        got = student.run(name, *positional, **keywords, **options)["value"]
    except _THEIRS as error:
        got = _Raised.of(error)
    return got, expected


def _run_refused(student, exercise, call, spec, args):
    """(theirs, the reference's refusal) where the reference refuses the call at `args` with the error the
    failing call expected (`call["refuses"]`: a ValueError for shapes it cannot score) and the student's
    code does not; or (None, None)."""
    positional, keywords = _unbind(spec.params, args, call["kwargs"])
    try:
        with torch.no_grad():
            exercise.reference_object(call["target"])(*as64(positional), **as64(keywords))
    except Exception as error:  # noqa: BLE001 - the reference's refusal, or an error that is none
        if type(error).__name__ != call["refuses"]:
            return None, None
    else:
        return None, None
    try:
        got = student.run(call["target"], *positional, **keywords)["value"]
    except _THEIRS as error:
        got = _Raised.of(error)
        if got.type == call["refuses"]:
            return None, None
    return got, _Raised(call["refuses"])


def _run_drawn(student, exercise, call, spec, args):
    """(theirs, the rule it breaks) of a function of random draws (`Drawn`) at `args`, both drawn from a
    generator seeded 0; where theirs raises, (the error, the reference's answer). (None, None) where
    theirs keeps the rules, or the reference does not (sizes it refuses). For a failed "seeded" check,
    `_run_seeded`."""
    positional, keywords = _unbind(spec.params, args, {})
    if call.get("check") == "seeded":
        return _run_seeded(student, call, spec, positional, keywords, args)
    try:
        expected = exercise.reference_object(call["target"])(*positional, **keywords, **_seeded(spec))
    except Exception:  # noqa: BLE001 - sizes the reference refuses: no example there
        return None, None
    if spec.broken(expected, args) is not None:
        return None, None
    try:
        got = student.run(call["target"], *positional, **keywords, **_seeded(spec))["value"]
    except _THEIRS as error:
        return _Raised.of(error), expected
    broken = spec.broken(got, args)
    return (got, broken) if broken else (None, None)


def _run_seeded(student, call, spec, positional, keywords, args):
    """(theirs, the rule it breaks) where SEEDED_DRAWS calls, each with a generator seeded 0, do not all
    answer alike (the generator ignored); or (None, None), also where a call has too few answers for that
    to show reliably."""
    if spec.outcomes is None or spec.outcomes(args) < SEEDED_OUTCOMES:
        return None, None
    answers = []
    for _ in range(SEEDED_DRAWS):
        try:
            answers.append(student.run(call["target"], *positional, **keywords, **_seeded(spec))["value"])
        except _THEIRS:
            return None, None
    other = next((answer for answer in answers[1:] if not _alike(answer, answers[0])), None)
    if other is None:
        return None, None
    return answers[0], (f"generators seeded alike give the same answer, and with another generator seeded 0 yours "
                        f"gave {plain(other)}")


def _seeded(spec):
    return {spec.generator: torch.Generator().manual_seed(0)}


def _alike(a, b):
    """Two answers of the student's code to one call are the same, bit for bit (NaN as NaN)."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and a.device == b.device and (torch.equal(a, b) or (
            a.is_floating_point() and bool(torch.isclose(a, b, rtol=0, atol=0, equal_nan=True).all())))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_alike(a[key], b[key]) for key in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_alike, a, b))
    if type(a) is not type(b):
        return False
    try:
        return bool(a == b) or (a != a and b != b) or repr(a) == repr(b)  # repr: a value the wire could only describe
    except Exception:  # noqa: BLE001 - an object of theirs that cannot be compared
        return repr(a) == repr(b)


CHECKS = {"device": "every tensor it makes and returns on the device of its inputs",
          "inputs-kept": "its inputs left as they were",
          ("inputs-kept", True): "a new tensor, its inputs left as they were",
          "gradient": "gradients finite wherever the float64 reference's are",
          ("gradient", NO_GRADIENT): "a gradient that reaches every input",
          ("gradient", GRADIENT_SCALED): "the float64 reference's gradients"}


def _run_check(student, exercise, call, spec, made, args, state=None, sizes=None):
    """The failing call's own check (`call["check"]`: "device" on the child's stand-in for a GPU, or
    "inputs-kept") redone at smaller sizes: (its message, what it asks for, the weights), or Nones."""
    kwargs, check = call["kwargs"], call["check"]
    if check == "parameters":
        return _parameters_differ(student, exercise, call, spec, made)
    if check == "products":
        return _run_products(student, call, spec, args)
    if check == "whole-matrix":
        return _run_whole_matrix(student, call, spec, args, sizes)
    caller, target, weights = student, call["target"], None
    if isinstance(spec, Module):  # theirs in the inputs' dtype, with the small reference's weights
        made_positional, made_keywords = _unbind(spec.made, made, call["object"].kwargs)
        reference = _small_module(exercise, call["target"], made_positional, made_keywords, state)
        remote = student.run(call["target"], *made_positional, **made_keywords)["value"]
        dtype = _dtype(args) or torch.float32
        remote.to(dtype=dtype)
        remote.load_state_dict({key: value.to(dtype) for key, value in reference.state_dict().items()}, strict=False)
        caller, target, weights = Tracked(remote, Made(call["target"])), call.get("method") or "__call__", reference.state_dict()
    params = spec.forward if isinstance(spec, Module) else spec.params
    positional, keywords = _unbind(params, args, kwargs)
    try:
        if check == "device":
            device_arg = call.get("device_arg")
            keywords = {key: value for key, value in keywords.items() if key != device_arg}
            check_device_kept(caller, target, *positional, device="cpu", what=call["target"], device_arg=device_arg,
                              **keywords)
        elif check == "gradient" and isinstance(spec, Module):
            _check_module_gradients(caller, reference, positional, call["target"], call["gradient_cause"])
        elif check == "gradient" and not keywords:
            _check_gradients(caller, exercise, target, positional, call["wrt"], list(params), call["gradient_cause"])
        else:
            check_inputs_kept(caller, target, *positional, names=call.get("names", []), new=call.get("new", False),
                              **keywords)
    except Mismatch as mismatch:
        wanted = (call["check_cause"],) if call.get("check_cause") else (
            "built-on-cpu", "input-changed-in-place", RETURNS_AN_INPUT, call.get("gradient_cause") or "-")
        if mismatch.details.get("cause") in wanted:  # the failing check's own mistake, not another the check finds
            # the symptom alone: the example shows what went wrong, a later hint how to fix it
            return (mismatch.details.get("symptom", mismatch.message),
                    CHECKS.get((check, call.get("gradient_cause") or call.get("new")), CHECKS[check]), weights)
        return None, None, None
    except _THEIRS:
        return None, None, None
    return None, None, None


def _parameters_differ(student, exercise, call, spec, made):
    """(the shapes of the student's parameters, the reference's, None) where the module made at `made`
    has parameters other than the chapter's, as the suites check them (a name, a shape, a bias it must
    not have, a buffer its state dict must not hold); or Nones."""
    positional, keywords = _unbind(spec.made, made, call["object"].kwargs)
    try:
        reference = exercise.reference_object(call["target"])(*positional, **keywords)
    except Exception:  # noqa: BLE001 - sizes the reference refuses: no example there
        return None, None, None
    try:
        state = student.run(call["target"], *positional, **keywords)["value"].state_dict()
        check_parameters(state, reference, what=call["target"], layers="", bias="", exact=True)
    except Mismatch as mismatch:
        if mismatch.details.get("cause") in (LAYERS_DIFFER, STATE_EXTRA):
            return _shapes(state), _shapes(reference.state_dict()), None
    except _THEIRS:
        pass
    return None, None, None


def _run_products(student, call, spec, args):
    """(how many matrix products theirs ran, how many it may, None) where the call at `args` runs more than
    the failing call's `at_most` (counted by the grader's probe, as the suites count them), or Nones."""
    positional, keywords = _unbind(spec.params, args, call["kwargs"])
    try:
        measured = student.largest_allocation(call["target"], *positional, **keywords)
    except _THEIRS:
        return None, None, None
    if measured.get("disabled") or measured["every_product"] <= call["at_most"]:
        return None, None, None
    return _products(measured["every_product"]), _products(call["at_most"]), None


def _run_whole_matrix(student, call, spec, args, sizes):
    """(the tensor theirs holds, what it may hold, None) where the call at `args` makes a tensor whose last
    two axes are the whole (`call["rows"]`, `call["columns"]`) matrix though its block of columns,
    `call["block"]`, is smaller (measured by the grader's probe, as the suites measure it); or Nones.
    Two rows at least: one row of the matrix is no larger than the keys themselves."""
    rows, columns, block = (sizes[call[key]] for key in ("rows", "columns", "block"))
    if rows < 2 or block >= columns:
        return None, None, None
    positional, keywords = _unbind(spec.params, args, call["kwargs"])
    try:
        measured = student.largest_allocation(call["target"], *positional, **keywords)
    except _THEIRS:
        return None, None, None
    held = next((tuple(shape) for shape in (measured["shape"], measured["element_shape"])
                 if tuple(shape[-2:]) == (rows, columns)), None)
    if measured.get("disabled") or held is None:
        return None, None, None
    width = next((name for name, declared in spec.params.items() if declared == Size(call["block"])), call["block"])
    return (f"a tensor of shape {held}: the whole ({call['rows']}, {call['columns']}) = ({rows}, {columns}) matrix",
            f"a block of it at a time, ({call['rows']}, {width}) = ({rows}, {block})", None)


def _products(n):
    return f"{n} matrix product{'' if n == 1 else 's'}"


def _shapes(state):
    return {name: tuple(value.shape) for name, value in state.items() if isinstance(value, torch.Tensor)}


def _check_gradients(student, exercise, name, args, wrt, params, wanted):
    """check_grads on `args` for the simplest upstream gradient that shows a NaN (`_upstream`); `wanted`:
    the failing check's cause, which a NaN where the reference's gradient is finite names."""
    reference = exercise.reference_object(name)
    with torch.no_grad():
        outputs = reference(*as64(args))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    upstream = [_upstream(out, args[wrt[0]].dtype) if out.is_floating_point() else None for out in outputs]
    check_grads(student, name, reference, list(args), wrt, None, what=name, names=[params[i] for i in wrt],
                upstream=upstream, nan_hint=FINITE_THERE, cause=wanted)


def _check_module_gradients(module, reference, args, name, wanted):
    """check_module_gradients of the tracked `module` (and its float64 `reference`) on `args`, x and a mask
    if given, for `_upstream`; `wanted`: as _check_gradients'."""
    x, mask = args[0], (args[1] if len(args) > 1 else None)
    check_module_gradients(module, reference, x, _upstream(reference(*as64(args)), x.dtype), mask=mask, what=name,
                           nan_hint=FINITE_THERE, cause=wanted)


def _upstream(output, dtype):
    """The simplest upstream gradient for `output` that shows a NaN: 10, 20, 30, ... (large enough that a sum
    clamped to a tiny number overflows, as the suites' large random ones do)."""
    with torch.no_grad():
        return 10 * torch.arange(1, output.numel() + 1, dtype=dtype).reshape(output.shape)


def _small_module(exercise, name, args, kwargs, state=None):
    """lumen_ref's module `name(*args, **kwargs)` in float64, its weights `state` or small integers."""
    reference = exercise.reference_object(name)(*args, **kwargs).double()
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for key, parameter in reference.named_parameters():
            parameter.copy_(torch.randint(-1, 2, parameter.shape, generator=generator) if state is None else state[key])
    return reference


def _run_module(student, exercise, name, spec, made, made_kwargs, args, kwargs, state=None):
    """(theirs, the reference's, the weights) of the module `name` made at `made` (with the weights
    `state`, or small integers), on `args`."""
    made_positional, made_keywords = _unbind(spec.made, made, made_kwargs)
    reference = _small_module(exercise, name, made_positional, made_keywords, state)
    dtype = _dtype(args) or torch.float32
    positional, keywords = _unbind(spec.forward, args, kwargs)
    try:
        remote = student.run(name, *made_positional, **made_keywords)["value"]
        remote.to(dtype=dtype)
        remote.load_state_dict({key: value.to(dtype) for key, value in reference.state_dict().items()}, strict=False)
        got = student.run(remote, *positional, method="__call__", **keywords)["value"]
    except _THEIRS as error:
        return _Raised.of(error), None, None
    with torch.no_grad(), _refused():
        expected = reference(*as64(positional), **as64(keywords))
    return got, expected, reference.state_dict()


def reproduces(student, exercise, example):
    """Does the student's code, run again on `example` (as `shrink` made it, read back from JSON),
    still differ from the reference there? For the benchmarks and tests: an example must show."""
    if "replay" in example:
        replay = example["replay"]
        dtype = getattr(torch, replay.get("dtype", "float32"))
        made = [(name, target, tuple(args), {key: getattr(torch, value) if key == "dtype" else value
                                             for key, value in kwargs.items()})
                for name, target, args, kwargs in replay["made"]]
        steps = [(name, method, [Handle(a["object"]) if isinstance(a, dict) else torch.tensor(_numbers(a), dtype=dtype)
                                 for a in args]) for name, method, args in replay["steps"]]
        scenario = Scenario(example["sizes"], made, steps, measured=replay.get("measured"), held=replay.get("held", ""),
                            backward=replay.get("backward", False))
        return _run_scenario(student, exercise, scenario, example.get("raises"),
                             replay.get("stand_in", False)) is not None
    spec = declared(exercise)[example["function"]]
    params = spec.forward if isinstance(spec, Module) else spec.params
    dtype = getattr(torch, example["dtype"]) if example.get("dtype") else torch.float32
    args = {key: _tensor_of(value, params.get(key), dtype) for key, value in example["inputs"].items()}
    for key, order in example.get("layouts", {}).items():
        args[key] = laid_out(args[key].permute(order).contiguous(), args[key].shape, order)
    kwargs = {key: args.pop(key) for key in example.get("keywords", []) if key not in params}
    kwargs.update({key: None for key in example.get("keywords", []) if key in params})
    if example.get("refuses") or isinstance(spec, Drawn):
        call = {"target": example["function"], "kwargs": kwargs, "refuses": example.get("refuses"),
                "check": example.get("check")}
        run = _run_drawn if isinstance(spec, Drawn) else _run_refused
        return run(student, exercise, call, spec, args)[0] is not None
    if example.get("check"):
        state = example.get("weights") and {key: torch.tensor(_numbers(value), dtype=torch.float64)
                                            for key, value in example["weights"].items()}
        call = {"target": example["function"], "kwargs": kwargs, "check": example["check"],
                "names": example.get("names", []), "method": "__call__", "device_arg": example.get("device_arg"),
                "wrt": example.get("wrt"), "gradient_cause": example.get("gradient_cause"),
                "at_most": example.get("at_most"), "new": example.get("new", False),
                "check_cause": example.get("check_cause"),
                **{key: example.get(key) for key in MATRIX_AXES},
                "object": Made(example["function"], (), example.get("made_keywords", {}))}
        return _run_check(student, exercise, call, spec, example.get("made"), args, state,
                          sizes={BATCH if key == "batch" else key: n for key, n in example["sizes"].items()})[0] is not None
    if isinstance(spec, Module):
        state = {key: torch.tensor(_numbers(value), dtype=torch.float64) for key, value in example["weights"].items()}
        got, expected, _ = _run_module(student, exercise, example["function"], spec, example["made"],
                                       example.get("made_keywords", {}), args, kwargs, state)
    else:
        got, expected = _run_function(student, exercise, example["function"], params, args, kwargs,
                                      example.get("wrt") if example.get("raises") else None)
    if example.get("raises"):
        return isinstance(got, _Raised) and got.type == example["raises"]
    return not isinstance(got, _Raised) and _differs(got, expected, dtype)


def _numbers(value):
    """A plain value's "nan"/"inf" strings as floats again."""
    if isinstance(value, list):
        return [_numbers(item) for item in value]
    return float(value) if isinstance(value, str) else value


def _tensor_of(value, declaration, dtype):
    if isinstance(declaration, Tensors):
        return [_tensor_of(item, declaration.each, dtype) for item in value]
    if not isinstance(declaration, Tensor):
        return value
    if declaration.kind == "mask":
        return torch.tensor(value, dtype=torch.bool)
    if declaration.kind == "lengths":
        return torch.tensor(value, dtype=torch.int64)
    return torch.tensor(_numbers(value), dtype=dtype)


class _Refused(Exception):
    """lumen_ref refuses a try's arguments (sizes its contract rules out): that try shows nothing."""


@contextmanager
def _refused():
    try:
        yield
    except (ValueError, RuntimeError, IndexError) as error:
        raise _Refused(str(error)) from error


def _their_errors():
    from grader.sandbox.judge import StudentError
    return (StudentError, Mismatch)


_THEIRS = _their_errors()


def _scenario_example(student, exercise, spec, call, target):
    """The example of the first of the scenarios of `target`'s spec (for `call`) whose answers differ,
    or, for a failed device check, whose calls on the stand-in for a GPU meet the CPU; or None."""
    stand_in = call.get("check") == "device"
    for tries, scenario in enumerate(spec.scenarios(call)):
        if tries >= MAX_TRIES // 2:  # a scenario costs several calls
            return None
        raised = call["got"].type if isinstance(call.get("got"), Raised) else None
        steps = _run_scenario(student, exercise, scenario, raised, stand_in)
        if steps is not None:
            return _scenario_dict(exercise, spec, scenario, steps, target, stand_in)
    return None


def _run_scenario(student, exercise, scenario, raised=None, stand_in=False):
    """The steps up to the first whose answers differ, [(step, theirs, the reference's)], or None if
    none differs (or their code raised where the reference answers: that shows nothing here, unless
    it is the error `raised`, the failing call's own: a ValueError where the cache is not full).
    `stand_in`: every call on the child's stand-in for a GPU, up to the first step that meets a tensor
    built on the CPU or returns one (answers that differ there are another mistake: None). A scenario
    `measured`: its steps' answers right, its last step allocates that much."""
    theirs, reference = {}, {}
    generator = torch.Generator().manual_seed(0)
    for name, target, args, kwargs in scenario.made:
        ours = exercise.reference_object(target)
        if _is_module(exercise, target):
            module = ours(*args, **kwargs).double()
            with torch.no_grad():
                for parameter in module.parameters():
                    parameter.copy_(torch.randint(-1, 2, parameter.shape, generator=generator))
            reference[name] = module
            remote = student.run(target, *args, **kwargs)["value"]
            remote.load_state_dict({key: value.float() for key, value in module.state_dict().items()}, strict=False)
        else:
            reference[name] = ours(*args, **{**_on_the_cpu(kwargs), "dtype": torch.float64})
            remote = student.run(target, *args, stand_in=stand_in, **_on_the_stand_in(kwargs))["value"]
        theirs[name] = remote
    scenario.weights = {name: module.state_dict() for name, module in reference.items()
                        if isinstance(module, torch.nn.Module)}
    done = []
    for n, step in enumerate(scenario.steps):
        name, method, args = step
        mine = [theirs[a.name] if isinstance(a, Handle) else a for a in args]
        ours = [reference[a.name] if isinstance(a, Handle) else as64(a) for a in args]
        if scenario.measured is not None and n == len(scenario.steps) - 1:
            return _measured_step(student, scenario, done, step, theirs[name], mine)
        if scenario.backward and n == len(scenario.steps) - 1:
            return _backward_step(student, scenario, done, step, theirs[name], mine, reference[name], ours)
        try:
            reply = student.run(theirs[name], *mine, method=method, stand_in=stand_in)
            got = _astray_tensor(reply) if stand_in else None
            got = reply["value"] if got is None else got
        except _THEIRS as error:
            got = _Raised.of(error)
        try:
            with torch.no_grad():
                target = reference[name]
                expected = (len(target) if method == "__len__" else
                            target(*ours) if method == "__call__" else getattr(target, method)(*ours))
                expected = map_values(expected, lambda t: t.clone() if isinstance(t, torch.Tensor) else t)  # a view of the cache
        except ValueError:
            expected = _Raised("ValueError")
        done.append((step, got, expected))
        if stand_in or scenario.measured is not None:
            if isinstance(got, _Described) or (isinstance(got, _Raised) and got.type == "DeviceMismatch"):
                break
            if isinstance(got, _Raised) or _differs(got, expected, _dtype(dict(enumerate(args))) or torch.float32):
                return None
            continue
        if isinstance(got, _Raised) or isinstance(expected, _Raised):
            if isinstance(got, _Raised) and isinstance(expected, _Raised):
                continue
            if isinstance(got, _Raised) and got.type != raised:
                return None
            break
        if _differs(got, expected, _dtype(dict(enumerate(args))) or torch.float32):
            break
    else:
        return None
    return done


def _measured_step(student, scenario, done, step, remote, args):
    """The scenario's steps with its last (`step`, on the student's object `remote`) as the grader's probe
    measures it, where it allocates at least `scenario.measured` bytes; or None."""
    try:
        measured = student.largest_allocation(remote, *args, method=step[1])
    except _THEIRS:
        return None
    if measured.get("disabled") or measured["bytes"] < scenario.measured:
        return None
    held = f"a tensor of shape {tuple(measured['shape'])}" if measured["shape"] else "memory outside torch"
    return done + [(step, _Described(f"allocates {held}, {measured['bytes']} bytes: as large as {scenario.held}"),
                    _Described(f"allocates less than {scenario.held}, {scenario.measured} bytes"))]


def _backward_step(student, scenario, done, step, remote, args, reference, ours):
    """The scenario's steps with its last (`step`: a module's forward, on the student's object `remote`)
    run backwards for `_upstream`, where no gradient reaches one of its weights; or None."""
    x = args[0]
    with torch.no_grad():
        upstream = _upstream(reference(*ours), x.dtype)
    try:
        reply = student.run(remote, *args, method=step[1], grad=grad_request([0], [upstream]))
    except _THEIRS:
        return None
    names = [name for name, _ in reference.named_parameters()]
    cut = [name for name in names if reply["param_grads"].get(name) is None]
    if not cut:
        return None
    return done + [(step, _Described(f"no gradient reaches {', '.join(cut)}"),
                    _Described(f"a gradient reaches every weight: {', '.join(names)}"))]


def _on_the_stand_in(kwargs):
    return {key: STAND_IN.type if _stands_in(value) else value for key, value in kwargs.items()}


def _on_the_cpu(kwargs):
    return {key: value for key, value in kwargs.items() if not _stands_in(value)}


def _stands_in(value):
    return isinstance(value, str) and value == ON_STAND_IN


@dataclass(frozen=True)
class _Described:
    """An answer no value shows, as a sentence: a tensor a step on the stand-in returned from the CPU
    (and where it was made), or what a measured step allocated."""

    text: str

    def __str__(self):
        return self.text


def _astray_tensor(reply):
    """The first tensor of a stand-in call's reply that is not on the stand-in, as a `_Described`, or None."""
    tensors = [item for item in leaves(reply["value"]) if isinstance(item, torch.Tensor)]
    for tensor, where in zip(tensors, reply.get("placed") or ()):
        if where is not True:
            made = f", made at {where}" if isinstance(where, str) else ""
            return _Described(f"a tensor of shape {tuple(tensor.shape)} on the CPU{made}")
    return None


@dataclass(frozen=True)
class _Raised:
    """A step that raised (its exception's type)."""

    type: str
    message: str = ""

    @staticmethod
    def of(error):
        message = getattr(error, "message", "").split(ANOMALY_HINT)[0].rstrip()  # torch's advice: not the mistake
        return _Raised(getattr(error, "type", type(error).__name__), message[:MESSAGE])

    def __str__(self):
        return f"raises {self.type}" + (f": {self.message}" if self.message else "")


def _scenario_dict(exercise, spec, scenario, steps, function, stand_in=False):
    """The example of a scenario: the objects made, each step to the first that differs with both answers."""
    made = [f"{name} = {target}({', '.join([*map(repr, args), *(f'{k}={v!r}' for k, v in kwargs.items())])})"
            for name, target, args, kwargs in scenario.made]
    lines = ["The smallest sequence of calls that shows it" + (
        f", its tensors on the grader's stand-in for a GPU ({ON_STAND_IN!r}):" if stand_in else ":")]
    lines += [f"  {line}" for line in made]
    for name, state in scenario.weights.items():
        lines.append(f"  {name}'s weights, the same in yours and in the reference:")
        for key, value in state.items():
            lines += ["  " + line for line in _block(key, value)] if value.numel() <= MAX_WEIGHTS else [
                f"      {key}: small integers (-1, 0, 1) of shape {tuple(value.shape)}"]
    shown = []
    for n, ((name, method, args), got, expected) in enumerate(steps):
        names = spec.names.get(method, ())
        names = [names[i] if i < len(names) else f"argument {i}" for i in range(len(args))]
        long = [(title, a) for title, a in zip(names, args) if isinstance(a, torch.Tensor) and len(_lines(a)) > 1]
        words = [a.name if isinstance(a, Handle) else title if (title, a) in long else _lines(a)[0]
                 for title, a in zip(names, args)]
        call = (f"len({name})" if method == "__len__" else f"{name}({', '.join(words)})" if method == "__call__"
                else f"{name}.{method}({', '.join(words)})")
        backwards = BACKWARDS if scenario.backward and n == len(steps) - 1 else ""
        lines.append(f"  {call}{backwards}" + (", where" if long else ""))
        for title, tensor in long:
            lines += ["  " + line for line in _block(title, tensor)]
        labels = spec.labels.get(method)
        given = _dtype(dict(enumerate(args)))
        for (label, want), (_, have) in zip(_items(expected, labels), _items(got, labels)):
            want_suffix, have_suffix = _suffixes(label, want, have, given)
            lines += ["  " + line for line in _both("expected" + want_suffix, _shown(want), "yours" + have_suffix,
                                                    _shown(have))]
        shown.append({"call": call, "expected": plain(_shown(expected)), "got": plain(_shown(got))})
    dtype = next((a.dtype for (_, _, args), _, _ in steps for a in args
                  if isinstance(a, torch.Tensor) and a.is_floating_point()), torch.float32)
    replay = {"made": [[name, target, list(args), {key: _dtype_name(value) if key == "dtype" else plain(value)
                                                   for key, value in kwargs.items()}]
                       for name, target, args, kwargs in scenario.made],
              "steps": [[name, method, [{"object": a.name} if isinstance(a, Handle) else plain(a) for a in args]]
                        for (name, method, args), _, _ in steps],
              "dtype": _dtype_name(dtype), "stand_in": stand_in, "measured": scenario.measured, "held": scenario.held,
              "backward": scenario.backward}
    example = {"function": function, "sizes": dict(scenario.sizes), "inputs": {"made": made, "steps": shown},
               "expected": shown[-1]["expected"], "got": shown[-1]["got"], "replay": replay, "text": "\n".join(lines)}
    last = steps[-1][1]
    if isinstance(last, _Raised):
        example["raises"] = last.type
    return example


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


def _is_module(exercise, target):
    found = exercise.reference_object(target)
    return isinstance(found, type) and issubclass(found, torch.nn.Module)


def _shown(value):
    return str(value) if isinstance(value, (_Raised, _Described)) else value


# -- symbols and sizes -------------------------------------------------------------------------


def _bind(params, args, kwargs):
    """{parameter name: value} of a call, for the declared parameters it passed."""
    names = list(params)
    bound = {names[i]: value for i, value in enumerate(args) if i < len(names)}
    bound.update({key: value for key, value in kwargs.items() if key in params})
    return bound


def _unbind(params, bound, kwargs):
    """(positional, keyword) arguments of a call from its bound values: the declared ones in order while
    they were given, the rest of the failing call's keywords as they were."""
    names, positional = list(params), []
    for name in names:
        if name not in bound or name in kwargs:
            break
        positional.append(bound[name])
    keywords = {key: (bound[key] if key in bound else value) for key, value in kwargs.items()}
    keywords.update({name: bound[name] for name in names[len(positional):] if name in bound and name not in keywords})
    return positional, keywords


def _parts(axis):
    return axis if isinstance(axis, tuple) else (axis,)


def _size_of(axis, sizes):
    return math.prod(part if isinstance(part, int) else sizes[part] for part in _parts(axis))


def _named_axes(declaration):
    return declaration.axes[1:] if declaration.axes[:1] == (BATCH,) else declaration.axes


def _symbols(values, params):
    """{symbol: its size in the failing call}, from its int arguments and its tensors' axes (a product
    solved for its one unknown symbol; an axis of 1 broadcasts, so a longer one decides), and BATCH:
    the number of batch entries."""
    facts, batch = [], ()  # (axis, its length in the call)
    for name, declaration in params.items():
        value = values.get(name)
        if isinstance(declaration, Size) and type(value) is int:
            facts.append((declaration.of, value))
        elif isinstance(declaration, Tensors) and _tensors(value):
            facts.append((declaration.count, len(value)))
            facts += [fact for item in value for fact in zip(_named_axes(declaration.each), item.shape)]
        elif isinstance(declaration, Tensor) and isinstance(value, torch.Tensor):
            axes = _named_axes(declaration)
            leading = value.dim() - len(axes)
            if leading < 0 or (leading and declaration.axes[:1] != (BATCH,)):
                raise ValueError(f"{name}: a tensor of another rank than its declaration's")
            facts += list(zip(axes, value.shape[leading:]))
            batch = tuple(torch.broadcast_shapes(batch, value.shape[:leading]))
    facts.sort(key=lambda fact: fact[1] == 1)  # a broadcast axis of 1 last
    sizes = {}
    for _ in facts:
        for axis, length in facts:
            unknown = [p for p in _parts(axis) if isinstance(p, str) and p not in sizes]
            known = math.prod(p if isinstance(p, int) else sizes[p] for p in _parts(axis) if p not in unknown)
            if len(unknown) == 1 and known and length % known == 0:
                sizes[unknown[0]] = length // known
    if math.prod(batch) > 1:
        sizes[BATCH], sizes["_batch"] = math.prod(batch), batch
    return sizes


def _smaller(size, smallest):
    """The sizes tried below `size`, smallest first: 1 to 4, then halving."""
    if not isinstance(size, int):
        return []
    tried = [n for n in SIZES if smallest <= n < size]
    half = size // 2
    while half > SIZES[-1] and half >= smallest:
        tried.append(half)
        half //= 2
    return sorted(set(tried))


def _made_at(bound, params, sizes, original, values):
    """The arguments at `sizes`: tensors cut from the failing call's (`bound`), with their values or
    simple ones of those shapes (`values`), ints the symbols' sizes; None if the sizes do not fit."""
    made = {}
    generator = torch.Generator().manual_seed(0)
    for name, value in bound.items():
        declaration = params.get(name)
        if isinstance(declaration, Size):
            if any(isinstance(p, str) and p not in sizes for p in _parts(declaration.of)):
                return None
            made[name] = _size_of(declaration.of, sizes)
        elif isinstance(declaration, Tensors) and _tensors(value):
            items = [_cut(item, declaration.each, sizes, original) for item in value[:sizes[declaration.count]]]
            if any(item is None for item in items):
                return None
            made[name] = items if values == CUT else [_fresh(item, declaration.each, values, generator) for item in items]
        elif isinstance(declaration, Tensor) and isinstance(value, torch.Tensor):
            tensor = _cut(value, declaration, sizes, original)
            if tensor is None:
                return None
            made[name] = tensor if values == CUT else _fresh(tensor, declaration, values, generator)
        else:
            made[name] = value
    return made


def _cut(value, declaration, sizes, original):
    """`value` cut to `sizes`: each axis to its symbol's new size (an axis of 1 stays: it broadcasts); the
    batch axes to one index each, or all of them if the batch stays."""
    axes = _named_axes(declaration)
    index = []
    for axis, length in zip(axes, value.shape[value.dim() - len(axes):]):
        if any(isinstance(p, str) and p not in sizes for p in _parts(axis)):
            return None
        new = _size_of(axis, sizes)
        start = sizes.get(FROM + axis, 0) if isinstance(axis, str) else 0
        if length != 1 and start + new > length:
            return None
        index.append(slice(0, 1) if length == 1 else slice(start, start + new))
    leading = value.dim() - len(axes)
    batch = [slice(None)] * leading
    if leading and sizes.get(BATCH) != original.get(BATCH):  # one entry of the batch: its index in each axis
        shape = original["_batch"]
        entry = [int(i) for i in torch.unravel_index(torch.tensor(sizes["_at"]), shape)]
        batch = [slice(0, 1) if n == 1 else slice(i, i + 1)
                 for n, i in zip(value.shape[:leading], entry[len(shape) - leading:])]
    tensor = _as_laid_out(value[tuple(batch + index)], value)
    if declaration.kind == "lengths" and declaration.at_most:
        tensor = tensor.clamp(max=sizes[declaration.at_most])
    return tensor


def _as_laid_out(cut, value):
    """`cut` (a slice of `value`) in memory as `value` lies: contiguous, or transposed as the wire sends
    it (wire.axis_order), so that a slice is not mistaken for a transposed input."""
    order = axis_order(value)
    return laid_out(cut.permute(order).contiguous(), cut.shape, order)


def _fresh(tensor, declaration, style, generator):
    """Simple values of `tensor`'s shape and dtype in `style` (COUNTING: 1, 2, 3, ... row by row, each
    entry telling where it came from; SMALL: integers from -2 to 2), or a plain causal mask."""
    if declaration.kind == "real" and tensor.is_floating_point():
        if style == COUNTING:
            values = torch.arange(1, tensor.numel() + 1).reshape(tensor.shape)
        else:
            values = torch.randint(-2, 3, tensor.shape, generator=generator)
        return torch.empty_like(tensor).copy_(values)  # its strides too: a transposed input stays transposed
    if declaration.kind == "mask" and tensor.dim() >= 2 and tensor.dtype == torch.bool and tensor.shape[-2] > 1:
        L_q, L_k = tensor.shape[-2:]
        return torch.ones(L_q, L_k, dtype=torch.bool).tril(L_k - L_q).expand(tensor.shape).clone()
    return tensor


def _tensors(value):
    return isinstance(value, (list, tuple)) and value and all(isinstance(item, torch.Tensor) for item in value)


def _dtype(args):
    found = [t.dtype for t in leaves(list(args.values())) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    return found[0] if found else None


def _differs(got, expected, dtype):
    """The student's value is not the reference's, as the suites compare them."""
    if isinstance(expected, torch.Tensor) or (isinstance(expected, tuple) and all(isinstance(e, torch.Tensor) for e in expected)):
        try:
            check_result(got, expected, what="the example", dtype=dtype)
        except Mismatch:
            return True
        return False
    if isinstance(expected, dict):
        return not isinstance(got, dict) or set(got) != set(expected) or any(_differs(got[k], expected[k], dtype) for k in expected)
    if isinstance(expected, (list, tuple)):
        return (not isinstance(got, (list, tuple)) or len(got) != len(expected)
                or any(_differs(g, e, dtype) for g, e in zip(got, expected)))
    if isinstance(expected, bool) or not isinstance(expected, (int, float)):
        return got != expected
    if type(expected) is int and isinstance(got, float):  # a count as a float: the suites want an int
        return True
    return (isinstance(got, bool) or not isinstance(got, (int, float))
            or not math.isclose(float(got), float(expected), rel_tol=1e-9, abs_tol=1e-12))


# -- the example, as the report holds it ---------------------------------------------------------


def plain(value):
    """A value as JSON holds it: tensors as nested lists (NaN and infinities as "nan", "inf", "-inf")."""
    if isinstance(value, torch.Tensor):
        return plain(value.detach().cpu().tolist())
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, float):
        if value != value:
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(value)


def _example(search):
    shown, spec = search.shown, search.spec
    sizes = {("batch" if key == BATCH else key): value for key, value in shown["sizes"].items()
             if not key.startswith("_")}
    name = search.call["target"]
    kwargs = search.call["kwargs"]
    inputs = {key: plain(value) for key, value in {**kwargs, **shown["args"]}.items()}
    made = shown["made"]
    dtype = _dtype(shown["args"])
    layouts = {key: axis_order(value) for key, value in shown["args"].items()
               if isinstance(value, torch.Tensor) and not value.is_contiguous()}
    example = {"function": name, "sizes": sizes, "inputs": inputs, "keywords": list(kwargs),
               "dtype": str(dtype).replace("torch.", "") if dtype else None,
               "expected": plain(_shown(shown["expected"])), "got": plain(_shown(shown["got"]))}
    if search.call.get("refuses"):
        example["refuses"] = search.call["refuses"]
    if layouts:  # what plain lists lose, and the mistake may need (see _layout)
        example["layouts"] = layouts
    if isinstance(shown["got"], _Raised):
        example["raises"] = shown["got"].type
        if search.crashes and search.call.get("wrt"):
            example["wrt"] = search.call["wrt"]  # it raised backwards
    if search.call.get("check"):
        example.update(check=search.call["check"], names=search.call.get("names", []),
                       at_most=search.call.get("at_most"), new=search.call.get("new", False),
                       check_cause=search.call.get("check_cause"),
                       device_arg=search.call.get("device_arg"), wrt=search.call.get("wrt"),
                       gradient_cause=search.call.get("gradient_cause"),
                       **{key: search.call.get(key) for key in MATRIX_AXES})
    if made is not None:
        example["made"] = {key: plain(value) for key, value in made.items()}
        example["made_keywords"] = {key: plain(value) for key, value in search.call["object"].kwargs.items()
                                    if key not in made}
        example["weights"] = {key: plain(value) for key, value in (shown["state"] or {}).items()}
    pictures = _pictures(shown["got"], shown["expected"], spec.picture, spec.labels)
    if pictures:
        example["pictures"] = pictures
    example["text"] = _text(name, shown, made, search, pictures)
    return example


def _items(value, labels):
    if isinstance(value, (tuple, list)) and not isinstance(value, torch.Tensor):
        labels = labels or [f"item {i}" for i in range(len(value))]
        return list(zip(labels, value))
    return [(None, value)]


def _pictures(got, expected, picture, labels):
    """[{"kind", "label", "rows", "columns", "shape", "expected", "got"}] of the results drawn as matrices
    (the first slice of any batch axes), in the format of a failed test's picture."""
    if picture is None:
        return []
    found = []
    for index, ((label, want), (_, have)) in enumerate(zip(_items(expected, labels), _items(got, labels))):
        kind = picture.get(index) if isinstance(picture, dict) else picture
        if kind is None or not isinstance(want, torch.Tensor) or not isinstance(have, torch.Tensor) \
                or want.dim() < 2 or have.shape != want.shape:
            continue
        first = (0,) * (want.dim() - 2)
        found.append({"kind": kind, "label": label, "slice": list(first), "rows": "queries", "columns": "keys",
                      "shape": list(want.shape[-2:]), "expected": picture_cells(want[first].cpu(), kind),
                      "got": picture_cells(have[first].detach().cpu(), kind)})
    return found


def _number(x, digits=4):
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, str):
        return x
    if isinstance(x, int) or float(x).is_integer() and abs(x) < 1e15:
        return str(int(x)) if not isinstance(x, int) else str(x)
    return f"{x:.{digits}g}"


PRECISE = 17  # significant digits that tell apart any two float64 values


def _both(want_title, want, have_title, have):
    """The expected and the student's values, in as many digits as it takes to tell them apart: four,
    or all of float64's where four print alike (a constant rounded to float32 is off by 1e-8)."""
    digits = 4
    if _lines(want) == _lines(have) and type(want) in (int, float) and type(have) in (int, float) \
            and type(want) is not type(have):  # 6 and 6.0: say the types
        return [f"  {want_title} = {want!r}, {_a(type(want).__name__)}",
                f"  {have_title} = {have!r}, {_a(type(have).__name__)}"]
    if _lines(want) == _lines(have) and isinstance(want, torch.Tensor) and isinstance(have, torch.Tensor) \
            and want.shape == have.shape and not torch.equal(want.cpu(), have.cpu().to(want.dtype)):
        digits = PRECISE
    return _block(want_title, want, digits) + _block(have_title, have, digits)


def _a(noun):
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _lines(value, digits=4):
    """A value as the napkin writes it: a number, a vector [1, 2], a matrix row under row; a tensor
    with more axes: each matrix under its index, or, where every axis before the matrix is 1, the
    matrix in one more bracket for each (as torch prints it), so the values show every axis."""
    if isinstance(value, torch.Tensor):
        value = plain(value)
    if not isinstance(value, list):
        return [_number(value, digits) if isinstance(value, (int, float, str)) else str(value)]
    shape = _shape(value)
    if len(shape) > 2 and set(shape[:-2]) == {1}:
        lead = len(shape) - 2
        for _ in range(lead):
            value = value[0]
        lines = ["[" * lead + line if i == 0 else " " * lead + line for i, line in enumerate(_lines(value, digits))]
        lines[-1] += "]" * lead
        return lines
    if len(shape) <= 1:
        return ["[" + ", ".join(_number(x, digits) for x in value) + "]"]
    if len(shape) == 2:
        cells = [[_number(x, digits) for x in row] for row in value]
        width = max((len(c) for row in cells for c in row), default=1)
        rows = [", ".join(c.rjust(width) for c in row) for row in cells]
        return [("[[" if i == 0 else " [") + row + ("]]" if i == len(rows) - 1 else "],") for i, row in enumerate(rows)]
    lines = []
    for index in itertools.product(*(range(n) for n in shape[:-2])):
        part = value
        for i in index:
            part = part[i]
        lines.append(f"[{', '.join(map(str, index))}, :, :] =")
        lines += ["  " + line for line in _lines(part, digits)]
    return lines


def _shape(value):
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0] if value else None
    return shape


def _block(title, value, digits=4):
    lines = _lines(value, digits)
    if len(lines) == 1:
        return [f"  {title} = {lines[0]}"]
    return [f"  {title} ="] + ["    " + line for line in lines]


def _text(name, shown, made, search, pictures):
    """The example as the chapter's napkin example reads: inputs, expected, theirs; for masks and
    weights the two pictures side by side."""
    args = shown["args"]
    shapes = ", ".join(f"{key} of shape {tuple(value.shape)}{_layout(key, value)}" if isinstance(value, torch.Tensor) else
                       f"{key} a list of {len(value)} of shape {tuple(value[0].shape)}" for key, value in args.items()
                       if isinstance(value, torch.Tensor) or _tensors(value))
    extra = [f"{key}={value!r}" for key, value in search.call["kwargs"].items() if key not in args]
    if made is not None:
        positional, keywords = _unbind(search.spec.made, made, search.call["object"].kwargs)
        built = [repr(v) for v in positional] + [f"{k}={v!r}" for k, v in keywords.items()]
        name = f"{name}({', '.join(built)})"
    named = [key if search.params.get(key) is not None else f"{key}={value!r}" for key, value in args.items()]
    call = f"{name}({', '.join([*named, *extra])})"
    if search.drawn:  # no expected value: the rule the answer breaks, or the reference's answer where theirs raised
        seeded = f"{search.spec.generator}=torch.Generator().manual_seed(0)"
        lines = [f"The smallest call that shows it: {name}({', '.join([*named, *extra, seeded])})"]
        lines += [line for key, value in args.items() for line in _block(key, value)]
        if isinstance(shown["got"], _Raised):
            return "\n".join(lines + _both("expected", shown["expected"], "yours", _shown(shown["got"])))
        got = shown["got"]
        dtype = f", {dtype_text(got.dtype)}" if isinstance(got, torch.Tensor) else ""  # float ids print as ints
        return "\n".join(lines + _block("yours" + dtype, got) + [f"  the rule it breaks: {shown['expected']}"])
    if search.call.get("check") == "parameters":  # the constructor alone: its parameters are the example
        return "\n".join([f"The smallest call that shows it: {name}",
                          f"  expected parameters: {_parameters(shown['expected'])}",
                          f"  yours:               {_parameters(shown['got'])}"])
    lines = [f"The smallest call that shows it: {call}" + (f", {shapes}" if shapes else "")
             + (", on the grader's stand-in for a GPU" if search.call.get("check") == "device" else "")
             + (BACKWARDS if search.call.get("check") == "gradient" or (search.crashes and search.call.get("wrt"))
                else "")]
    if made is not None:
        lines.append("  its weights, the same in yours and in the reference:")
        for key, value in (shown["state"] or {}).items():
            lines += ["  " + line for line in _block(key, value)] if value.numel() <= MAX_WEIGHTS else [
                f"    {key}: small integers (-1, 0, 1) of shape {tuple(value.shape)}"]
    for key, value in args.items():
        if isinstance(search.params.get(key), Tensors):
            for i, item in enumerate(value):
                lines += _block(f"{key}[{i}]", item)
        elif search.params.get(key) is not None:
            lines += _block(key, value)
    given = next((value.dtype for value in args.values() if isinstance(value, torch.Tensor) and value.is_floating_point()),
                 None)  # the inputs' dtype, which a result keeps (the expected values are computed in float64)
    expected = _items(shown["expected"], search.spec.labels)
    if isinstance(shown["got"], _Raised) and len(expected) > 1:  # it raised before returning any item: none is "yours"
        lines += [line for label, want in expected for line in _block(f"expected ({label})", want)]
        lines += _block("yours", shown["got"])
    else:
        drawn = {picture["label"] for picture in pictures if picture["kind"] == "mask" and not picture["slice"]}
        for (label, want), (_, have) in zip(expected, _items(shown["got"], search.spec.labels)):
            if label in drawn and want.dtype == have.dtype:  # its picture shows its 0s and 1s: not twice (round 80)
                continue
            want_suffix, have_suffix = _suffixes(label, want, have, given)
            lines += _both("expected" + want_suffix, want, "yours" + have_suffix, have)
    for picture in pictures:
        lines.append(f"  {picture['label'] + ': ' if picture['label'] else ''}expected and yours, "
                     f"rows are {picture['rows']}, columns {picture['columns']}")
        left = [" ".join(_cell(c) for c in row) for row in picture["expected"]]
        right = [" ".join(_cell(c) for c in row) for row in picture["got"]]
        width = max(map(len, left), default=0)
        lines += [f"    {a.ljust(width)}    {b}" for a, b in zip(left, right)]
    return "\n".join(lines)


def _suffixes(label, want, have, given):
    """What follows "expected" and "yours": the item's label, and where the values print alike, the
    shapes (axes of 1) or the dtypes (`given`: the inputs' dtype, which a result keeps)."""
    suffix = f" ({label})" if label else ""
    if not (isinstance(want, torch.Tensor) and isinstance(have, torch.Tensor)):
        return suffix, suffix
    if want.shape != have.shape:
        return tuple(f"{suffix} of shape {tuple(t.shape)}" for t in (want, have))
    if (want.dtype == torch.bool) != (have.dtype == torch.bool):  # a mask of 0s and 1s prints as a bool one does
        return tuple(f"{suffix}, {dtype_text(t.dtype)}" for t in (want, have))
    if have.is_floating_point() and given is not None and have.dtype != given:
        return f"{suffix}, {dtype_text(given)}", f"{suffix}, {dtype_text(have.dtype)}"
    return suffix, suffix


def _parameters(shapes):
    return ", ".join(f"{name} {shape}" for name, shape in shapes.items()) or "none"


def _layout(name, tensor):
    """' (stored transposed)' for an input whose memory is not in the order of its shape, which code may
    depend on (x.view), and the printed values cannot show; '' otherwise."""
    return "" if tensor.is_contiguous() else f" (stored transposed: {name}.is_contiguous() is False)"


def _cell(value):
    return f"{value:>5}" if not isinstance(value, float) else f"{value:5.2f}"
