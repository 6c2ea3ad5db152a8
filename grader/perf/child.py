"""Timing for the performance tiers, in the child (the judge's side is `grader.perf.judge`).

The grading run imports this module before its sandbox's zygote forks (`grader.grading.runner`, and
`grader.perf.judge`): it registers the children's "bench" op (`grader.sandbox.child.OPS`), and the
random generators and torch entry points captured here and in `grader.perf.cases` (the clocks:
`grader.sandbox.clock`) are the real ones in every child, whatever a submission patches later; and
what it patches in this module's globals cannot make its code look faster than the judge,
measuring its process from outside, saw it (`grader.perf.judge`).

What a child does for the timing:
- around every call of the student's code, the suites' and the timing's alike, the sandbox reads
  its clocks (`grader.sandbox.clock`): the CPU time of the calling thread (one intra-op thread,
  which other processes on the machine barely disturb), the process's CPU time, the wall time and how often the thread waited,
  so that the judge can charge work handed to other threads (process CPU time) and waiting (wall
  time) to the code that does it; on CUDA, after synchronising the device;
- the reference's child (one that never loaded a student file) `adopt`s an exercise's reference
  and then answers the same calls as a student's child, watched by the same rules;
- exercise 10's memory verdict (`allocations`, and the suites' `largest_allocation` op), measured
  by a probe that reads as disabled when the student's code switches it off (`grader.perf.probe`),
  which also measures every call the suites make of an exercise's `watched` names (`watched_call`,
  `grader.sandbox.child.WATCH`); the decode and allocation cases' verification, and
  a KV cache's storage (`storages`) are requests of their own (`handle`);
- `time_case`: the in-process timing loop of `benchmarks/reference_vs_fused.py`, which never
  holds student code.
"""
import gc
import importlib.util
import os
import random
import sys
import types

import torch
from grader import catalog
from grader.perf import probe
from grader.perf.cases import Allocations, build, decode_program, generator, real_torch
from grader.perf.rounds import Rounds, calls_per_timing
from grader.sandbox import child as sandbox_child, clock, rules

_Random = random.Random
_no_grad = torch.no_grad
_set_num_threads = torch.set_num_threads
_cuda_event = torch.cuda.Event
_fused_sdpa = torch.nn.functional.scaled_dot_product_attention
real_torch()  # the inputs' torch functions, captured now too


# -- the reference, privately -----------------------------------------------------------------

_REFERENCE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "lumen_ref")
_REFERENCE_FILES = tuple(dict.fromkeys(module for exercise in catalog.EXERCISES for module in exercise.reference))
_loaded = {}


def _fused_attention(q, k, v, mask=None):
    """torch's fused kernel in the reference's place; it never forms the weights, so None."""
    return _fused_sdpa(q, k, v, attn_mask=mask), None


def _fused_tiled(q, k, v, block_size, causal=False):
    """torch's fused attention in the tiled reference's place (its own kernel picks the blocks)."""
    return _fused_sdpa(q, k, v, is_causal=causal)


def reference(fused=False):
    """lumen_ref loaded from its files under a private name, never as `lumen_ref`, so that nothing
    the student's code imports or looks up by that name finds it. Loaded only in a child whose
    correctness was decided before. With `fused`, torch's fused attention replaces the reference's
    in every class: the "how far from production" comparison, with everything else identical."""
    if fused in _loaded:
        return _loaded[fused]
    package = types.ModuleType("lumen_ref")
    package.__path__ = [_REFERENCE_DIR]
    names = ["lumen_ref", *(f"lumen_ref.{stem}" for stem in _REFERENCE_FILES)]
    saved = {name: sys.modules.get(name) for name in names}
    namespace = {}
    try:
        sys.modules["lumen_ref"] = package  # the package's own `from lumen_ref.steps import ...`
        for stem in _REFERENCE_FILES:
            path = os.path.join(_REFERENCE_DIR, f"{stem}.py")
            spec = importlib.util.spec_from_file_location(f"_lumen_perf_reference.{stem}", path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[f"lumen_ref.{stem}"] = module
            spec.loader.exec_module(module)
            if fused and stem == "attention":
                module.scaled_dot_product_attention = _fused_attention
            if fused and stem == "tiled":
                module.tiled_attention = _fused_tiled
            namespace.update((key, value) for key, value in vars(module).items() if not key.startswith("_"))
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    _loaded[fused] = types.SimpleNamespace(**namespace)
    return _loaded[fused]


# -- timing -----------------------------------------------------------------------------------


def _clock(device, fn, arg_sets):
    """(time, process CPU time, wall time, waits) of fn over every argument set, read as the sandbox
    reads them around a call (`grader.sandbox.clock`); on CUDA `time` is the time between CUDA
    events around the calls."""
    if device != "cuda":
        start = clock.read()
        for args in arg_sets:
            fn(*args)
        return tuple(clock.since(start))
    events = _cuda_event(enable_timing=True), _cuda_event(enable_timing=True)
    start = clock.read()  # after synchronising the device
    events[0].record()
    for args in arg_sets:
        fn(*args)
    events[1].record()
    _, process, wall, waits = clock.since(start)  # synchronises again
    return events[0].elapsed_time(events[1]) / 1e3, process, wall, waits


def _fresh(arg_sets):
    """Each implementation's own copy of the round's inputs, made just before its timing."""
    return [tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args) for args in arg_sets]



