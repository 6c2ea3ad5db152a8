"""The exercises as data: one declaration per exercise, found by name, in the chapter's order.

Each exercise is declared once, in `grader/catalog/<stem>.py` (its file stem: the name of its
solution, stub and notebook), as `EXERCISE = Exercise(...)`: its title, chapter section, the names
the student's file defines, the `lumen_ref` modules that hold their reference, the forbidden
shortcuts, the performance cases, the notebook's introduction, and for `lumen-grade check` the
reference's checks, its functions' `Shapes` and the `Rule`s its stub writes. Its number and stem come from the file name. Every part of the grader reads
an exercise from here: the CLI, the sandbox's rules, perf, check, release and the notebooks.

This package imports no torch (`lumen-grade --help` reads it): a declaration imports what its
functions need inside them.
"""

import importlib
import pkgutil
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

FOLDER = Path(__file__).parent  # one package per exercise


@dataclass(frozen=True)
class Perf:
    """An exercise's performance cases: `cases(**sizes[device])` gives the cases timed on a device
    ("cpu" or "cuda"), a list of `grader.perf.cases` specs."""

    sizes: dict
    cases: object  # a function of the sizes' keywords


@dataclass(frozen=True)
class Shapes:
    """The sizes a graded function's calls have, for `lumen-grade check`'s separating-sizes row:
    each argument as "name: axes" (a tensor's axes, the last ones last, "..." for any leading batch
    dims; an int's one size; a list's first tensor), read by position or by keyword. A class: `made`
    for its constructor, `args` for calling it, `methods` for its other methods. `derived`: sizes ->
    the sizes they imply (d_k = D / H). The chapter's names: B, H, H_kv, L, L_q, L_k, D, d_k, d_v."""

    args: tuple = ()
    made: tuple = ()
    methods: dict = field(default_factory=dict)  # method name -> its arguments, as `args`
    derived: object = None

    def names(self):
        """Every size this function's calls can have."""
        specs = (*self.args, *self.made, *(spec for specs in self.methods.values() for spec in specs))
        declared = {axis for spec in specs for axis in _axes(spec)[1] if axis != "..."}
        return declared | set(self._derived(dict.fromkeys(declared, 1)))

    def of(self, call):
        """{size: value} of one recorded call (a suite's call dict: `args`, `kwargs`, and for an
        object's method `object`, how it was made, and `method`); sizes it cannot read are left out."""
        sizes = {}
        made = call.get("object")
        if made is not None:
            _read(self.made, made.args, made.kwargs, sizes)
        method = call.get("method")
        _read(self.args if method in (None, "__call__") else self.methods.get(method, ()),
              call.get("args", ()), call.get("kwargs", {}), sizes)
        return {**self._derived(sizes), **sizes}

    def _derived(self, sizes):
        try:
            return self.derived(sizes) if self.derived else {}
        except KeyError:  # a call without the sizes they are made of
            return {}


def _axes(spec):
    name, _, axes = spec.partition(":")
    return name.strip(), (axes.split() if axes.strip() else [name.strip()])


def _read(specs, args, kwargs, sizes):
    """Add to `sizes` what the arguments `args`, `kwargs` of a call hold, by the `specs` of Shapes."""
    for position, spec in enumerate(specs):
        name, axes = _axes(spec)
        value = args[position] if position < len(args) else kwargs.get(name)
        if isinstance(value, (list, tuple)) and value:
            value = value[0]
        shape = getattr(value, "shape", None)
        if shape is None:
            if type(value) is int:
                sizes[axes[0]] = value
            continue
        named = [axis for axis in axes if axis != "..."]
        if len(shape) != len(named) and not ("..." in axes and len(shape) >= len(named)):
            continue  # not the declared rank: nothing read
        for axis, size in zip(named, tuple(shape)[len(shape) - len(named):]):
            sizes.setdefault(axis, int(size))


@dataclass(frozen=True)
class Rule:
    """A rule the student's file must keep, written in the stub and graded by the suite, for
    `lumen-grade check`'s row of rules: `phrase`, quoted from the stub's docstrings (whitespace
    aside), and the tests that grade it. `breaks`: (old, new), an edit of the solution that breaks
    the rule, which must then fail one of `tests`."""

    phrase: str
    tests: tuple
    breaks: tuple = None


