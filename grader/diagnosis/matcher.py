"""Which mistake a wrong answer shows: the evidence of every failed check, weighed together.

A check that fails records its call (`grader.grading.testkit`): what it called, with which inputs, and
what the student's code gave back, with how any object involved was made and what was done to it
before; a check that passes records its call too. Once an exercise's tests have run, `conclude`
weighs all of it:

1. the catalogue (`grader.diagnosis.misconceptions`): each mutant is replayed on every failed call, in
   float64. A misconception is named only if one of its mutants gives the student's value on
   every failed call whose computation uses a step the mutant changes, at least one of them, and
   no passed call that uses only the steps the failures showed wrong contradicts it. A call that
   raised counts as well: a mutant that raises the same error there explains it. Two that fit
   equally (no call tells them apart) are named as "either ... or ..."; of two where one explains
   the other's calls and more, that one; more, nothing. A misconception of calls that use an object
   (a KV cache handed to a module) whose own failed calls nothing explains is not named: the
   mistake may be the object's.
2. what the catalogue does not explain goes to the structural analysers (`grader.diagnosis.analysers`), which
   describe the relation between the student's value and the expected one (a factor, axes, a mask
   pattern, ...). A finding is shown only if every failed call of that function that shows
   anything shows the same mistake.
3. where neither explains anything, two of the catalogue's mistakes made together (`_two_mistakes`): the one
   pair of mutants of different steps that explains every failed call.

It never guesses: no fit, no diagnosis.
"""

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

import torch

from grader.diagnosis import analysers as analyse, misconceptions
from grader.diagnosis.reference import Reference
from grader.grading.compare import TOLERANCES
from grader.nested import leaves, map_values
from grader.grading.testkit import Made, Raised, as64, one_thread
from grader.sandbox.judge import printable

MATCH, WRONG, UNUSED = "match", "wrong", "unused"
MAX_PASSING = 12  # passed calls of a function weighed against a candidate, at most (a wrong answer stays cheap)
MAX_PAIR_REPLAYS = 3000  # failed calls replayed by the search for two mistakes made together, at most


@dataclass
class Case:
    """One recorded call: the student's value, the reference's, and the dtype the student computed in."""

    call: dict
    dtype: torch.dtype
    expected: object
    wrong: bool  # the student's value differs from the reference's (not only its dtype or device)


@dataclass
class Diagnosis:
    """One diagnosis of an exercise: the dict the report shows, and the failed calls it explains."""

    id: str
    message: str
    calls: set = field(default_factory=set)
    ids: tuple = ()  # the misconceptions it names (two for "either ... or ...")
    fits: set = field(default_factory=set)  # every failed call its misconceptions explain (`calls`: those only they do)

    def as_dict(self):
        data = {"id": self.id, "message": self.message}
        if len(self.ids) > 1:
            data["ids"] = list(self.ids)
        return data


def conclude(number, failed, passed=(), causes=()):
    """The diagnoses of exercise `number` from the calls of its failed checks and of its passed ones.

    `causes`: (id, message, index into `failed` or None) of failed checks whose message names the
    mistake itself (a dtype changed, an input changed in place); they are the diagnosis when no other
    value is wrong, when the only other evidence is crashes (the whole story then), or when nothing
    explains the other evidence (a named cause teaches more than no diagnosis).
    Returns [Diagnosis], each with the indices (into `failed`) of the calls it explains.
    """
    caused = {index for _, _, index in causes}
    with one_thread():
        cases = [_case(call) for call in failed]
        evidence = [i for i, case in enumerate(cases) if case is not None and case.wrong and i not in caused]
        if not evidence:
            return _causes(causes)
        passing = _Passing(passed)
        found = _catalogue(number, cases, evidence, passing)
        explained = set().union(*(d.calls for d in found)) if found else set()
        rest = [i for i in evidence if i not in explained]
        covered = set().union(*(d.fits for d in found)) if found else set()
        if _part_unexplained(cases, covered, [i for i in evidence if i not in covered]):
            found = []  # blame only the function that holds the mistake: the part's, which nothing here names
        if rest and not any(len(d.ids) == 1 for d in found):
            found += _structural(cases, rest, passing)
        if not found and not causes:
            found = _two_mistakes(number, cases, evidence, passing)
    if causes and (not found or all(isinstance(cases[i].call["got"], Raised) for i in evidence)):
        return _causes(causes)  # a named cause is the story: the crashes that come with it are its consequence
    return found


