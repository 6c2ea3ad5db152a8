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
from grader.sandbox import clock

_empty = torch.empty
_uint8 = torch.uint8
_no_torch_function = torch._C.DisableTorchFunction
_setprofile, _getprofile = sys.setprofile, sys.getprofile
_bootstrap = sys.modules["_frozen_importlib"]  # importlib's own, where `import` finds `_find_and_load`
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
MAX_VERDICTS = 4096  # frames the watch keeps its verdict of (a stack is far less deep)
MAX_RUNS = 4096  # runs of a view written into a storage made before the call that `_runs` lists one by one
MAX_SHAPES = 256  # distinct shapes of the tensors a call made that the probe keeps
CANARY_BYTES = 4099  # an odd size no tensor of the student's is likely to have; it only has to be seen
DISABLED = "the grader's probe was disabled"
# Tensor methods that hand a tensor's data to numpy or Python, where no operation of the work done on it is
# one the probe sees (round 31's a08 computed exercise 10's attention in numpy, a12 a KV cache's storage;
# round 53's a01 and a02 copied x, w and a cache's past entry by entry through the Python function of `map_`)
_EXPORTS = frozenset({"numpy", "tolist", "__array__", "__dlpack__", "untyped_storage", "storage",
                      "map_", "map2_", "apply_"})
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
# Python's own library and the packages installed (torch's neighbours: sympy, numpy), and text made into code
_LIBRARIES = ("<", *{os.path.abspath(path) + os.sep for key in ("stdlib", "purelib", "platlib")
                     if (path := sysconfig.get_paths().get(key))})


def _library(filename):
    """Python's own library, the packages installed beside torch, or code a library made from text (a
    named tuple's `__new__`): judged as whoever called it."""
    return filename.startswith(_LIBRARIES)


def _judged(frame, verdicts):
    """Whether the watch judges this frame's code: not torch's or the grader's, nor a library's where
    torch or the grader called it, as torch does while its modes are off (printing a tensor goes through
    contextlib: round 32's a17) or as it imports a module lazily (torch._dynamo imports sympy: millions
    of events); a library that the student's code called, it does. `verdicts`: frame -> verdict of the
    frames alive, so that each event costs a look-up, not a walk up the stack."""
    filename = frame.f_code.co_filename
    if filename.startswith(_OURS):
        return False  # not kept: a frame of the probe's own may end unseen (it takes the profile function off)
    known = verdicts.get(frame)
    if known is None:
        known = verdicts[frame] = not _library(filename) or frame.f_back is None or _judged(frame.f_back, verdicts)
    return known


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
# The operators that only move entries (views, copies, casts, concatenations, selections by index): what they
# make holds the data they read, and computes nothing from it. Every other operator computes: one whose operands
# hold two arguments' data (x's and w_qkv's), or their entries side by side, combines them, whatever its name (a
# product made of elementwise terms summed by an accumulating index_put, a sparse tensor's coalescing or a tree
# of additions: round 35's a01, a02, a04). A list of what does NOT compute, so that an operator left off it is
# counted.
_MOVE_NAMES = frozenset("""
    alias alias_copy as_strided as_strided_copy _reshape_alias _reshape_alias_copy _reshape_copy _unsafe_view view
    view_copy view_as reshape reshape_as expand expand_as expand_copy permute permute_copy transpose transpose_
    transpose_copy t t_ t_copy squeeze squeeze_ squeeze_copy unsqueeze unsqueeze_ unsqueeze_copy flatten unflatten
    movedim slice slice_copy select select_copy narrow narrow_copy split split_copy split_with_sizes
    split_with_sizes_copy unsafe_split unsafe_split_with_sizes chunk unsafe_chunk tensor_split unbind unbind_copy
    diagonal diagonal_copy unfold unfold_copy detach detach_ detach_copy lift lift_fresh lift_fresh_copy clone
    contiguous copy_ _copy_from _copy_from_and_resize _to_copy to cat stack _stack hstack vstack dstack column_stack
    row_stack flip fliplr flipud roll repeat repeat_interleave tile index index_select gather masked_select
    slice_scatter select_scatter diagonal_scatter as_strided_scatter index_copy index_copy_
""".split())
_MOVES = frozenset(getattr(_aten, name) for name in _MOVE_NAMES if name in _OPERATORS)
# operators whose result holds none of the data they read (its shape, dtype and device only)
_BLANKS = frozenset(getattr(_aten, name) for name in ("empty_like", "zeros_like", "ones_like", "full_like",
                                                      "rand_like", "randn_like", "randint_like", "new_empty",
                                                      "new_empty_strided", "new_zeros", "new_ones", "new_full"))
