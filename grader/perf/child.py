"""Timing for the performance tiers, in the child (the judge's side is `grader.perf.judge`).

The grading run imports this module before its sandbox's zygote forks (`grader.grading.runner`, and
`grader.perf.judge`): it registers the children's "bench" op (`grader.sandbox.child.OPS`), and the
clocks, random generators and torch entry points captured here and in `grader.perf.cases` are the
real ones in every child, whatever a submission patches later.

How one case is timed (the method measured to be stable on noisy shared CPUs):
- the student's code, the reference and (where the case has one) torch's fused attention are timed
  in turn, in a random order each round, every round on fresh inputs, each timing after an
  untimed call (without it, whichever runs first in a round is measurably slower);
- on the CPU the clock is the CPU time of this thread (`time.thread_time`) with one intra-op
  thread, which other processes on the machine barely disturb. The process's CPU time, the wall
  time and how often the thread waited are kept too, so that the judge can charge work handed to
  other threads (process CPU time) and waiting (wall time) to the code that does it;
- on CUDA, CUDA events around the calls, with the device synchronised before and after;
- 20 rounds, more while the median ratio is close to a tier boundary, within a time budget
  (`grader.perf.rounds`).
"""
import importlib.util
import os
import random
import sys
import time
import types

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from grader import catalog
from grader.nested import leaves
from grader.perf.cases import Allocations, Decode, Randn, build, decode_program, generator, make_args, real_torch
from grader.perf.rounds import CLOCKS, Rounds, calls_per_timing
from grader.sandbox import child as sandbox_child, rules

_thread_time = time.thread_time
_process_time = time.process_time
_perf_counter = time.perf_counter
_Random = random.Random
_no_grad = torch.no_grad
_set_num_threads = torch.set_num_threads
_cuda_event = torch.cuda.Event
_cuda_synchronize = torch.cuda.synchronize
_fused_sdpa = torch.nn.functional.scaled_dot_product_attention
real_torch()  # the inputs' torch functions, captured now too
try:
    import resource

    _getrusage = resource.getrusage
    _RUSAGE_THREAD = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
except ImportError:  # Windows
    _getrusage = None


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


def _waits():
    """How many times this thread has waited (voluntary context switches: sleep, I/O, a lock, a
    join); 0 where the system does not say."""
    return _getrusage(_RUSAGE_THREAD).ru_nvcsw if _getrusage else 0


def _clock(device, fn, arg_sets):
    """(time, process CPU time, wall time, waits) of fn over every argument set. `time` is the CPU
    time of this thread, or on CUDA the time between CUDA events around the calls."""
    if device == "cuda":
        start, end = _cuda_event(enable_timing=True), _cuda_event(enable_timing=True)
        _cuda_synchronize()
        waits, wall, process = _waits(), _perf_counter(), _process_time()
        start.record()
        for args in arg_sets:
            fn(*args)
        end.record()
        _cuda_synchronize()
        return (start.elapsed_time(end) / 1e3, _process_time() - process, _perf_counter() - wall,
                _waits() - waits)
    waits, wall, process, cpu = _waits(), _perf_counter(), _process_time(), _thread_time()
    for args in arg_sets:
        fn(*args)
    return _thread_time() - cpu, _process_time() - process, _perf_counter() - wall, _waits() - waits



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


def storages(obj):
    """{data pointer: bytes} of the tensors an object holds (its attributes, and lists, tuples and
    dicts of tensors among them): the memory a KV cache really keeps."""
    held = leaves(list(vars(obj).values())) if hasattr(obj, "__dict__") else []
    kept = [value.untyped_storage() for value in held if isinstance(value, torch.Tensor)]
    return {storage.data_ptr(): storage.nbytes() for storage in kept}


# -- timing across processes ---------------------------------------------------------------------
# The student's code is timed in its own confined process, under the exercise's rules; the reference
# (and torch's fused attention) in another, which never holds student code. The judge interleaves
# their timings call by call, in a random order each round (`grader.perf.judge`); each process keeps one case's
# callables and inputs between the judge's requests in a `Bench`. Every input is drawn from the seed
# and the round, so both processes time the same values.