def _part_unexplained(cases, explained, rest):
    """Do the explained calls use an object (a KV cache handed to a module) whose own calls failed in a
    way left unexplained? Then the part's mistake may be all that the calls using it show."""
    parts = {value.target for i in explained for value in leaves((cases[i].call["args"], cases[i].call["kwargs"]))
             if isinstance(value, Made)}
    return any(cases[i].call.get("object") is not None and cases[i].call["target"] in parts for i in rest)


def _causes(causes):
    """One diagnosis per kind of cause, the first message of each: at most two."""
    found = {}
    for cause, message, index in causes:
        found.setdefault(cause, Diagnosis(cause, message, set() if index is None else {index}))
    return list(found.values())[:2]


class _Passing:
    """The passed calls by function, made into cases (the reference's answer replayed) only when asked."""

    def __init__(self, calls):
        self.calls, self.cases = {}, {}
        for call in calls:
            self.calls.setdefault(_target(call), []).append(call)

    def beside(self, targets):
        """`targets` and every other method of their classes that a passed call used: len(cache) after its
        updates reads the state update keeps (round 68's m30: a length kept right, its returns wrong)."""
        classes = {name for name, method in targets if method is not None}
        return targets | {target for target in self.calls if target[0] in classes}

    def of(self, target):
        if target not in self.cases:
            made = map(_case, self.calls.get(target, [])[:MAX_PASSING])
            self.cases[target] = [case for case in made if case is not None and not case.wrong]
        return self.cases[target]


def _case(call):
    dtype = _student_dtype(call)
    try:
        expected = replay(Reference(), call, dtype)
    except Exception:  # noqa: BLE001 - inputs the reference itself refuses: nothing to compare with
        return None
    return Case(call, dtype, expected, not matches(call["got"], expected, dtype) and not _same_mask(call["got"], expected))


def _same_mask(got, expected):
    """A mask with the right entries in another dtype: the dtype message says all there is to say."""
    return (isinstance(got, torch.Tensor) and isinstance(expected, torch.Tensor) and expected.dtype == torch.bool
            and got.shape == expected.shape and bool((got.cpu() == expected.cpu()).all()))


def _catalogue(number, cases, evidence, passing):
    """The misconceptions that explain all the evidence: each named where they explain different failed
    calls (as many mistakes), two that explain the same ones as 'either ... or ...'. A diagnosis carries
    the failed calls that show it: those no other misconception explains."""
    outcomes = {}

    def outcome(variant, i):
        if (variant, i) not in outcomes:
            outcomes[variant, i] = _outcome(variant, cases[i])
        return outcomes[variant, i]

    fits = {}  # misconception id -> the failed calls it explains
    candidates = misconceptions.for_exercise(number)
    for misconception in candidates:
        for variant in _mutants(misconception.id):
            explained = _explains_all(variant, evidence, outcome)
            if explained is None:
                continue
            calls, steps = explained
            targets = {_target(cases[i].call) for i in calls}
            if not any(_contradicts(variant, case, steps, target in targets)
                       for target in passing.beside(targets) for case in passing.of(target)):
                fits.setdefault(misconception.id, set()).update(calls)
    # one that leaves failures unexplained gives way to one that explains them as well: the mistake is
    # where the calls that tell them apart point (a cache's own calls, not the forward that uses it)
    fits = {i: calls for i, calls in fits.items() if not any(calls < other for other in fits.values())}
    # nor is one named whose own function failed, unexplained, in calls that never reach the step it changes:
    # len(cache) wrong after updates alone is no reset's mistake, though the calls after a reset fit one
    # (round 69's m03)
    explained = set().union(*fits.values()) if fits else set()

    def untouched(named):
        own = {_target(cases[k].call) for k in fits[named]}
        return any(_target(cases[j].call) in own and not any(outcome(variant, j)[1] for variant in _mutants(named))
                   for j in evidence if j not in explained)

    fits = {i: calls for i, calls in fits.items() if not untouched(i)}
    # of two that both fit, one that includes the other claims more than the evidence shows
    ids = [i for i in fits if not any(other in misconceptions.BY_ID[i].includes for other in fits if other != i)]

    def alone(named):
        others = [variant for m in candidates if m.id != named for variant in _mutants(m.id)]
        shown = {i for i in fits[named] if not any(outcome(variant, i)[0] == MATCH for variant in others)}
        message = f"{_where(cases, fits[named])}: {misconceptions.BY_ID[named].message}"
        return Diagnosis(named, message, shown or fits[named], (named,), fits[named])

    if len(ids) == 1 or len(ids) > 1 and sum(len(fits[i]) for i in ids) == len(set().union(*(fits[i] for i in ids))):
        return [alone(i) for i in ids]  # each explains failures no other touches: as many mistakes (round 61's a52)
    if len(ids) == 2:
        a, b = (misconceptions.BY_ID[i] for i in ids)
        both = fits[ids[0]] & fits[ids[1]]
        message = (f"{_where(cases, both)}: these tests cannot tell two mistakes apart, and your answers fit both. "
                   f"Either: {a.message}. Or: {b.message}")
        return [Diagnosis(" | ".join(ids), message, both, tuple(ids), fits[ids[0]] | fits[ids[1]])]
    return []


