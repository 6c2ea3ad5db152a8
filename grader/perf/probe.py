"""The allocation probe, in the child: the largest tensor one call of the student's code allocates
(exercise 10's memory rule, a KV cache's storage) and the matrix products it runs (a fused
projection is one), measured so that switching the probe off reads as switched off, never as
"small".

The probe is a TorchDispatchMode (`LargestAllocation`): it sees every aten operation and notes the
largest storage one creates. The student's code runs in the same process and could blind it (pop
the mode, `_disable_current_modes`, exclude the Python dispatch key, patch the class, replace
torch's functions, or compute in a thread the mode does not watch), so `measure` checks, while the
call runs and after it, that the probe was in force:

- at every Python-level event of the call (a profile function: each call and return, each call of
  a builtin such as a torch function), the probe is still where it was on torch's dispatch-mode
  stack, the Python dispatch keys are not excluded, no thread was added, and the profile function
  itself was not swapped (`sys.setprofile` is the one way to do that, and the call shows);
- canaries: the grader allocates a tensor itself just before and just after the call, through
  torch's own function captured when this module was imported; a probe that did not see both, or
  whose class or method is not the grader's, was disabled;
- after the call, the profile function is still the grader's.

The probe's own bookkeeping at each operation runs with the profile function off (its tens of
events per operation doubled the cost of a measured call) and torch function handling disabled, so
that no student code (a mode, a subclass's method) runs in it unwatched.

Memory torch does not allocate (a numpy array, Python lists of floats) is counted by `tracemalloc`,
which numpy's allocator and Python's report to, started afresh for the call (what was traced before,
freed during the call, offsets nothing): its peak during the call stands for the largest
tensor where it is larger, and beyond what a call's own Python objects take (shape `[]`: "outside
torch"). Stopping or resetting it is a disabled probe.

Any failure makes the measurement `disabled` (with the reason), which the suites and the
performance verdict report as "the grader's probe was disabled", never as a size. What remains out
of reach of any in-process check (code that edits the probe's own memory through `gc` or `ctypes`)
is listed in docs/security.md.
"""

import gc
import os
import re
import sys
import sysconfig
import tracemalloc
import _tracemalloc

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from grader.nested import leaves

_empty = torch.empty
_uint8 = torch.uint8
_no_torch_function = torch._C.DisableTorchFunction
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_stack_length = torch._C._len_torch_dispatch_stack
_stack_at = torch._C._get_dispatch_stack_at
_pop_mode = torch._C._pop_torch_dispatch_stack
_exclude_set = torch._C._dispatch_tls_local_exclude_set
_expired, _free_weak_ref = torch.UntypedStorage._expired, torch.UntypedStorage._free_weak_ref
_traced, _tracing = tracemalloc.get_traced_memory, tracemalloc.is_tracing
_start_tracing, _stop_tracing = tracemalloc.start, tracemalloc.stop
_TRACE_CONTROLS = frozenset(getattr(_tracemalloc, name) for name in ("stop", "clear_traces", "reset_peak", "start"))
_PYTHON_KEYS = (torch._C.DispatchKey.Python, torch._C.DispatchKey.PythonTLSSnapshot)
OUTSIDE_ALLOWANCE = 1 << 18  # bytes traced outside torch that a call may peak at unnoticed: the Python objects
                             # of a call and of the probe itself (tens of KiB), not an array of scores
MAX_SHAPES = 256  # distinct shapes of the tensors a call made that the probe keeps
CANARY_BYTES = 4099  # an odd size no tensor of the student's is likely to have; it only has to be seen
DISABLED = "the grader's probe was disabled"
# Tensor methods that hand a tensor's data to numpy or Python, where no operation of the work done on it is
# one the probe sees (round 31's a08 computed exercise 10's attention in numpy, a12 a KV cache's storage)
_EXPORTS = frozenset({"numpy", "tolist", "__array__", "__dlpack__", "untyped_storage", "storage"})
# torch functions that make a tensor of memory torch did not allocate (an array numpy made), among those a
# torch function mode sees (`torch.from_numpy` is not: a KV cache's storage made so is found by the storages
# its object holds, `grader.perf.child.largest_allocation`: round 32's a05)
_IMPORTS = frozenset({"as_tensor", "asarray"})
# code the watch does not judge: torch's, the probe's, and the grader's that runs inside a measured call (the
# exercise's rules are a torch function mode, which torch calls while this probe's own handler runs, the probe
# then off its stack: an honest torch.from_numpy did that, round 14)
_GRADER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_OURS = (os.path.dirname(os.path.abspath(torch.__file__)) + os.sep, os.path.abspath(__file__), _GRADER + "nested.py",
         os.path.join(_GRADER, "sandbox", "rules.py"))