@dataclass(frozen=True)
class Exercise:
    """One step of the chapter: the student's file, what it defines, where the chapter explains it,
    and everything the grader needs to grade, time and check it."""

    title: str
    section: str  # the chapter section a stuck student should reread (one of CHAPTER_SECTIONS)
    names: tuple  # what the student's file must define
    introduction: str = field(repr=False)  # the notebook's opening Markdown
    reference: tuple = ()  # lumen_ref modules holding the reference of `names`, under the same names
    forbidden: tuple = ()  # ids of grader.sandbox.rules.RULES that apply beyond every exercise's own
    watched: tuple = ()  # of `names`, or "Name.method" (a method of the objects Name makes): every call the
                         # suites make is measured by the grader's probe, so that a call a test checks the
                         # measure of is no different from any other (round 28's a03)
    perf: Perf = field(default=None, compare=False)  # None: not timed
    oracle_checks: object = field(default=None, repr=False, compare=False)  # r -> (what, lumen_ref's, grader.oracle's)
    builtin_checks: object = field(default=None, repr=False, compare=False)  # r -> (what, lumen_ref's, torch's)
    shapes: dict = field(default=None, repr=False, compare=False)  # each of `names` -> its Shapes
    rules: tuple = field(default=None, repr=False, compare=False)  # the Rules its stub states
    number: int = None  # from the declaration's file name
    stem: str = None  # file name without .py, shared by exercises/, solutions/ and notebooks

    @property
    def id(self):
        return f"exercise{self.number}"

    @property
    def file_name(self):
        return f"{self.stem}.py"

    @property
    def folder(self):
        """The exercise's package: its declaration, hidden suite, misconceptions and probes."""
        return FOLDER / self.stem

    @property
    def suite(self):
        """The exercise's hidden pytest suite."""
        return self.folder / f"test_{self.id}.py"

    @property
    def timed(self):
        return self.perf is not None

    def perf_cases(self, device):
        """The cases timed on `device` ("cpu" or "cuda"), in order; [] for an untimed exercise."""
        return list(self.perf.cases(**self.perf.sizes[device])) if self.perf else []

    def reference_object(self, name):
        """The reference (lumen_ref's function or class) of one of `names`."""
        for module in self.reference:
            found = getattr(importlib.import_module(f"lumen_ref.{module}"), name, None)
            if found is not None:
                return found
        raise LookupError(f"{self.id}: no {name} in lumen_ref.{', lumen_ref.'.join(self.reference) or '?'}")


_DECLARATION = re.compile(r"exercise(\d+)_\w+")


def _declared():
    """Every `EXERCISE` of this package's `exercise<N>_*.py` modules, numbered and in order."""
    found = []
    for info in pkgutil.iter_modules(__path__):
        match = _DECLARATION.fullmatch(info.name)
        if match and info.ispkg:
            module = importlib.import_module(f"{__name__}.{info.name}")
            found.append(replace(module.EXERCISE, number=int(match.group(1)), stem=info.name))
    found.sort(key=lambda exercise: exercise.number)
    numbers = [exercise.number for exercise in found]
    if len(set(numbers)) != len(numbers):
        raise ImportError(f"two declarations share a number in {__path__[0]}: {numbers}")
    return tuple(found)


# The section titles of the course's attention chapter, in its order: what the exercises, their
# hints, the notebooks' introductions and the diagnoses may send a student to reread. (The chapter
# itself is not part of the kit; tests check every reference against this list.)
CHAPTER_SECTIONS = (
    "The problem: a token's meaning depends on context",
    "The library analogy: query, key, value",
    "Anatomy of attention: one token's point of view",
    "Step 1 — Project: make a query, keys and values",
    "Step 2 — Score every key",
    "Step 3 — Scale",
    "Step 4 — Softmax: turn scores into weights",
    "Step 5 — Weighted sum of values",
    "The matrix form",
    "Why divide by √d_k?",
    "Causal masking: no peeking at the future",
    "Multi-head attention",
    "Splitting the model width into heads",
    "What heads learn",
    "Previous-token heads and positional heads",
    "Induction heads",
    "Attention patterns as pictures",
    "The cost: attention is quadratic in sequence length",
    "The KV cache: a preview",
    "Grouped-query and multi-query attention",
    "Implementation walkthrough in PyTorch",
    "Common confusions",
    "Practice",
    "Further reading",
)

EXERCISES = _declared()
_BY_NUMBER = {exercise.number: exercise for exercise in EXERCISES}


class UnknownExercise(LookupError):
    """A name that is not one of the catalogue's exercises."""


def find(name):
    """'exercise3', '3', 'ex3' or 'exercise3_scaling' -> the exercise; UnknownExercise otherwise."""
    key = name.strip().lower()
    match = re.fullmatch(r"(?:ex(?:ercise)?)?(\d+)(_\w+)?", key)
    exercise = _BY_NUMBER.get(int(match.group(1))) if match else None
    if exercise is None or (match.group(2) and key != exercise.stem):
        raise UnknownExercise(name)
    return exercise


def for_suite(file_name):
    """The exercise a suite file belongs to, by its name: test_exercise3*.py -> exercise3."""
    match = re.match(r"test_exercise(\d+)", file_name)
    return _BY_NUMBER.get(int(match.group(1))) if match else None