def _two_mistakes(number, cases, evidence, passing):
    """Two of the catalogue's mistakes made together, where no one mistake and no analyser explains the evidence
    (round 74's m25: a softmax without its max beside attention normalised over the queries): the one pair of
    mutants, of different steps, that gives the student's value on every failed call, touched by each of its
    two, and that no passed call contradicts, named as two diagnoses. Two pairs that fit say nothing. The
    search replays MAX_PAIR_REPLAYS failed calls at most, so that a wrong answer nothing explains stays cheap."""
    candidates = [m for m in misconceptions.for_exercise(number) if m.mutants]
    budget = MAX_PAIR_REPLAYS
    singles = {}  # (id, mutant index) -> the failed calls that reach that mutant's steps

    def reached(misconception, k):
        if (misconception.id, k) not in singles:
            mutant = misconception.mutant_classes()[k]
            singles[misconception.id, k] = {i for i in evidence if _outcome(mutant, cases[i])[1]}
        return singles[misconception.id, k]

    fitting = {}
    for a, b in itertools.combinations(candidates, 2):
        if a.id in b.includes or b.id in a.includes:
            continue
        for (ka, steps_a), (kb, steps_b) in itertools.product(enumerate(a.mutants), enumerate(b.mutants)):
            if set(steps_a) & set(steps_b):
                continue
            variant = _pair_class(a.id, ka, b.id, kb)
            steps = set()
            for i in evidence:
                budget -= 1
                if budget < 0:
                    return []  # not searched through: no pair is known to be the only one
                result, used = _outcome(variant, cases[i])
                if result != MATCH:
                    break
                steps |= used
            else:
                if not (reached(a, ka) and reached(b, kb)):
                    continue  # one of the two changes nothing the failures show: a single mistake's fit
                targets = {_target(cases[i].call) for i in evidence}
                if not any(_contradicts(variant, case, steps, target in targets)
                           for target in passing.beside(targets) for case in passing.of(target)):
                    fitting[a.id, b.id] = (a, reached(a, ka)), (b, reached(b, kb))
    if len(fitting) != 1:
        return []
    [pair] = fitting.values()
    return [Diagnosis(m.id, f"{_where(cases, calls)}: {m.message}", set(calls), (m.id,), set(evidence))
            for m, calls in pair]


@lru_cache(maxsize=None)
def _pair_class(first, k, second, j):
    """The mutant that makes misconception `first`'s k-th mutant and `second`'s j-th together."""
    steps = {**misconceptions.BY_ID[first].mutants[k], **misconceptions.BY_ID[second].mutants[j]}
    return type(f"Pair_{first}_{second}".replace("-", "_").replace(":", "_"), (Reference,), steps)


def _where(cases, indices):
    """The functions whose calls show a diagnosis, as the report names them: 'split_heads(...), ...'."""
    names = []
    for i in sorted(indices):
        name = analyse.call_name(cases[i].call)
        if name not in names:
            names.append(name)
    return ", ".join(names)


def _explains_all(variant, evidence, outcome):
    """(the failed calls it explains, the steps they used) if `variant` gives the student's value on
    every failed call it touches, and touches one; None otherwise."""
    calls, steps = set(), set()
    for i in evidence:
        result, used = outcome(variant, i)
        if result == WRONG:
            return None
        if result == MATCH:
            calls.add(i)
            steps |= used
    return (calls, steps) if calls else None