_STDLIB = os.path.abspath(sysconfig.get_paths()["stdlib"]) + os.sep  # Python's own library (its packages aside)


def _library(filename):
    """Python's own library (its packages aside), or code a library made from text (a named tuple's `__new__`)."""
    return filename.startswith("<") or (filename.startswith(_STDLIB)
                                        and "-packages" + os.sep not in filename[len(_STDLIB):])


def _judged(frame):
    """Whether the watch judges this frame's code: not torch's or the grader's, nor Python's library
    where torch or the grader called it, as torch does while its modes are off (printing a tensor goes
    through contextlib: round 32's a17); Python's library that the student's code called, it does."""
    if frame.f_code.co_filename.startswith(_OURS):
        return False
    while frame is not None and _library(frame.f_code.co_filename):
        frame = frame.f_back
    return frame is None or not frame.f_code.co_filename.startswith(_OURS)


_aten = torch.ops.aten
_OPERATORS = sorted({name.split("::")[1].split(".")[0] for name in torch._C._dispatch_get_all_op_names()
                     if name.startswith("aten::")})  # every aten operator torch registers, by name
# aten's matrix products, read from torch's registry by name (a list by hand left out conv_tbc: round 32's
# a02): every product, batched, added to, sparse, quantized or scaled, every convolution (a 1x1 one is a
# product: round 22's a2) and bilinear form; torch.matmul, @, einsum and nn.Linear reach one of them
_PRODUCT_NAME = re.compile(r"(^|_)(mm|bmm|addmm|addbmm|baddbmm|sspaddmm|mv|addmv|dot|vdot|matmul|bilinear|trilinear|"
                           r"linear|kron|outer|ger|addr|cdist|pdist|dist|tensordot)(_|$)|conv|embedding_bag|fft|"
                           r"grid_sampler")  # embedding_bag's weighted sums: round 34's a01
_PRODUCTS = frozenset(getattr(_aten, name) for name in _OPERATORS
                      if _PRODUCT_NAME.search(name) and not name.endswith("backward"))
# the reductions, scans and sorts: each reads many entries of its input's last axis at once (aminmax and
# var_mean were missing from a list by hand: round 32's a03 and a04)
_REDUCTION_NAME = re.compile(r"^_?(sum|nansum|mean|nanmean|amax|amin|max|min|aminmax|prod|logsumexp|norm|std|var|"
                             r"var_mean|std_mean|median|nanmedian|logcumsumexp|cumsum|cumprod|cummax|cummin|sort|"
                             r"argsort|topk|kthvalue|mode|argmax|argmin|all|any|count_nonzero|linalg_vector_norm|"
                             r"softmax|log_softmax|special_logsumexp|trace|histc|bincount|renorm|index_add|"
                             r"index_reduce|scatter_add|scatter_reduce|segment_reduce|layer_norm|native_layer_norm|"
                             r"group_norm|native_group_norm|batch_norm|native_batch_norm|instance_norm|rms_norm|"
                             r"fused_rms_norm|kl_div|binary_cross_entropy|binary_cross_entropy_with_logits|"
                             r"cross_entropy_loss|\w+_loss\w*)_?$"
                             r"|^_?(adaptive_)?(max|avg|fractional_max)_pool\dd(_with_indices)?$")  # pooling: round 34's a02
_REDUCTIONS = frozenset(getattr(_aten, name) for name in _OPERATORS if _REDUCTION_NAME.search(name)
                        and not name.endswith("backward"))
# what reads many entries of its input's last axis at once (a reduction, a scan, a sort, a product), and which
# argument, by position: a product its left operand's rows (its first, or its second where it adds to the
# first: addmm), a reduction its input, every axis where it is given no dim. Exercise 10's rules: no more than
# a block at once (round 22's a1 and a3)
_ACROSS = {**{op: int(op.__name__.lstrip("_").startswith(("add", "badd", "sspadd"))) for op in _PRODUCTS},
           **{op: 0 for op in _REDUCTIONS}}