_SCALAR = _aten._local_scalar_dense  # one entry handed to Python: .item(), float(), int(), bool()
ORIGINS = 16  # arguments of a call told apart by where their data goes (the rest share the last bit)
_UNKNOWN = (1 << ORIGINS) - 1  # the origin of data the probe did not see made (`origin`), or in a tensor without
# storage of its own (sparse, nested): any argument's
SCALARS_ALLOWED = 64  # single entries of its inputs' data a call may hand to Python (or 1/8 of them, if more)


class LargestAllocation(TorchDispatchMode):
    """While it is on, notes the largest storage any operation creates (not an input's, nor a view
    of one): its bytes, and the shape of the tensor that made it; the most bytes the storages it
    made held at once (`peak`: a matrix kept as many small blocks, round 15's a03); the last storage
    created (for the canaries); how many matrix products, and how many operations of any kind, read
    the call's inputs or what was computed from them (`derived`: work on a tensor of the student's own,
    a 1x1 product per block, does not follow the inputs' size: round 22's a1 and a3); the most
    entries of that data along the last axis one reduction or product read at once (`widest`); and,
    following each argument's data by storage through every operation (`taint`), what computes from
    two arguments' data together (`combining`, `combined`, `read_most`, `mixed`: rounds 35 to 39)."""

    @classmethod
    def _should_skip_dynamo(cls):
        """Nothing is compiled in the child: leave __torch_dispatch__ unwrapped, which spares the
        import of torch._dynamo (seconds) that wrapping it costs on its first call."""
        return False

    def __init__(self, inputs=(), origins=None):
        super().__init__()
        self.inputs = {t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor)}
        self.allowed_scalars = max(SCALARS_ALLOWED, sum(t.numel() for t in inputs if isinstance(t, torch.Tensor)) // 8)
        self.origins = dict(origins or {})  # data pointer of each argument's storages -> its bit (`measure`)
        self.last, self.alive = None, {}
        self.reset()

    def reset(self):
        """Count from nothing again (after the canary before the call): only the inputs read so far."""
        self.forget()
        self.bytes, self.shape, self.products, self.ops, self.peak = 0, (), 0, 0, 0
        self.every_product = 0  # matrix products of any data: a copy of the inputs made through Python is
        # no longer theirs (round 31's a07: torch.tensor(x.tolist()) @ w)
        self.reductions = 0  # reductions of the inputs' data: a product is a multiplication and a sum (round 32's a01)
        self.written = 0  # bytes written in place into storages the call did not make (an input's, the
        # object's, or one it keeps where the grader does not look: round 35's a05 hid a cache's in a plain object)
        self.filled = {}  # data pointer of such a storage -> the byte ranges written into it with several
        # arguments' data, [[start, end], ...] disjoint and in order (`_fill`)
        self.shapes = set()  # the shapes of the tensors its operations returned (the inputs' storages aside)
        self.elements, self.element_shape = 0, ()  # the most entries: a bool (L, L) mask is few bytes, many entries
        self.derived, self.widest = set(self.inputs), 0  # the data pointers of the inputs' storages and of
        # those written by an operation that read one of them
        self.taint = {**self.origins, _NO_STORAGE: _UNKNOWN}  # data pointer -> the arguments whose data it holds
        self.combining = 0  # operations that compute from the data of two arguments or more (`_MOVES`)
        self.combined = {}  # arguments' bits -> the lengths of the axes of the floating tensors holding that data
        self.read_most = {}  # arguments' bits -> the most entries one operand of an operation reading them held
        self.scalars = 0  # single entries of the inputs' data handed to Python
        self.mixed = set()  # data pointers of storages holding different arguments' entries side by side
        self.shared = None  # how the arguments' data was first written into memory torch did not allocate

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
        self.taint.pop(ptr, None)  # a dead storage's data is gone: its address may hold another's next

    def forget(self):
        """Let go of the weak references (after the call). `alive`: the storages made and maybe alive,
        data pointer -> (weak reference, bytes); `total`: their bytes together (an upper bound: some
        may have died since)."""
        for ref, _ in self.alive.values():
            _free_weak_ref(ref)
        self.alive, self.total = {}, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        with _Bookkeeping():  # the storages it reads, before it runs: `resize_` and `out=` may replace them
            operands = _operands(leaves([args, kwargs]) if kwargs else leaves(args))  # (round 32's a07, a12)
            computes = func.overloadpacket not in _MOVES and func.overloadpacket not in _BLANKS
            if computes and (self._combines(args, kwargs) or not self.mixed.isdisjoint(p for p, _ in operands)):
                self.combining += 1  # an operand with x's and w's entries side by side: (z * z).imag, z = x + iw
        out = func(*args, **(kwargs or {}))
        with _Bookkeeping():
            self._note(func, args, kwargs, out, operands)
        return out

    def _combines(self, args, kwargs):
        """Whether an operation that computes combines the data of two arguments or more: two of its
        arguments (a list's together: `_foreach_` operators take lists) hold arguments' data, two
        arguments' together (x @ w; x's terms times w's, one entry of w's too, or two halves of them added:
        rounds 35's a01 and a04, 38's a02). One that holds it beside a constant does not (a bias added, a
        scale), nor a bool mask computed from it (`torch.where(qkv.isnan(), 0, qkv)`: round 38's h06)."""
        holding, together, seen = 0, 0, set()
        for argument in (*args, *(kwargs or {}).values()):
            origins = 0
            for value in leaves([argument]):
                if id(value) in seen or (isinstance(value, torch.Tensor) and value.dtype is torch.bool):
                    continue  # the same tensor twice (`x == x`, in isfinite: round 38's h07) is one operand
                seen.add(id(value))
                for pointer, count in _operands([value]):
                    origins |= self.origin(pointer, count)
            if origins:
                holding += 1
                together |= origins
        return holding > 1 and _several(together)

    def imported(self, tensor):
        """A tensor the call made of memory torch did not allocate (`torch.as_tensor` of an array numpy
        made): as any storage the call made."""
        with _Bookkeeping():
            self._seen(tensor, None, frozenset(), (), 0)

    def _note(self, func, args, kwargs, out, operands):
        """What the operation `func` read (`operands`: (data pointer, entries) of each tensor) and made."""
        outputs = [tensor for tensor in ((out,) if type(out) is torch.Tensor else leaves(out))
                   if isinstance(tensor, torch.Tensor)]
        returned = {id(tensor) for tensor in outputs}
        outputs += [tensor for tensor in _written_arguments(func, args, kwargs) if id(tensor) not in returned]
        read = {pointer for pointer, _ in operands}
        packet = func.overloadpacket
        self.every_product += packet in _PRODUCTS
        origins = 0
        for pointer, entries in operands:
            origins |= self.origin(pointer, entries)
        if _several(origins) and operands:  # all the keys read at once, laid out in blocks (round 37's a03)
            self.read_most[origins] = max(self.read_most.get(origins, 0), *(entries for _, entries in operands))
        if not self.derived.isdisjoint(read):
            self.products += packet in _PRODUCTS
            self.reductions += packet in _REDUCTIONS and _floating(args)  # not a mask's any() (round 38's h05)
            self.scalars += packet is _SCALAR
            self.ops += 1
            self._read_across(func, args, kwargs)
            self.derived.update(_storages(outputs))
        moved = packet in _MOVES and self._mixes(operands)
        for tensor in outputs:
            self._seen(tensor, func, read, args, 0 if packet in _BLANKS else origins, operands)
            if packet in _MOVES or packet in _BLANKS:
                if moved:
                    self.mixed.add(self.last)
            elif self.last not in read:  # computed anew: each entry from all it read
                self.mixed.discard(self.last)

    def _mixes(self, operands):
        """Whether an operation that moves entries puts different arguments' data side by side (x and w
        stacked, copied into one buffer: round 39's a01), or moves data already so."""
        kinds = {self.origin(pointer, entries) for pointer, entries in operands}
        return len(kinds - {0}) > 1 or not self.mixed.isdisjoint(pointer for pointer, _ in operands)

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

    def origin(self, pointer, entries):
        """The arguments whose data a storage holds (bits): for one no operation of the call made and no
        argument holds (made without an operation torch dispatches, from data handed out of torch and back:
        round 37's a01 read a tensor's printed text), of more than one entry, any of them (`_UNKNOWN`)."""
        known = self.taint.get(pointer)
        return known if known is not None else (_UNKNOWN if entries > 1 else 0)

    def _seen(self, tensor, func, read, args, origins, operands=()):
        """A tensor an operation returned (or wrote into), holding the data of the arguments `origins`
        (bits), the operation having read `operands` ((data pointer, entries) each): its
        storage, if new, made by the call. Not new: an input's, or the storage of one of the operation's
        own arguments (a view, an in-place or out= result, as its schema says), however old: a buffer made
        before the call and written in place is no allocation of the call's (round 22's a11 zeroed a 2 MiB
        one at every call, a floor under every size the probe read), but what is written into it is
        counted (`written`), and what is computed from two arguments' data weighed as what it would take in
        a tensor of its own (round 35 noted that a buffer made at import could hold exercise 10's whole
        matrix; a cache's reset that multiplies its storage by 0 allocates nothing)."""
        try:
            storage = tensor.untyped_storage()
        except (RuntimeError, NotImplementedError):  # a tensor without storage of its own: sparse, nested
            if origins and self.shared is None and func is not None:  # what it holds is followed no further
                self.shared = (f"{func.overloadpacket.__name__} made a {str(tensor.layout).removeprefix('torch.')} "
                               "tensor of the arguments' data, which the grader's probe cannot follow")
            return
        self.last = storage.data_ptr()
        known = self.alive.get(self.last)
        anew = self.last not in read and self.last not in self.inputs and (
            self.last not in self.taint or (known is not None and _expired(known[0])))  # made by this operation
        holds = self.taint[self.last] = origins | (0 if anew else self.origin(self.last, tensor.numel()))
        if _several(holds) and (tensor.is_floating_point() or tensor.is_complex()):
            self.combined.setdefault(holds, set()).update(tensor.shape)
        writes = func is not None and _writes(func)
        written_from = 0  # what it wrote, not what was there (a buffer made at import: any data)
        for pointer, count in operands if writes else ():
            written_from |= self.origin(pointer, count) if pointer != self.last else 0
        if written_from and self.shared is None and _outside(storage) and not self.origins.get(self.last):
            self.shared = (f"{func.overloadpacket.__name__} wrote the arguments' data into memory torch did not "
                           "allocate (an array's, shared with numpy: torch.from_numpy, torch.as_tensor)")
        if self.last not in self.alive and writes:  # into a storage made before the call: a cache
            entries = _entries_written(func, args, tensor)  # copying its past in place
            self.written += entries * tensor.element_size()  # bytes: a complex view halves entries (round 39's a03)
            if _several(written_from):  # computed from two arguments' data (scores in a buffer made at import):
                filled = self._fill(self.last, tensor)  # weighed as all that such buffers hold by now
                shape = tuple(tensor.shape) if filled <= tensor.nbytes else (filled // tensor.element_size(),)
                self._weigh(shape, filled, filled // tensor.element_size())
        if self.last in self.inputs or (self.last not in self.alive and func is not None and _aliases(func)
                                        and self.last in read):
            return
        self._made(storage)
        self.taint[self.last] = holds  # `_made` let go of a dead storage at this address, and of its record
        shape, nbytes = tuple(tensor.shape), storage.nbytes()
        if len(self.shapes) < MAX_SHAPES:
            self.shapes.add(shape)
        self._weigh(shape, nbytes, nbytes // tensor.element_size())

    def _fill(self, pointer, tensor):
        """The bytes written so far with several arguments' data into storages made before the call, all of them
        together (round 64's a01 kept one block in each of 64 buffers made at import), `tensor` (a view of the
        storage at `pointer`) now written too: the union of the byte runs each view covers, however its strides
        lay it out (round 60's a01 wrote each block of the whole matrix into its own place of one buffer,
        through `as_strided`; a block buffer written again and again covers one block; a slice of a cache's
        storage covers its own runs, not the span from its first byte to its last: round 64's h01)."""
        ranges = self.filled.setdefault(pointer, [])
        for start, end in _runs(tensor):
            kept = [span for span in ranges if span[1] < start or span[0] > end]
            touching = [span for span in ranges if not (span[1] < start or span[0] > end)]
            ranges[:] = sorted([*kept, [min([start, *(span[0] for span in touching)]),
                                        max([end, *(span[1] for span in touching)])]])
        return sum(end - start for ranges in self.filled.values() for start, end in ranges)

    def _weigh(self, shape, nbytes, entries):
        """A tensor of `shape` the call made (or wrote into) of `nbytes` and `entries`: the largest so far?"""
        if nbytes > self.bytes:
            self.bytes, self.shape = nbytes, shape
        if entries > self.elements:
            self.elements, self.element_shape = entries, shape


def _runs(tensor, most=MAX_RUNS):
    """The byte ranges [start, end) of its storage that a view covers: its innermost axes that lie one after
    another make a run, its other axes repeat it; a view of more than `most` runs is taken as the span from
    its first byte to its last (more than it covers, never less)."""
    if not tensor.numel():
        return []
    size = tensor.element_size()
    axes = sorted((abs(stride), length) for length, stride in zip(tensor.shape, tensor.stride()) if length > 1)
    run, outer = 1, []
    for stride, length in axes:
        if not outer and stride == run:
            run *= length
        else:
            outer.append((stride, length))
    starts = [tensor.storage_offset()]
    for stride, length in outer:
        if len(starts) * length > most:
            start = tensor.storage_offset() * size
            return [(start, start + size * (1 + sum((length - 1) * stride for stride, length in axes)))]
        starts = [first + step * stride for first in starts for step in range(length)]
    return [(first * size, (first + run) * size) for first in starts]


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
    operator: its schema's returns carry alias information), or it writes into one and returns nothing
    (`_written_names`); asked once per operator."""
    known = _ALIASES.get(func)
    if known is None:
        known = _ALIASES[func] = any(result.alias_info is not None for result in func._schema.returns) \
            or bool(_written_names(func))
    return known


_ALIASES = {}


def _writes(func):
    """Whether the operator `func` writes into one of its arguments (in place, or out=), as its schema says:
    by what it returns, or by its arguments (`_foreach_add_` and the optimizers' fused steps return
    nothing: round 37's a04 copied a cache's past with an SGD step)."""
    known = _WRITES.get(func)
    if known is None:
        known = _WRITES[func] = any(result.alias_info is not None and result.alias_info.is_write
                                    for result in func._schema.returns) or bool(_written_names(func))
    return known


_WRITES = {}


def _written_names(func):
    """The names of the arguments the operator `func` writes into, as its schema says."""
    known = _WRITTEN.get(func)
    if known is None:
        known = _WRITTEN[func] = tuple(argument.name for argument in func._schema.arguments
                                       if argument.alias_info is not None and argument.alias_info.is_write)
    return known


_WRITTEN = {}


def _written_arguments(func, args, kwargs):
    """The tensors the operator `func` writes into among its arguments (a list's too)."""
    names = _written_names(func)
    if not names:
        return []
    values = [(kwargs or {}).get(argument.name, args[index] if index < len(args) else None)
              for index, argument in enumerate(func._schema.arguments) if argument.name in names]
    return [value for value in leaves(values) if isinstance(value, torch.Tensor)]
# In-place operators that write their source's entries, not the whole tensor they return (a row of a cache
# written by index_copy_ is no copy of the cache), by the source's position; a fill writes no data read
# anywhere, unless its value is a tensor's (`fill_(past[i])`)
_SOURCES = {"copy_": 1, "index_copy_": 3, "index_put_": 2, "_index_put_impl_": 2, "scatter_": 3, "scatter_add_": 3,
            "scatter_reduce_": 3, "index_add_": 3, "index_reduce_": 3, "masked_scatter_": 2, "put_": 2}


def _entries_written(func, args, tensor):
    """How many entries the in-place operator `func` wrote into `tensor` (round 34's a05 copied a cache's
    past from one of its buffers into the other at every update, allocating nothing)."""
    name = func.overloadpacket.__name__
    if "fill" in name or name == "zero_":  # a value of a tensor's data (not a mask, not indices): round 51's a01
        values = [value for value in args[1:] if isinstance(value, torch.Tensor)
                  and (value.is_floating_point() or value.is_complex())]
        return tensor.numel() if values else 0
    position = _SOURCES.get(name)
    source = args[position] if position is not None and len(args) > position else None
    return min(source.numel(), tensor.numel()) if isinstance(source, torch.Tensor) else tensor.numel()


def _storages(values):
    """The data pointers of the storages of the tensors among `values`."""
    return {pointer for pointer, _ in _operands(values) if pointer != _NO_STORAGE}


def _operands(values):
    """(the data pointer of its storage, or _NO_STORAGE, its entries) of each tensor among `values`, and of
    each storage given as it is (`Tensor.set_` points a tensor at one: round 38's a01 and a03)."""
    found = []
    for value in values:
        if isinstance(value, torch.Tensor):
            try:
                found.append((value.untyped_storage().data_ptr(), value.numel()))
            except (RuntimeError, NotImplementedError):
                found.append((_NO_STORAGE, value.numel()))
        elif isinstance(value, (torch.UntypedStorage, torch.TypedStorage)):
            found.append((value.data_ptr(), value.nbytes()))
    return found


_NO_STORAGE = -1  # the "data pointer" of a tensor without storage of its own


def _returned(value, depth=4):
    """The tensors a call returned, in tuples and lists (a named tuple's too) `depth` deep, found by their
    types and the containers' own iteration, never code of the student's (an `__iter__`, a `__class__`)."""
    kind = type(value)
    if issubclass(kind, torch.Tensor):
        return [value]
    if depth and issubclass(kind, (tuple, list)):
        items = tuple.__iter__(value) if issubclass(kind, tuple) else list.__iter__(value)
        return [found for item in items for found in _returned(item, depth - 1)]
    return []


def _floating(args):
    """Whether the first argument of an operation is a floating (or complex) tensor: what a sum of products
    reads."""
    first = args[0] if args else None
    return isinstance(first, torch.Tensor) and (first.is_floating_point() or first.is_complex())


def _outside(storage):
    """Whether a storage is memory torch did not allocate, where numpy (or any library) computes unseen: one
    that cannot be resized and is not torch's shared memory (the wire's replies move a cache there)."""
    return not storage.resizable() and not storage.is_shared()


def _several(origins):
    """Whether `origins` (bits) names two arguments or more."""
    return origins & (origins - 1) != 0


_DISPATCH = LargestAllocation.__dict__["__torch_dispatch__"]
_DISPATCH_CODE = _DISPATCH.__code__


_threads = clock.threads


class _Watch:
    """The profile function of a measured call: at every event in code that is not torch's or the
    grader's (torch takes a mode off its stack while the mode's own code runs), whether the probe is
    in force. Keeps the first reason it was not."""

    def __init__(self, probe, depth, threads=None):
        self.probe, self.depth = probe, depth
        self.threads = _threads() if threads is None else threads
        self.reason = None
        self.armed = False  # whether it saw an event yet
        self.verdicts = {}  # frame -> whether it is judged (`_judged`), while it runs

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
        if self.threads is not None and (_threads() or 0) > self.threads:
            return ("a thread of your code's runs beside the call (started by it, at import or by an earlier "
                    "call), where the probe cannot see what it computes")
        return None

    def __call__(self, frame, event, arg):
        if not self.armed:  # the first event may be the return of the grader's own sys.setprofile
            self.armed = True
            if event == "c_return" and arg is _setprofile:
                return
        judged = self.reason is None and _judged(frame, self.verdicts)
        if event == "return":
            self.verdicts.pop(frame, None)
        elif len(self.verdicts) > MAX_VERDICTS:  # frames that ended unseen keep their values alive: let go
            self.verdicts.clear()
        if judged:
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


class _LazyImports:
    """While a call is measured, a module that torch imports lazily for it (torch.utils.checkpoint imports
    torch._dynamo, and sympy with it: some 800 modules, which under the profile function took 20 s, round
    60's h09) is imported unwatched: the profile function off, the collector off (no finalizer of the
    student's runs meanwhile), and the memory the import keeps not counted as the call's (`grown`). An
    import that the student's code starts, itself or through a library it called, stays watched."""

    def __init__(self, watch):
        self.watch, self.grown = watch, 0

    def __enter__(self):
        self.original = _bootstrap._find_and_load  # what `import` and importlib.import_module call
        _bootstrap._find_and_load = self._find_and_load
        return self

    def __exit__(self, *exc):
        _bootstrap._find_and_load = self.original

    def _find_and_load(self, name, import_):
        frame = sys._getframe(1)
        while frame is not None and _library(frame.f_code.co_filename) and not frame.f_code.co_filename.startswith(
                _OURS):
            frame = frame.f_back  # importlib's own frames, and a library's that torch called
        if _getprofile() is not self.watch or frame is None or not frame.f_code.co_filename.startswith(_OURS):
            return self.original(name, import_)
        before, collecting = _traced()[0] if _tracing() else None, gc.isenabled()
        _setprofile(None)
        gc.disable()
        try:
            return self.original(name, import_)
        finally:
            if collecting:
                gc.enable()
            _setprofile(self.watch)
            if before is not None and _tracing():
                self.grown += max(_traced()[0] - before, 0)


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
                and _entries_handed(name, args[0]) > 1:
            self.found = f"Tensor.{name}"
        out = func(*args, **(kwargs or {}))
        if name in _IMPORTS and isinstance(out, torch.Tensor):
            self.probe.imported(out)
        return out


def _entries_handed(name, tensor):
    """How many entries `name` hands out of `tensor`: its own, or its storage's whole (a one-entry view's
    `untyped_storage()` is all of its base's data: round 38's note)."""
    if name in ("untyped_storage", "storage"):
        with _no_torch_function():
            return torch.Tensor.untyped_storage(tensor).nbytes() // max(tensor.element_size(), 1)
    return tensor.numel()


def _canary(probe):
    """A tensor the grader allocates under the probe: whether the probe saw it."""
    canary = _empty(CANARY_BYTES, dtype=_uint8)
    return probe.last == canary.untyped_storage().data_ptr()


def measure(fn, args, kwargs=None, held=(), kept=None, threads=None):
    """{"bytes", "shape", "products", "ops", "widest", "shapes", "elements", "element_shape", "peak",
    "every_product", "reductions", "written", "combining", "combined", "read_most", "returned", "exported",
    "disabled"}: the
    largest tensor fn(*args, **kwargs) allocates (or writes into a storage it did not make), in bytes
    and in entries (without gradients), the most bytes its new storages held at once, the matrix
    products and the operations of any kind it runs on its inputs' data, the widest reduction of it,
    the shapes of the tensors it made (MAX_SHAPES at most), the matrix products of any data, the
    reductions of the inputs' data, the bytes written in place into storages it did not make, the
    operations that compute from the data of two arguments or more (`_MOVES`, `_combines`), [the
    arguments' bits, the lengths of the axes of the floating tensors holding that data] for data of two
    arguments or more (bit i: argument i, positional then keyword; `_UNKNOWN`: data the probe did not see
    made), [those bits, the most entries one operand of an operation that read such data held], the bits of
    each tensor it returned, the first method that handed a tensor's data to numpy or Python (None if none did:
    `_Exports`; or more single entries of the inputs' data than 1/8 of them, SCALARS_ALLOWED at least),
    and why the probe was disabled during the call (None if it never was); `held`: the data pointers
    of storages that exist already (an object's, whose method fn is), as the inputs'; `kept`: a list
    the call's value is appended to; `threads`: the most threads the process may have while the call
    runs (the child's before the student's file ran: a thread started at import computes where the
    probe, which watches one thread, cannot see: round 43's a01 to a03), None for those at its start.
    The dispatch-mode stack is left as it was found, whatever the call did to it. The call runs in the
    grad mode of every other call of the suites (round 28's a06 ran one product only where grad was
    off, as it was here once): being measured must look like any call."""
    arguments = list(args) + list((kwargs or {}).values())
    tensors = [arg for arg in leaves(arguments) if isinstance(arg, torch.Tensor)]
    origins = {}
    for index, argument in enumerate(arguments):
        for pointer in _storages(leaves([argument])):
            origins[pointer] = origins.get(pointer, 0) | 1 << min(index, ORIGINS - 1)
    origins.update({pointer: 0 for pointer in held if pointer not in origins})  # the object's: its own data
    probe = LargestAllocation(tensors, origins)
    probe.inputs |= set(held)
    previous, depth = _getprofile(), _stack_length()
    return _measured(probe, previous, depth, fn, args, kwargs, kept, threads)


def _measured(probe, previous, depth, fn, args, kwargs, kept=None, threads=None):
    """`measure`'s call, under the probe (entered here, and taken off the stack whatever happens)."""
    probe.__enter__()
    try:
        watch = _Watch(probe, depth, threads)
        seen_before = _canary(probe)
        probe.reset()
        traced = _tracing()
        _stop_tracing()  # traced afresh: memory the student's code traced before (a ballast it frees
        _start_tracing()  # during the call, round 11's a04) cannot offset what the call allocates
        start, _ = _traced()
        _setprofile(watch)
        exports = _Exports(probe)
        try:
            with _LazyImports(watch) as imports, exports:
                result = fn(*args, **(kwargs or {}))
            if kept is not None:
                kept.append(result)
        finally:
            profiled = _getprofile() is watch
            reason = watch.reason
            _setprofile(previous)
            outside = _traced()[1] - start - imports.grown if _tracing() else None
            if outside is not None:
                _stop_tracing()
            if traced:  # as the student's code left it
                _start_tracing()
        reason = reason or watch.in_force()
        with _Bookkeeping():  # no code of the student's (a subclass's __torch_function__) runs while it is read
            returned = [probe.origin(pointer, entries) for pointer, entries in _operands(_returned(result)) if entries]
        found = {"bytes": probe.bytes, "shape": list(probe.shape), "products": probe.products, "ops": probe.ops,
                 "every_product": probe.every_product, "reductions": probe.reductions, "written": probe.written,
                 "combining": probe.combining,
                 "combined": sorted([origins, sorted(axes)] for origins, axes in probe.combined.items()),
                 "read_most": sorted([origins, entries] for origins, entries in probe.read_most.items()),
                 "returned": returned,
                 "exported": exports.found or probe.shared or (
                     f"{probe.scalars} single entries (Tensor.item, float(), int())"
                     if probe.scalars > probe.allowed_scalars else None),
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