def _outcome(variant, case):
    """MATCH: the variant gives the student's value, which is not the reference's (or, where the
    student's code raised, raises the same error); UNUSED: the call never reaches a step the variant
    changes, or the student's code raised and the variant breaks too in its own way (another error, or
    a value of another structure, which the student's next line may well refuse), or its value is within
    the matcher's slack of the reference's (the mistake changes nothing there: the student's value is
    another mistake's, round 65's a54; or a half-precision call that cannot tell them apart); WRONG:
    otherwise."""
    instance, used = _tracked(variant)
    raised = isinstance(case.call["got"], Raised)
    try:
        value = replay(instance, case.call, case.dtype)
    except Exception as error:  # noqa: BLE001 - the mistake cannot even run on these inputs
        if used and same_error(case.call["got"], error):
            return MATCH, used
        return (WRONG if used and not raised else UNUSED), used
    if not used:
        return UNUSED, used
    if _comparable(value, case.expected) and matches(case.expected, value, case.dtype):
        return UNUSED, used  # the reference's: whatever the student's is, this mistake is not what made it
    if raised:
        return (WRONG if _comparable(value, case.expected) else UNUSED), used
    return (MATCH if matches(case.call["got"], value, case.dtype) else WRONG), used


def _target(call):
    return call["target"], call.get("method")


def _contradicts(variant, case, steps, same=True):
    """A passed call (of a function the failures showed wrong: the student writes each function on its
    own; or, `same` false, another method of its object) that uses only steps the failures showed wrong,
    where the variant would have failed (or, on the same function, could not run)."""
    instance, used = _tracked(variant)
    try:
        value = replay(instance, case.call, case.dtype)
    except Exception:  # noqa: BLE001
        return same and bool(used) and used <= steps
    return bool(used) and used <= steps and not matches(case.call["got"], value, case.dtype)


def _tracked(variant):
    """An instance of a Reference variant that notes which of its own (overridden) steps a replay used."""
    instance, used = variant(), set()
    for name in _overridden(variant):
        method = getattr(instance, name)

        def step(*args, _method=method, _name=name, **kwargs):
            used.add(_name)
            return _method(*args, **kwargs)
        setattr(instance, name, step)
    return instance, used


@lru_cache(maxsize=None)
def _overridden(variant):
    return tuple(name for name, value in vars(variant).items() if callable(value) and not name.startswith("__"))


def _structural(cases, rest, passing):
    """Findings of the structural analysers, one per function, each found on every failed call of that
    function whose value has the expected shapes (so a coincidence of sizes on one call is not enough);
    calls of other shapes (a crash of sizes, None) only add what no comparable call contradicts. Crashes
    the first finding leaves unexplained are read on their own: a second mistake on other inputs. Of
    findings that all fit, those a passed call of the function contradicts give way."""
    by_target = {}
    for i in rest:
        by_target.setdefault(_target(cases[i].call), []).append(i)
    found = []
    for indices in by_target.values():
        diagnosis = _agreed(cases, indices, passing)
        found += diagnosis
        shown = set().union(*(d.calls for d in diagnosis))
        crashed = [i for i in indices if i not in shown and isinstance(cases[i].call["got"], Raised)]
        if diagnosis and crashed:
            found += _agreed(cases, crashed, passing)
    return _consequences_dropped(_merged(found, cases), cases)[:3]


def _agreed(cases, indices, passing):
    """[the one finding all of these calls of one function agree on], or []."""
    comparable = [i for i in indices if _comparable(cases[i].call["got"], cases[i].expected)]
    agreed, showing = None, []
    for i in comparable or indices:
        if agreed is None:
            findings = _findings(cases[i])
            if findings:
                agreed, showing = {f.key: f.message for f in findings}, [i]
            elif comparable:
                break  # a wrong value of the expected shapes that no analyser explains
            continue
        keys = _confirmed(cases[i], agreed)
        if comparable or keys:
            agreed = {key: message for key, message in agreed.items() if key in keys}
            showing.append(i)
        elif not isinstance(cases[i].call["got"], Raised):  # a value where the probe cannot even run
            agreed = {key: message for key, message in agreed.items() if key not in _unrunnable(cases[i])}
        if not agreed:
            break
    if agreed and len(agreed) > 1:
        own = _target(cases[indices[0]].call)
        passed = [(case, target == own) for target in passing.beside({own}) for case in passing.of(target)]
        agreed = {key: message for key, message in agreed.items()
                  if not any(_probe_contradicted(case, key, same) for case, same in passed)} or agreed
    if agreed and len(agreed) > 1:  # where a size came from gives way to what was done
        agreed = {key: message for key, message in agreed.items() if not analyse.is_size(key)} or agreed
    if agreed and len(agreed) > 1:  # a size read from a dim by position says less than its name
        agreed = {key: message for key, message in agreed.items() if ".size(" not in key} or agreed
    if agreed and len(set(agreed.values())) == 1:  # findings that say the same (two names of one size) are one
        agreed = dict([next(iter(agreed.items()))])
    if agreed and len(agreed) == 1:
        [(key, message)] = agreed.items()
        if all(isinstance(cases[i].call["got"], Raised) for i in showing) and any(
                key in _unrunnable(case, only=key) for case in passing.of(_target(cases[indices[0]].call))):
            return []  # it explains crashes by raising alike, and raises where the student's code answered right
        return [Diagnosis(key, message, set(showing))]
    return []