def time_case(fns, make_args_for, device, seed, budget, bounds, watch=("student", "reference")):
    """Time every implementation in `fns` (name -> callable) in turn, in a random order each
    round; make_args_for(round) gives the round's inputs, and the ratio of the two `watch`ed
    implementations' times decides when to stop (see Rounds).

    Returns {clock: {name: [seconds per call, one per round]} for each of CLOCKS, "calls": n}:
    each timing repeats the call n times (each on its own copy of the inputs), so that it lasts
    long enough for the clock, after one untimed call that leaves memory (the allocator's free
    blocks, the caches) as the timed calls will find it, whatever ran before."""
    order = _Random(seed)
    warm = {}
    for name, fn in fns.items():  # warm-up; a second call unless the first was slow
        warm[name] = _clock(device, fn, _fresh([make_args_for(-2)]))[0]
        if warm[name] < budget / 10:
            warm[name] = _clock(device, fn, _fresh([make_args_for(-1)]))[0]
    calls = calls_per_timing(warm, budget, device)
    rounds = Rounds(fns, budget, bounds, device)
    while not rounds.done(*(rounds.clocks["time"][name] for name in watch)):
        args = make_args_for(len(rounds.clocks["time"][watch[0]]))
        names = list(fns)
        order.shuffle(names)
        for name in names:
            _set_num_threads(1)  # in case the student's code asked for more
            first, *timed = _fresh([args] * (calls + 1))
            fns[name](*first)  # untimed: the timed calls find memory as this code leaves it, not the last
            rounds.add(name, _clock(device, fns[name], timed), calls)
    return {**rounds.clocks, "calls": calls}


def storages(obj, alive=None):
    """{data pointer: bytes} of the tensors (and bare storages) an object holds, at any depth, in whatever
    holds them (round 56's a02 hid a cache's storage five lists down; round 63's h08 kept it in a deque,
    round 64's a04 a copy of the past in a `slice`): the memory a KV cache really keeps; `alive`, a list,
    gets the storages themselves (kept, no address of theirs is another's while it lives). Everything the
    object refers to is read but what leads to every object of the process (classes, modules, code,
    frames, a function's globals: of a function, its closure and defaults are read, of a generator its
    frame's locals), and a tensor is not read inside (its autograd graph holds its inputs). They are found
    by the interpreter's own traversal (`gc.get_referents`), never by asking the object or its
    containers, and their types by `type`: no code of the student's runs while it is looked at (a
    `__dict__` or `__class__` property, a list's `__iter__`), so it can neither show other tensors
    than it holds nor do work untimed. An object holding more than MAX_HELD_OBJECTS is not read
    (HeldTooMuch): what it keeps cannot be vouched for."""
    kept, seen, level = {}, {id(obj)}, [obj]
    while level:
        inside = []
        for item in gc.get_referents(*level):
            if id(item) in seen:
                continue
            seen.add(id(item))
            if len(seen) > MAX_HELD_OBJECTS:
                raise HeldTooMuch(f"your object holds more than {MAX_HELD_OBJECTS:,} Python objects, more than the "
                                  "grader reads to find the tensors it keeps")
            kind = type(item)  # never isinstance: it asks the object's own `__class__`, which may be code (round 17's a1)
            if issubclass(kind, torch.Tensor):
                with torch._C.DisableTorchFunction():  # a subclass's __torch_function__ is the student's code
                    storage = torch.Tensor.untyped_storage(item)
            elif issubclass(kind, torch.UntypedStorage):
                storage = item
            else:
                inside += _held_by(item, kind)  # never a key's __eq__ (round 11's a02)
                continue
            kept[storage.data_ptr()] = storage.nbytes()
            if alive is not None:
                alive.append(storage)
        level = inside
    return kept