_CONVOLUTIONS = frozenset(op for op in _PRODUCTS if "conv" in op.__name__)  # they read across their channels


class LargestAllocation(TorchDispatchMode):
    """While it is on, notes the largest storage any operation creates (not an input's, nor a view
    of one): its bytes, and the shape of the tensor that made it; the most bytes the storages it
    made held at once (`peak`: a matrix kept as many small blocks, round 15's a03); the last storage
    created (for the canaries); how many matrix products, and how many operations of any kind, read
    the call's inputs or what was computed from them (`derived`: work on a tensor of the student's own,
    a 1x1 product per block, does not follow the inputs' size: round 22's a1 and a3); and the most
    entries of that data along the last axis one reduction or product read at once (`widest`)."""

    @classmethod
    def _should_skip_dynamo(cls):
        """Nothing is compiled in the child: leave __torch_dispatch__ unwrapped, which spares the
        import of torch._dynamo (seconds) that wrapping it costs on its first call."""
        return False

    def __init__(self, inputs=()):
        super().__init__()
        self.inputs = {t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor)}
        self.last, self.alive = None, {}
        self.reset()

    def reset(self):
        """Count from nothing again (after the canary before the call): only the inputs read so far."""
        self.forget()
        self.bytes, self.shape, self.products, self.ops, self.peak = 0, (), 0, 0, 0
        self.every_product = 0  # matrix products of any data: a copy of the inputs made through Python is
        # no longer theirs (round 31's a07: torch.tensor(x.tolist()) @ w)
        self.reductions = 0  # reductions of the inputs' data: a product is a multiplication and a sum (round 32's a01)
        self.written = 0  # entries written in place into the inputs' storages, or the object's (`held`)
        self.shapes = set()  # the shapes of the tensors its operations returned (the inputs' storages aside)
        self.elements, self.element_shape = 0, ()  # the most entries: a bool (L, L) mask is few bytes, many entries
        self.derived, self.widest = set(self.inputs), 0  # the data pointers of the inputs' storages and of
        # those written by an operation that read one of them

    def _made(self, storage):
        """A storage an operation made: counted while it lives (its weak reference says when it died).
        The storages that died are let go only when the count would pass the peak, the one time it
        matters (a loop over blocks makes and drops one per step: purging at every step cost the
        whole list each time)."""
        ptr = storage.data_ptr()
        if not ptr:
            return
        known = self.alive.get(ptr)
        if known is not None:
            if not _expired(known[0]):
                return  # a view of a living storage, or an in-place result
            self._let_go(ptr)  # dead, its address reused by this one
        self.alive[ptr] = (storage._weak_ref(), storage.nbytes())
        self.total += storage.nbytes()
        if self.total > self.peak:
            for dead in [ptr for ptr, (ref, _) in self.alive.items() if _expired(ref)]:
                self._let_go(dead)
            self.peak = max(self.peak, self.total)

    def _let_go(self, ptr):
        ref, size = self.alive.pop(ptr)
        _free_weak_ref(ref)
        self.total -= size

    def forget(self):
        """Let go of the weak references (after the call). `alive`: the storages made and maybe alive,
        data pointer -> (weak reference, bytes); `total`: their bytes together (an upper bound: some
        may have died since)."""
        for ref, _ in self.alive.values():
            _free_weak_ref(ref)
        self.alive, self.total = {}, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        with _Bookkeeping():  # the storages it reads, before it runs: `resize_` and `out=` may replace them
            read = _storages(leaves([args, kwargs]) if kwargs else leaves(args))  # (round 32's a07, a12)
        out = func(*args, **(kwargs or {}))
        with _Bookkeeping():
            self._note(func, args, kwargs, out, read)
        return out

    def imported(self, tensor):
        """A tensor the call made of memory torch did not allocate (`torch.as_tensor` of an array numpy
        made): as any storage the call made."""
        with _Bookkeeping():
            self._seen(tensor, None, frozenset(), ())

    def _note(self, func, args, kwargs, out, read):
        """What the operation `func` read (the storages `read`) and made."""
        outputs = [tensor for tensor in ((out,) if type(out) is torch.Tensor else leaves(out))
                   if isinstance(tensor, torch.Tensor)]
        self.every_product += func.overloadpacket in _PRODUCTS
        if not self.derived.isdisjoint(read):
            self.products += func.overloadpacket in _PRODUCTS
            self.reductions += func.overloadpacket in _REDUCTIONS
            self.ops += 1
            self._read_across(func, args, kwargs)
            self.derived.update(_storages(outputs))
        for tensor in outputs:
            self._seen(tensor, func, read, args)

    def _read_across(self, func, args, kwargs):
        """`widest`: the entries along the last axis that a reduction or a product of the inputs' values
        read at once (floating point: a count of -inf entries reads no values)."""
        across = _across(func)
        if across is None or len(args) <= across[0] or not isinstance(args[across[0]], torch.Tensor):
            return
        position, dim_index, dim_default = across
        tensor = args[position]
        if not tensor.dim() or not tensor.is_floating_point():
            return
        if func.overloadpacket in _CONVOLUTIONS:  # a 1x1 convolution is a product over its channels (round 34's a03)
            self.widest = max(self.widest, tensor.shape[1] if tensor.dim() > 1 else tensor.shape[-1])
            return
        if dim_index is not None:  # along the axes its `dim` names, whichever they are: a row read through a
            dims = (kwargs or {}).get("dim", args[dim_index] if dim_index < len(args) else dim_default)
            dims = [dims] if isinstance(dims, int) else list(dims or ())  # transposed view too (round 34's a09)
            if dims:
                self.widest = max(self.widest, *(tensor.shape[dim] for dim in dims))
                return
        self.widest = max(self.widest, tensor.shape[-1])  # none: every axis

    def _seen(self, tensor, func, read, args):
        """A tensor an operation returned: its storage, if new, made by the call. Not new: an input's, or
        the storage of one of the operation's own arguments (a view, an in-place or out= result, as its
        schema says), however old: a buffer made before the call and written in place is no allocation
        of the call's (round 22's a11 zeroed a 2 MiB one at every call, a floor under every size the
        probe read)."""
        try:
            storage = tensor.untyped_storage()
        except (RuntimeError, NotImplementedError):  # a tensor without storage of its own
            return
        self.last = storage.data_ptr()
        if self.last in self.inputs and func is not None and _writes(func):  # written into an input's or the
            self.written += _entries_written(func, args, tensor)  # object's: a cache copying its past in place
        if self.last in self.inputs or (self.last not in self.alive and func is not None and _aliases(func)
                                        and self.last in read):
            return
        self._made(storage)
        shape, nbytes = tuple(tensor.shape), storage.nbytes()
        if len(self.shapes) < MAX_SHAPES:
            self.shapes.add(shape)
        if nbytes > self.bytes:
            self.bytes, self.shape = nbytes, shape
        if nbytes // tensor.element_size() > self.elements:
            self.elements, self.element_shape = nbytes // tensor.element_size(), shape