def _consequences_dropped(found, cases):
    """A crash that happens inside a function another finding already explains is that mistake's
    consequence (a split into heads done as one reshape also fails to view a slice) when its advice
    would cure only the crash and keep the mistake (`analysers.SYMPTOMS`): not named apart."""
    explained = {analyse.call_name(cases[i].call).partition("(")[0] for d in found
                 if not d.id.startswith("crash:") for i in d.calls}

    def raised_in(diagnosis):
        functions = {analyse.raising_function(cases[i].call["got"]) for i in diagnosis.calls
                     if isinstance(cases[i].call["got"], Raised)}
        return functions and functions <= explained

    return [d for d in found if not (d.id in analyse.SYMPTOMS and raised_in(d))]


def _merged(found, cases):
    """Findings of one kind in several functions as one diagnosis naming them all (the message of
    the first, whose sizes it quotes)."""
    merged = {}
    for diagnosis in found:
        if diagnosis.id not in merged:
            merged[diagnosis.id] = diagnosis
            continue
        first = merged[diagnosis.id]
        names = _where(cases, first.calls)
        if first.message.startswith(names + ": "):
            first.message = f"{_where(cases, first.calls | diagnosis.calls)}: {first.message[len(names) + 2:]}"
        first.calls |= diagnosis.calls
    return list(merged.values())