def _held_by(item, kind):
    """What `storages` reads of `item` (of type `kind`), through `gc.get_referents`: the item itself, or of a
    function its closure's cells and its defaults, of a generator or coroutine its frame's locals, and nothing
    of what leads to every object (_NOT_HELD)."""
    if issubclass(kind, _NOT_HELD):
        return []
    if kind is types.FunctionType:
        return [item.__closure__ or (), item.__defaults__ or (), item.__kwdefaults__ or {}]
    if kind in _RUNNING:
        frame = _RUNNING[kind].__get__(item)
        return [frame.f_locals] if frame is not None else []
    return [item]


class HeldTooMuch(ValueError):
    """An object whose tensors `storages` would have to read past MAX_HELD_OBJECTS to find."""


MAX_HELD_OBJECTS = 1 << 17  # what a KV cache holds: its tensors and a few numbers, thousands at the most
# what `storages` does not read: classes, modules, code and frames (a cache's reference to its module, a
# class or a frame would reach every tensor of the process)
_NOT_HELD = (type, types.ModuleType, types.CodeType, types.FrameType, types.TracebackType)
# the frames of suspended code, read from the types themselves (a subclass cannot be made of these)
_RUNNING = {types.GeneratorType: types.GeneratorType.gi_frame, types.CoroutineType: types.CoroutineType.cr_frame,
            types.AsyncGeneratorType: types.AsyncGeneratorType.ag_frame}


# -- timing across processes ---------------------------------------------------------------------
# The student's code is timed in its own confined process, under the exercise's rules, through the
# very calls the suites make (`grader.sandbox.child.Session.call` reads `clocks` around each); the
# reference (and torch's fused attention) in another, which never holds student code and answers
# the same calls once it has adopted an exercise's reference (`adopt`). The judge interleaves them
# call by call (`grader.perf.judge`).


# -- memory: the largest tensor a call allocates (exercise 10; the probe: grader.perf.probe) ----------


def allocations(case, impl, device, seed):
    """{"bytes": [...], "shapes": [...], "disabled"}: the largest tensor `impl`'s case.target allocates, per
    length, and why the probe was disabled in any of the calls (None if never)."""
    fn, found = getattr(impl, case.target), {"bytes": [], "shapes": [], "disabled": None}
    with _no_grad():  # unmeasured: what starts lazily (a thread pool, a CUDA handle) starts here, not in the probe
        fn(*case.args(case.lengths[0], generator(seed + 10), device))
    for index, length in enumerate(case.lengths):
        measured = probe.measure(fn, case.args(length, generator(seed + 11 + index), device))
        found["bytes"].append(measured["bytes"])
        found["shapes"].append(measured["shape"])
        found["disabled"] = found["disabled"] or measured["disabled"]
    return found


def largest_allocation(session, request):
    """The child's "largest_allocation" op: one call of the student's code, as a "call" request
    names it, measured by the probe (`grader.perf.probe.measure`): {"bytes", "shape", "disabled"}. Of
    an object's method, the storages the object holds before the call are not new (a KV cache's), and
    one it holds after that it did not before was made by the call, whatever made it (round 32's a05 kept
    its copies in numpy's memory, which no torch operation allocates)."""
    obj, fn = session.target(request)
    _, measured = _measured_call(fn, session.resolve(request["args"]), session.resolve(request["kwargs"]),
                                 obj if request.get("method") else None, session.threads)
    return {"value": measured}


def _measured_call(fn, args, kwargs, obj, threads=None):
    """(fn's value, the probe's measure of the call); obj: the object whose method fn is, or None;
    threads: the most threads the process may have during the call (`probe.measure`)."""
    alive = []  # the object's storages, kept through the call: one it frees would give its address to a
    # new one, which the probe would read as the object's own (round 52's a01: a whole copy of a cache's past)
    unread = None
    try:
        held = storages(obj, alive) if obj is not None else {}
    except HeldTooMuch as error:
        held, unread = {}, str(error)
    value = []  # fn itself is measured: what it returns is read by the probe (`returned`)
    measured = probe.measure(fn, args, kwargs, held=held, kept=value, threads=threads)
    if obj is not None and unread is None:
        try:
            kept = [size for pointer, size in storages(obj).items() if pointer not in held]
        except HeldTooMuch as error:
            kept, unread = [], str(error)
        if kept and max(kept) > measured["bytes"]:
            measured.update(bytes=max(kept), shape=[])
    if unread is not None:
        measured["disabled"] = measured["disabled"] or f"{probe.DISABLED}: {unread}"
    del alive
    return (value[0] if value else None), measured