class Bench:
    """One case, ready to be timed in this process for the implementations `impls` (name -> the
    student's module or a reference namespace)."""

    def __init__(self, case, impls, state, device, seed):
        self.case, self.device, self.seed = case, device, seed
        self.memory = {"reallocations": 0, "steps": 0}
        if isinstance(case, Decode):
            d_model, n_heads, n_kv_heads = case.init
            self.fns = {name: build(case, impl, state, device) for name, impl in impls.items()}
            self.caches = {name: impl.KVCache(case.batch, n_kv_heads, d_model // n_heads, case.max_len, device=device)
                           for name, impl in impls.items()}
            if "student" in self.caches:
                self.memory["start_bytes"] = sum(storages(self.caches["student"]).values())
        else:
            self.fns = {name: build(case, impl, state, device) for name, impl in impls.items()}

    def args(self, index):
        return make_args(self.case, generator(self.seed + 3 + index), self.device)

    def warm(self):
        """Seconds of one call of each implementation, after a first one (warm-up)."""
        warm = {}
        for name, fn in self.fns.items():
            warm[name] = _clock(self.device, fn, _fresh([self.args(-2)]))[0]
            warm[name] = _clock(self.device, fn, _fresh([self.args(-1)]))[0]
        return warm

    def round(self, names, index, calls):
        """{name: readings per call} of the round's timings of `names`: `calls` calls each, on
        fresh copies of the round's inputs, after one untimed call."""
        args, readings = self.args(index), {}
        for name in names:
            _set_num_threads(1)  # in case the student's code asked for more
            first, *timed = _fresh([args] * (calls + 1))
            self.fns[name](*first)
            readings[name] = [reading / calls for reading in _clock(self.device, self.fns[name], timed)]
        return readings

    def grow(self, length):
        """Fill every cache to `length` tokens (untimed), with the same tokens in every process."""
        d_model = self.case.init[0]
        gen = generator(self.seed + 7919 * length)
        for name, fn in self.fns.items():
            missing = length - len(self.caches[name])
            fn(Randn((self.case.batch, missing, d_model)).make(gen, self.device), self.caches[name])
        return {name: len(cache) for name, cache in self.caches.items()}

    def step(self, names, length, index):
        """{name: readings} of one decode step of `names` with `length` tokens cached (the step's
        token is kept in the cache, as in generation); for the student's cache, whether a buffer it
        held before the step was replaced."""
        x = Randn((self.case.batch, 1, self.case.init[0])).make(generator(self.seed + 7919 * length + 1 + index),
                                                                 self.device)
        readings = {}
        for name in names:  # the same work around the step in every process, the student's or not
            before = set(storages(self.caches[name]))
            _set_num_threads(1)
            readings[name] = list(_clock(self.device, self.fns[name], [(x.clone(), self.caches[name])]))
            replaced = bool(before - set(storages(self.caches[name])))
            if name == "student":
                self.memory["reallocations"] += replaced
                self.memory["steps"] += 1
        return readings

    def memory_report(self):
        cache = self.caches["student"]
        return {**self.memory, "end_bytes": sum(storages(cache).values()), "tokens": len(cache)}


# -- memory: the largest tensor a call allocates (exercise 10) ---------------------------------------


class LargestAllocation(TorchDispatchMode):
    """While it is on, notes the largest storage any operation creates (not an input's, nor a view
    of one): its bytes, and the shape of the tensor that made it."""

    @classmethod
    def _should_skip_dynamo(cls):
        """Nothing is compiled in the child: leave __torch_dispatch__ unwrapped, which spares the
        import of torch._dynamo (seconds) that wrapping it costs on its first call."""
        return False

    def __init__(self, inputs=()):
        super().__init__()
        self.inputs = {t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor)}
        self.bytes, self.shape = 0, ()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for tensor in leaves(out):
            if isinstance(tensor, torch.Tensor):
                try:
                    storage = tensor.untyped_storage()
                except (RuntimeError, NotImplementedError):  # a tensor without storage of its own
                    continue
                if storage.data_ptr() not in self.inputs and storage.nbytes() > self.bytes:
                    self.bytes, self.shape = storage.nbytes(), tuple(tensor.shape)
        return out


def allocations(case, impl, device, seed):
    """{"bytes": [...], "shapes": [...]}: the largest tensor `impl`'s case.target allocates, per length."""
    fn, found = getattr(impl, case.target), {"bytes": [], "shapes": []}
    for index, length in enumerate(case.lengths):
        args = case.args(length, generator(seed + 11 + index), device)
        with _no_grad(), LargestAllocation(args) as largest:
            fn(*args)
        found["bytes"].append(largest.bytes)
        found["shapes"].append(list(largest.shape))
    return found


def handle(session, request):
    """The child's "bench" op. In the student's process (`session.guard` set) only the student's
    code is built; in a process that never loaded a student file, the reference (and with "fused",
    torch's fused attention in its place). Actions: "verify" (the student's output on the case's
    verification inputs), "prepare" (build the case; returns warm-up times), "round", "grow",
    "step", "memory" (see Bench), "allocations" (an Allocations case, measured here)."""
    device, seed = request["device"], int(request["seed"])
    case = catalog.find(request["exercise"]).perf_cases(device)[int(request["case"])]
    action = request["action"]
    if action in ("verify", "prepare"):
        state = request.get("state")
        if session.guard is not None:  # a student's process: never anything but the student's code
            impls = {"student": session.module}
        else:
            impls = {"reference": reference(), **({"fused": reference(fused=True)} if case.fused else {})}
        with _no_grad():
            if action == "verify" and isinstance(case, Allocations):
                args = case.args(case.lengths[0], generator(seed), device)
                return {"value": getattr(impls["student"], case.target)(*args)}
            if action == "verify":
                student = build(case, impls["student"], state, device)
                if isinstance(case, Decode):
                    return {"value": decode_program(case, student, session.module.KVCache, generator(seed), device)}
                return {"value": student(*make_args(case, generator(seed), device))}
            session.bench = Bench(case, impls, state, device, seed)
            return {"value": session.bench.warm() if not isinstance(case, Decode) else {}}
    if action == "allocations":
        impl = session.module if session.guard is not None else reference()
        return {"value": allocations(case, impl, device, seed)}
    bench = session.bench
    with _no_grad():
        if action == "round":
            return {"value": bench.round(request["names"], int(request["index"]), int(request["calls"]))}
        if action == "grow":
            return {"value": bench.grow(int(request["length"]))}
        if action == "step":
            return {"value": bench.step(request["names"], int(request["length"]), int(request["index"]))}
        if action == "memory":
            return {"value": bench.memory_report()}
    raise ValueError(f"unknown bench action {action!r}")


def _serve_bench(session, request):
    """The "bench" op of every child. The reference's child (no student file loaded) times the
    reference under the exercise's rules, mirrored, so that both sides pay the same for being watched."""
    if session.guard is None:
        with rules.mirrored(catalog.find(str(request.get("exercise"))).forbidden):
            return handle(session, request)
    return handle(session, request)


sandbox_child.OPS["bench"] = _serve_bench