def _comparable(got, expected):
    """The student's value has the expected structure (types, lengths, shapes), only other numbers."""
    if isinstance(expected, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(expected) and all(map(_comparable, got, expected))
    if isinstance(expected, torch.Tensor):
        return isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(expected.shape)
    return type(got) is type(expected)


def _findings(case):
    """What one failed call shows: the direct analysers first, then the replayed probes (beside a
    direct finding that other mistakes' values coincide with, for the other calls to decide)."""
    try:
        findings = analyse.direct(case.call, case.expected, case.dtype)
    except Exception:  # noqa: BLE001 - an analyser that cannot read this value shows nothing
        findings = []
    if findings and not all(analyse.coincident(f.key) for f in findings):
        return findings
    return findings + [analyse.Finding(key, f"{analyse.call_name(case.call)}: {message}")
                       for key, message, change in _probes(case.call) if _probe_matches(case, change)]


def _confirmed(case, agreed):
    """The keys of `agreed` this call shows too: by the direct analysers, or by replaying that probe."""
    try:
        keys = {f.key for f in analyse.direct(case.call, case.expected, case.dtype)} & set(agreed)
    except Exception:  # noqa: BLE001
        keys = set()
    return keys | {key for key, _, change in _probes(case.call) if key in agreed and _probe_matches(case, change)}


def _probes(call):
    return [*analyse.probes(call), *analyse.substitution_probes(call)]


def _probe_matches(case, change):
    """Does the reference, with this structural change, give the student's value (and not the right one)?"""
    call = {**case.call, **change} if isinstance(change, dict) else case.call
    variant = Reference if isinstance(change, dict) else change
    try:
        value = replay(variant(), call, case.dtype)
    except Exception as error:  # noqa: BLE001
        # a crash is evidence of a mistake written as code (a variant), never of other inputs: those
        # raise shape errors of their own
        return not isinstance(change, dict) and same_error(case.call["got"], error)
    return matches(case.call["got"], value, case.dtype) and not matches(case.expected, value, case.dtype)


def _probe_contradicted(case, key, same=True):
    """Would the probe `key` (a variant) have failed this passed call? `same`: a call of the function the
    probe was found on, where a variant that cannot run is contradicted too; not so on another method of its
    object (len(cache) after a module's calls, which the variant replays with the reference's module)."""
    for probe, _, change in _probes(case.call):
        if probe == key and not isinstance(change, dict):
            try:
                return not matches(case.call["got"], replay(change(), case.call, case.dtype), case.dtype)
            except Exception:  # noqa: BLE001 - it cannot run where the student's code passed
                return same
    return False


def _unrunnable(case, only=None):
    """The keys of this call's probes (or of the one probe `only`) that raise on it: mistakes a student who
    returned a value here cannot have made (a q * k that cannot broadcast, where the student returned scores)."""
    keys = set()
    for key, _, change in _probes(case.call):
        if isinstance(change, dict) or only not in (None, key):
            continue
        try:
            replay(change(), case.call, case.dtype)
        except Exception:  # noqa: BLE001 - the very point: the variant cannot run on these inputs
            keys.add(key)
    return keys


def unseparated(number, calls):
    """The pairs of misconceptions of exercise `number` that no call of `calls` (the suites' calls on
    a correct submission) tells apart: for some mutant of each, every call gives the same value."""
    with one_thread():
        cases = [case for case in map(_case, calls) if case is not None]
        values = {}
        for misconception in misconceptions.for_exercise(number):
            for variant in _mutants(misconception.id):
                values[misconception.id, variant] = [_value(variant, case) for case in cases]
    pairs = []
    ids = [m.id for m in misconceptions.for_exercise(number)]
    for n, a in enumerate(ids):
        for b in ids[n + 1:]:
            if any(all(_same(x, y, case) for x, y, case in zip(values[a, va], values[b, vb], cases))
                   for va in _mutants(a) for vb in _mutants(b)):
                pairs.append((a, b))
    return pairs


_FAILED = object()  # a replay that raised


def _value(variant, case):
    try:
        return replay(variant(), case.call, case.dtype)
    except Exception:  # noqa: BLE001
        return _FAILED


def _same(x, y, case):
    """Two mutants' values on a call that a student's answer could not tell apart."""
    if x is _FAILED or y is _FAILED:
        return x is y
    return matches(x, y, case.dtype) if not isinstance(x, torch.Tensor) or x.dtype != torch.bool else \
        isinstance(y, torch.Tensor) and matches(x, y, case.dtype)


def diagnose(exercise_number, call, known=()):
    """The id of the misconception that alone explains the student's value in this one call, or None;
    of two this call cannot tell apart, one already `known` for the exercise."""
    for found in conclude(exercise_number, [call]):
        if len(found.ids) == 1 or set(found.ids) & set(known):
            return found.ids[0] if len(found.ids) == 1 else next(i for i in found.ids if i in known)
    return None


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


def replay(reference, call, dtype=torch.float32):
    """Redo a recorded call on `reference` (a Reference or a mutant), in float64: the
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
    """Is `got` (the student's) the same as `value` (float64), within analyse.SLACK times dtype's
    tolerance (`analyse.close`)?"""
    if isinstance(value, (tuple, list)):
        return (isinstance(got, (tuple, list)) and len(got) == len(value)
                and all(matches(g, v, dtype) for g, v in zip(got, value)))
    if isinstance(value, dict):  # find_heads' lists of heads, by kind
        return isinstance(got, dict) and set(got) == set(value) and all(matches(got[k], value[k], dtype) for k in value)
    if isinstance(value, torch.Tensor):
        return analyse.close(got, value, dtype)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == float(value)
    return False


def same_error(got, error):
    """The student's call raised (`got` is a Raised) and the replay raised `error` the same way: an
    exception of the same type with the same message. The replay has the call's own inputs, so a
    message that quotes their sizes must quote the same sizes."""
    return (isinstance(got, Raised) and type(error).__name__ == got.type
            and printable(str(error)[:2000]).strip() == got.message.strip())


def _student_dtype(call):
    """The dtype the student's code computed in: its first floating-point input's, or the coarser dtype
    of what it returned (a result cast down was computed down)."""
    dtype = torch.float32
    events = [*((args, kwargs) for _, _, args, kwargs, _ in call.get("history", ())), (call["args"], call["kwargs"])]
    found = next((value.dtype for args, kwargs in reversed(events) for value in [*args, *kwargs.values()]
                  if isinstance(value, torch.Tensor) and value.is_floating_point()), None)
    dtype = found or dtype
    returned = [t.dtype for t in leaves(call.get("got")) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    coarser = [d for d in returned if TOLERANCES.get(d, (0,))[0] > TOLERANCES.get(dtype, (0,))[0]]
    return coarser[0] if coarser else dtype