def _across(func):
    """For a reduction or a product: (the position of the argument it reads across, the position of its
    `dim` argument and that argument's default), or with no `dim` (a product reads its operand's rows, a
    reduction without one every axis) (position, None, None); None for any other operator. Read from
    the operator's schema once."""
    if func not in _ACROSS_OF:
        position = _ACROSS.get(func.overloadpacket)
        dims = [] if position is None else [(index, argument.default_value) for index, argument
                                            in enumerate(func._schema.arguments) if argument.name == "dim"]
        _ACROSS_OF[func] = None if position is None else (position, *(dims[0] if dims else (None, None)))
    return _ACROSS_OF[func]


_ACROSS_OF = {}


def _aliases(func):
    """Whether a result of the operator `func` may be one of its arguments (a view, an in-place or out=
    operator: its schema's returns carry alias information); asked once per operator."""
    known = _ALIASES.get(func)
    if known is None:
        known = _ALIASES[func] = any(result.alias_info is not None for result in func._schema.returns)
    return known


_ALIASES = {}


def _writes(func):
    """Whether the operator `func` writes into one of its arguments (in place, or out=), as its schema says."""
    known = _WRITES.get(func)
    if known is None:
        known = _WRITES[func] = any(result.alias_info is not None and result.alias_info.is_write
                                    for result in func._schema.returns)
    return known


