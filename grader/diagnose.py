"""Which misconception a wrong answer shows: the failing call, replayed on the catalogue's mutants.

A test that fails records its call (`grader.testkit`): what it called, with which inputs, and what
the student's code gave back, with how any object involved was made and what was done to it before.
`diagnose` redoes that call on the reference and on each mutant of the exercise's misconceptions
(`grader.misconceptions`), all in float64, and names the misconception whose mutant gives the
student's value within the tolerance of the student's dtype. It never guesses: a mutant that gives
the reference's own answer on this call cannot be told apart and is skipped, and when mutants of
unrelated misconceptions all match, nothing is named.
"""

from contextlib import contextmanager
from functools import lru_cache

import torch

from grader import misconceptions
from grader.compare import TOLERANCES
from grader.testkit import Made, as64, map_values

# A mutant matches within 10x the tolerance of the student's dtype, the absolute part scaled by the
# largest value (a float32 sum of many products rounds in proportion to its terms): rounding, not a
# mistake, since the mistakes change values by whole factors.
SLACK = 10


def diagnose(exercise_number, call, known=()):
    """The id of the misconception whose mutant explains the student's value in `call`, or None.

    `known`: ids already found for this exercise, tried first (one that matches is the answer).
    Of several matching misconceptions, one that another includes is the narrower explanation;
    if more than one remains, the call cannot tell them apart and nothing is named.
    """
    dtype = _student_dtype(call)
    with _one_thread():
        try:
            expected = replay(misconceptions.Reference(), call, dtype)
        except Exception:  # noqa: BLE001 - inputs the reference itself refuses: nothing to compare with
            return None
        candidates = sorted(misconceptions.for_exercise(exercise_number), key=lambda m: m.id not in known)
        found = []
        for misconception in candidates:
            if any(_explains(mutant, call, expected, dtype) for mutant in _mutants(misconception.id)):
                if misconception.id in known:
                    return misconception.id
                found.append(misconception.id)
    narrowest = [i for i in found if not any(other in misconceptions.BY_ID[i].includes for other in found)]
    return narrowest[0] if len(narrowest) == 1 else None


@contextmanager
def _one_thread():
    """Torch on one thread: replays are many tiny computations, and waking the intra-op thread pool
    for each costs more than the computation (8 times the time on a busy 2-core machine)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def add(diagnoses, found):
    """Add misconception `found` to an exercise's diagnoses ({id, message} dicts) unless it is there,
    or another one there includes it; one it includes gives way to it."""
    ids = [diagnosis["id"] for diagnosis in diagnoses]
    if found in ids or any(found in misconceptions.BY_ID[i].includes for i in ids):
        return
    includes = misconceptions.BY_ID[found].includes
    diagnoses[:] = [diagnosis for diagnosis in diagnoses if diagnosis["id"] not in includes]
    diagnoses.append({"id": found, "message": misconceptions.BY_ID[found].message})


@lru_cache(maxsize=None)
def _mutants(misconception_id):
    return misconceptions.BY_ID[misconception_id].mutant_classes()


def _explains(mutant_class, call, expected, dtype):
    """Does this mutant give the student's value on the call, and something else than the reference?"""
    try:
        value = replay(mutant_class(), call, dtype)
    except Exception:  # noqa: BLE001 - the mistake cannot even run on these inputs: no match
        return False
    return matches(call["got"], value, dtype) and not matches(expected, value, dtype)


def replay(reference, call, dtype=torch.float32):
    """Redo a recorded call on `reference` (a misconceptions.Reference or a mutant), in float64: the
    earlier calls of its `history` first, on the reference's own copies of the objects involved."""
    reference.dtype = dtype
    objects = {}

    def remade(value):
        if not isinstance(value, Made):
            return as64(value)
        if id(value) not in objects:
            objects[id(value)] = reference.make(value)
        return objects[id(value)]

    def resolve(value):
        return map_values(value, remade)

    with torch.no_grad():
        for made, method, args, kwargs, _ in call.get("history", ()):
            _invoke(resolve(made), method, resolve(args), resolve(kwargs))
        target = resolve(call["object"]) if call.get("object") is not None else getattr(reference, call["target"])
        return _invoke(target, call.get("method"), resolve(call["args"]), resolve(call["kwargs"]))


def _invoke(target, method, args, kwargs):
    if method == "__len__":
        return len(target)
    return (target if method in (None, "__call__") else getattr(target, method))(*args, **kwargs)


def matches(got, value, dtype):
    """Is `got` (the student's) the same as `value` (float64), within SLACK times dtype's tolerance?"""
    if isinstance(value, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(value)
                and all(matches(g, v, dtype) for g, v in zip(got, value)))
    if isinstance(value, torch.Tensor):
        if not isinstance(got, torch.Tensor) or tuple(got.shape) != tuple(value.shape):
            return False
        if torch.bool in (got.dtype, value.dtype):
            return got.dtype == value.dtype and bool((got.cpu() == value.cpu()).all())
        rtol, atol = TOLERANCES.get(dtype, TOLERANCES[torch.float32])
        value = value.to("cpu", torch.float64)
        finite = value[torch.isfinite(value)]
        scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0  # rounding grows with it
        return bool(torch.isclose(got.detach().to("cpu", torch.float64), value, rtol=SLACK * rtol,
                                  atol=SLACK * atol * scale, equal_nan=True).all())
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == float(value)
    return False


def _student_dtype(call):
    """The dtype the student's code computed in: its first floating-point input's."""
    events = [*((args, kwargs) for _, _, args, kwargs, _ in call.get("history", ())), (call["args"], call["kwargs"])]
    for args, kwargs in reversed(events):
        for value in [*args, *kwargs.values()]:
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                return value.dtype
    return torch.float32