WATCHED = ("products", "every_product", "reductions", "combining", "returned", "bytes", "shape", "written",
           "read_most", "widest", "peak", "exported", "disabled")  # a watched call's measure


def watched_call(fn, args, kwargs, obj=None, threads=None):
    """A call of a watched name (`Exercise.watched`), as the suites make every one: its value, and
    what the probe measured of it (WATCHED); obj: the object whose method fn is, or None; threads: as
    `_measured_call`'s."""
    value, measured = _measured_call(fn, args, kwargs, obj, threads)
    return value, {key: measured[key] for key in WATCHED}


def adopt(session, exercise):
    """Make the reference's child answer "call" requests as a student's child does: its module the
    exercise's reference (each name also as "fused.NAME", with torch's fused attention in the
    reference's place), watched as the student's code is, by the exercise's rules that refuse
    nothing, so that both sides of a timing pay the same for everything around the call."""
    names = catalog.find(exercise).names
    plain, fused = reference(), reference(fused=True)
    session.module = types.SimpleNamespace(**{name: getattr(plain, name) for name in names},
                                           **{f"fused.{name}": getattr(fused, name) for name in names})
    session.objects.clear()
    watcher = rules.Guard(catalog.find(exercise).forbidden, os.devnull)
    watcher.flag = lambda rule, called, raise_=True: None
    session.guard = watcher
    return {"value": sorted(names)}


# the storages the last "storages" request found, kept alive until the next one: a cache that drops its storage
# and makes it anew would otherwise find it at the same address, read as the one it had (round 55's a03)
_LAST_READ = []
WARM_HEAP = 8 << 20  # bytes: more than a timed case of the CPU's sizes holds at once


def handle(session, request):
    """The child's "bench" op. In the student's process (one that loaded a student file) only the
    student's code is built; in a process that never loaded one, the reference (and with "fused",
    torch's fused attention in its place). Actions: "adopt" (see `adopt`), "storages" (see
    `storages`: of an object a call made, by its handle's number), "verify" (the student's
    output on a decode or allocation case's verification inputs), "allocations" (an Allocations
    case, measured here)."""
    if request["action"] == "adopt":
        if session.path is not None:
            raise ValueError("a student's process never adopts the reference")
        return adopt(session, str(request["exercise"]))
    if request["action"] == "storages":  # of an object the calls made (a KV cache), by its handle
        try:
            found = storages(session.objects[request["ref"]], alive := [])
        except HeldTooMuch as error:
            return {"value": str(error)}
        _LAST_READ[:] = alive  # alive until the next read: a storage the object drops keeps its address
        return {"value": {str(pointer): size for pointer, size in found.items()}}
    device, seed = request["device"], int(request["seed"])
    case = catalog.find(request["exercise"]).perf_cases(device)[int(request["case"])]
    action = request["action"]
    if action == "verify":  # only ever asked of a student's process
        if session.path is None:
            raise ValueError("only a student's process verifies its code")
        with _no_grad():
            if isinstance(case, Allocations):
                return {"value": getattr(session.module, case.target)(*case.args(case.lengths[0], generator(seed), device))}
            module = build(case, session.module, request.get("state"), device)
            return {"value": decode_program(case, module, session.module.KVCache, generator(seed), device)}
    if action == "allocations":
        impl = session.module if session.path is not None else reference()
        return {"value": allocations(case, impl, device, seed)}
    raise ValueError(f"unknown bench action {action!r}")


def _serve_bench(session, request):
    """The "bench" op of every child. The reference's child (no student file loaded) times the
    reference under the exercise's rules, mirrored, so that both sides pay the same for being watched.
    "warm", asked of a child before it is timed, faults its heap in (`grader.sandbox.child.warm_heap`)."""
    if request.get("action") == "warm":
        sandbox_child.warm_heap(WARM_HEAP)
        return {"value": None}
    if session.guard is None:
        with rules.mirrored(catalog.find(str(request.get("exercise"))).forbidden):
            return handle(session, request)
    return handle(session, request)


sandbox_child.OPS["bench"] = _serve_bench
sandbox_child.OPS["largest_allocation"] = largest_allocation
sandbox_child.WATCH = watched_call