_WRITES = {}
# In-place operators that write their source's entries, not the whole tensor they return (a row of a cache
# written by index_copy_ is no copy of the cache), by the source's position; a fill writes no data read anywhere
_SOURCES = {"copy_": 1, "index_copy_": 3, "index_put_": 2, "_index_put_impl_": 2, "scatter_": 3, "scatter_add_": 3,
            "scatter_reduce_": 3, "index_add_": 3, "index_reduce_": 3, "masked_scatter_": 2, "put_": 2}


def _entries_written(func, args, tensor):
    """How many entries the in-place operator `func` wrote into `tensor` (round 34's a05 copied a cache's
    past from one of its buffers into the other at every update, allocating nothing)."""
    name = func.overloadpacket.__name__
    if "fill" in name or name == "zero_":
        return 0
    position = _SOURCES.get(name)
    source = args[position] if position is not None and len(args) > position else None
    return min(source.numel(), tensor.numel()) if isinstance(source, torch.Tensor) else tensor.numel()


def _storages(values):
    """The data pointers of the storages of the tensors among `values`."""
    found = set()
    for value in values:
        if isinstance(value, torch.Tensor):
            try:
                found.add(value.untyped_storage().data_ptr())
            except (RuntimeError, NotImplementedError):
                pass
    return found


_DISPATCH = LargestAllocation.__dict__["__torch_dispatch__"]
_DISPATCH_CODE = _DISPATCH.__code__


def _threads():
    """The number of threads of this process (the links of /proc/self/task: one per thread, plus
    two), or None where it cannot be read."""
    try:
        return os.stat("/proc/self/task").st_nlink
    except OSError:
        return None


class _Watch:
    """The profile function of a measured call: at every event in code that is not torch's or the
    grader's (torch takes a mode off its stack while the mode's own code runs), whether the probe is
    in force. Keeps the first reason it was not."""

    def __init__(self, probe, depth):
        self.probe, self.depth, self.threads = probe, depth, _threads()
        self.reason = None
        self.armed = False  # whether it saw an event yet

    def in_force(self):
        """Why the probe is not watching now, or None."""
        if _stack_length() <= self.depth or _stack_at(self.depth) is not self.probe:
            return "torch's dispatch-mode stack was changed (a mode popped or the modes disabled)"
        excluded = _exclude_set()
        if any(excluded.has(key) for key in _PYTHON_KEYS):
            return "torch's Python dispatch was switched off (_DisableTorchDispatch or an excluded key)"
        if type(self.probe) is not LargestAllocation or LargestAllocation.__dict__.get("__torch_dispatch__") is not \
                _DISPATCH or _DISPATCH.__code__ is not _DISPATCH_CODE or "__torch_dispatch__" in vars(self.probe):
            return "the probe's class was changed"
        if self.threads is not None and _threads() != self.threads:
            return "your code started a thread, where the probe cannot see what it allocates"
        return None

    def __call__(self, frame, event, arg):
        if not self.armed:  # the first event may be the return of the grader's own sys.setprofile
            self.armed = True
            if event == "c_return" and arg is _setprofile:
                return
        if self.reason is None and _judged(frame):
            if arg is _setprofile and event in ("c_call", "c_return"):
                self.reason = "your code replaced the grader's profile function (sys.setprofile)"
            elif event == "c_call" and arg in _TRACE_CONTROLS:
                self.reason = "your code stopped or reset tracemalloc, which counts memory outside torch"
            else:
                self.reason = self.in_force()


class _Bookkeeping:
    """The probe's own work at an operation: unwatched by the profile function (tens of events per
    operation otherwise), with no finalizer of the student's run in it (the collector off: round 31's
    a14 ran products there), and no torch function mode or subclass either."""

    def __enter__(self):
        self.watch, self.collecting = _getprofile(), gc.isenabled()
        _setprofile(None)
        gc.disable()
        self.functions = _no_torch_function()
        self.functions.__enter__()

    def __exit__(self, *exc):
        self.functions.__exit__(*exc)
        if self.collecting:
            gc.enable()
        _setprofile(self.watch)


