"""What the generic analysers know of the exercises' functions: each exercise's package declares its
functions' traits in `grader/catalog/<stem>/probes.py` as `TRAITS = {name: Traits(...)}`, and this
module gathers them (the engine names no exercise).

A trait is a role (what kind of step a function is, which decides the structural probes and
findings tried on its calls) or a label (the names of its arguments, results and axes, and what
its scores are divided by). Roles: "scores" (a score matrix of queries by keys), "qk" (its
quantities come from q, k and v), "scores-width" (from the scores and d_k), "projects" (from the
input x), "counts" (its arguments are counts, named by `quantities`), "attends" (softmax-weighted
attention), "module" (an attention module, whose object gives the sizes), "gqa" (grouped
queries), "splits" / "merges" (splitting into / merging heads), "fused" (a fused q | k | v
projection), "fused-per-head", "view-scores" (computes Q Kᵀ), "decodes" (attends with a KV
cache), "caches" (a KV cache object or a module holding one), "stores" (the KV cache itself),
"repeats-heads" (repeat_kv-like), "softmax" (a softmax along a dim).
"""

import importlib
from dataclasses import dataclass, field

from grader import catalog


@dataclass(frozen=True)
class Traits:
    roles: frozenset = frozenset()
    args: tuple = None  # the names of its tensor arguments, in order
    labels: tuple = None  # the names of the items of the tuple it returns
    method_labels: dict = field(default_factory=dict)  # an object's method -> the names of its tuple's items
    axes: tuple = None  # the names of its result's axes, the last ones last
    divisor: tuple = None  # (what its scores are divided by, a function of the call's quantities)
    explains_first: tuple = ()  # items of its result in the order they explain each other
    quantities: tuple = ()  # "counts": the names of its arguments, in order
    defaults: dict = field(default_factory=dict)  # "counts": the values of the arguments left out


def _gathered():
    """{function or class name: Traits} of every exercise package's probes.py, in catalogue order."""
    found = {}
    for exercise in catalog.EXERCISES:
        if (exercise.folder / "probes.py").is_file():
            found.update(importlib.import_module(f"grader.catalog.{exercise.stem}.probes").TRAITS)
    return found


TRAITS = _gathered()
NONE = Traits()


def of(name):
    """The traits of a function or class (none for a name no exercise declares)."""
    return TRAITS.get(name, NONE)


def has(name, role):
    return role in of(name).roles