class _Exports(TorchFunctionMode):
    """Notes the first time a call hands a tensor of more than one entry to numpy or Python
    (`_EXPORTS`): what it computes there, the probe cannot see; and gives the probe each tensor made
    of memory torch did not allocate (`_IMPORTS`), as a storage the call made."""

    def __init__(self, probe):
        super().__init__()
        self.probe, self.found = probe, None

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if self.found is None and name in _EXPORTS and args and isinstance(args[0], torch.Tensor) \
                and args[0].numel() > 1:
            self.found = f"Tensor.{name}"
        out = func(*args, **(kwargs or {}))
        if name in _IMPORTS and isinstance(out, torch.Tensor):
            self.probe.imported(out)
        return out


def _canary(probe):
    """A tensor the grader allocates under the probe: whether the probe saw it."""
    canary = _empty(CANARY_BYTES, dtype=_uint8)
    return probe.last == canary.untyped_storage().data_ptr()


def measure(fn, args, kwargs=None, held=()):
    """{"bytes", "shape", "products", "ops", "widest", "shapes", "elements", "element_shape", "peak",
    "every_product", "reductions", "written", "exported", "disabled"}: the largest tensor fn(*args,
    **kwargs) allocates, in bytes and in entries (without gradients), the most bytes its new storages
    held at once, the matrix products and the operations of any kind it runs on its inputs' data, the
    widest reduction of it, the shapes of the tensors it made (MAX_SHAPES at most), the matrix products
    of any data, the reductions of the inputs' data, the entries written in place into the inputs' or
    `held` storages, the first method that handed a tensor's data to numpy or Python (None if none
    did: `_Exports`), and why the probe was disabled during the call (None if it never was);
    `held`: the data pointers of storages that exist already (an object's, whose method fn is), as the
    inputs'.
    The dispatch-mode stack is left as it was found, whatever the call did to it. The call runs in the
    grad mode of every other call of the suites (round 28's a06 ran one product only where grad was
    off, as it was here once): being measured must look like any call."""
    tensors = [arg for arg in leaves(list(args) + list((kwargs or {}).values())) if isinstance(arg, torch.Tensor)]
    probe = LargestAllocation(tensors)
    probe.inputs |= set(held)
    previous, depth = _getprofile(), _stack_length()
    return _measured(probe, previous, depth, fn, args, kwargs)


def _measured(probe, previous, depth, fn, args, kwargs):
    """`measure`'s call, under the probe (entered here, and taken off the stack whatever happens)."""
    probe.__enter__()
    try:
        watch = _Watch(probe, depth)
        seen_before = _canary(probe)
        probe.reset()
        traced = _tracing()
        _stop_tracing()  # traced afresh: memory the student's code traced before (a ballast it frees
        _start_tracing()  # during the call, round 11's a04) cannot offset what the call allocates
        start, _ = _traced()
        _setprofile(watch)
        exports = _Exports(probe)
        try:
            with exports:
                fn(*args, **(kwargs or {}))
        finally:
            profiled = _getprofile() is watch
            reason = watch.reason
            _setprofile(previous)
            outside = _traced()[1] - start if _tracing() else None
            if outside is not None:
                _stop_tracing()
            if traced:  # as the student's code left it
                _start_tracing()
        reason = reason or watch.in_force()
        found = {"bytes": probe.bytes, "shape": list(probe.shape), "products": probe.products, "ops": probe.ops,
                 "every_product": probe.every_product, "reductions": probe.reductions, "written": probe.written,
                 "exported": exports.found,
                 "widest": probe.widest,
                 "shapes": sorted(map(list, probe.shapes)),
                 "elements": probe.elements, "element_shape": list(probe.element_shape), "peak": probe.peak}
        if outside is None:
            reason = reason or "your code stopped tracemalloc, which counts memory outside torch"
        elif outside > max(probe.bytes, OUTSIDE_ALLOWANCE):
            found.update(bytes=outside, shape=[])
        if not profiled:
            reason = reason or "your code removed the grader's profile function (sys.setprofile)"
        if not (seen_before and _canary(probe)):
            reason = reason or "the probe did not see the grader's own allocation"
    finally:
        probe.forget()
        while _stack_length() > depth:
            _pop_mode(None)
    return {**found, "disabled": None if reason is None else f"{DISABLED}: {reason}"}
