"""A second device on a machine that has only the CPU, for one call of the student's code.

A mask built with `torch.ones(L, L)` and no `device=` lands on the CPU: right on a CPU machine,
a crash on a GPU, which most students and graders lack. Here the call's tensors stand on the
`meta` device (`x.device` reads `meta`) while their values stay real CPU tensors, so the call
computes what it always does; a tensor the code makes with `device=x.device` (or `.to(x.device)`,
`zeros_like(x)`, `x.new_ones(...)`) joins them, and one made without a device stays on the CPU.
An operation that mixes the two raises `DeviceMismatch`, as CUDA would, naming the line that made
the CPU tensor. What CUDA accepts from the CPU is accepted here too: 0-dim tensors, the indices
of indexing, and copies from one device into the other. Code that takes the mode off torch's
stack (to hide from it) gets `StandInDisabled` at its next operation on a stand-in tensor.
"""

import contextlib
import os
import traceback
import warnings

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_map
from torch.utils.weak import WeakTensorKeyDictionary

from grader.nested import leaves, map_values

DEVICE = torch.device("meta")  # what the stand-in tensors say they are on
_INDEXING = {torch.ops.aten.index.Tensor, torch.ops.aten.index_put.default, torch.ops.aten.index_put_.default,
             torch.ops.aten._index_put_impl_.default}
MADE_AT = WeakTensorKeyDictionary()  # a CPU tensor the student's code made -> its line, over every call
# (a KV cache's storage is made in one call and met in the next)


class DeviceMismatch(RuntimeError):
    """An operation met a tensor on the stand-in device and one the code built on the CPU."""


class StandInDisabled(RuntimeError):
    """An operation met a stand-in tensor with the stand-in device's mode switched off."""


class StandIn(torch.Tensor):
    """A CPU tensor (`inner`) that says it is on the stand-in device."""

    @staticmethod
    def __new__(cls, inner):
        wrapper = torch.Tensor._make_wrapper_subclass(
            cls, inner.shape, strides=inner.stride(), storage_offset=inner.storage_offset(), dtype=inner.dtype,
            layout=inner.layout, device=DEVICE, requires_grad=inner.requires_grad)
        wrapper.inner = inner
        return wrapper

    __torch_function__ = torch._C._disabled_torch_function_impl

    def tolist(self):  # torch's refuses every subclass; a CUDA tensor's copies its values
        return self.inner.tolist()

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        """Reached only where `Device` is not on torch's dispatch-mode stack: the student's code took it off."""
        raise StandInDisabled("your code switched off the grader's stand-in device (it disabled or popped torch's "
                              "dispatch modes), so its devices could not be checked: leave torch's modes as they are")


class Device(TorchDispatchMode):
    """While active: factories asked for the stand-in device make stand-in tensors, every
    operation on stand-in tensors gives stand-in tensors, and mixing them with CPU tensors raises.
    `path`: the student's file, whose line that made a CPU tensor the error names."""

    def __init__(self, path=None):
        super().__init__()
        self.path = path
        self.made_at = MADE_AT
        self.from_data = _FromData()  # torch.tensor(data, device=...) and its kin

    @classmethod
    def _should_skip_dynamo(cls):  # True would import torch._dynamo (1.5 s) at the first operation
        return False

    def __enter__(self):
        self.from_data.__enter__()
        return super().__enter__()

    def __exit__(self, *exc):
        try:
            super().__exit__(*exc)
        finally:
            self.from_data.__exit__(*exc)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        flat = [value for value in leaves((args, kwargs)) if isinstance(value, torch.Tensor)]
        wanted = kwargs.get("device")
        to_stand_in = wanted is not None and torch.device(wanted).type == DEVICE.type
        if to_stand_in:
            kwargs["device"] = torch.device("cpu")
        elif wanted is not None and any(isinstance(t, StandIn) for t in flat):
            to_stand_in = False  # .to("cpu") and friends: the result is a plain CPU tensor
        on_stand_in = any(isinstance(t, StandIn) for t in flat)
        if func is torch.ops.aten.copy_.default:  # a copy between devices is allowed: dst stays where it is
            func(*tree_map(_inner, args), **tree_map(_inner, kwargs))
            return args[0]
        if on_stand_in:
            self._refuse_mixing(func, args)
        out = func(*tree_map(_inner, args), **tree_map(_inner, kwargs))
        if to_stand_in or (on_stand_in and wanted is None):
            return self._wrap(out, args, kwargs)
        if not flat or func is torch.ops.aten.lift_fresh.default or all(t in self.made_at for t in flat if t.dim() > 0):
            self._note_made(out, [self.made_at.get(t) for t in flat])
        return out

    def _refuse_mixing(self, func, args):
        """Raise DeviceMismatch if a CPU tensor of more than 0 dims is an operand (indices aside)."""
        operands = args[:1] if func in _INDEXING else args
        for value in leaves(operands):
            if isinstance(value, torch.Tensor) and not isinstance(value, StandIn) and value.dim() > 0:
                where = self.made_at.get(value)
                made = f" made at {where}" if where else ""
                raise DeviceMismatch(
                    f"{func.overloadpacket.__name__} meets a tensor of shape {list(value.shape)}{made}, which is on "
                    "the CPU, with tensors on the inputs' device")

    def _wrap(self, out, args, kwargs):
        """The operation's result as stand-in tensors; an input returned (in place, out=) as itself."""
        given = {id(_inner(t)): t for t in leaves((args, kwargs)) if isinstance(t, StandIn)}
        return tree_map(lambda t: (given[id(t)] if id(t) in given else _stand_in(t)) if isinstance(t, torch.Tensor)
                        else t, out)

    def _note_made(self, out, origins):
        """Remember the student's line that made each CPU tensor of `out` (or the one it came from)."""
        where = next((origin for origin in origins if origin), None) or student_line(self.path)
        if where:
            for value in leaves(out):
                if isinstance(value, torch.Tensor):
                    self.made_at[value] = where


def student_line(path):
    """The line of the student's file `path` running now, as a report names it ("line 12, in f
    (`code`)", and the line that called f where f is theirs too), or None outside their code."""
    frames = [frame for frame in traceback.extract_stack() if path and os.path.abspath(frame.filename) == path]
    if not frames:
        return None
    where = [f"line {frame.lineno}, in {frame.name} (`{(frame.line or '').strip()}`)" for frame in frames[-2:]]
    return " called from ".join(reversed(where))


class _FromData(TorchFunctionMode):
    """torch.tensor(data, device=...) and its kin move their CPU copy of the data to the device out
    of the dispatcher's sight (a real meta tensor, without values): here they make it on the CPU,
    and a stand-in of it where the stand-in device was asked for (or, for x.new_tensor, x is on it)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func not in _FROM_DATA:
            return func(*args, **kwargs)
        device = kwargs.get("device")
        if func is torch.Tensor.new_tensor and device is None and isinstance(args[0], StandIn):
            device = DEVICE
        if device is not None and torch.device(device).type == DEVICE.type:
            kwargs["device"] = torch.device("cpu")
            return StandIn(func(*tree_map(_inner, args), **kwargs))
        return func(*args, **kwargs)


_FROM_DATA = {torch.tensor, torch.as_tensor, torch.asarray, torch.Tensor.new_tensor}
# torch's warnings about the student's torch.tensor(...) calls, raised again through _FromData, name this module's
# line: the run without the stand-in told them already, at the student's own line
warnings.filterwarnings("ignore", module=__name__)


def _stand_in(tensor):
    """A stand-in for `tensor`; the tensor itself for a layout no device but the CPU has (mkldnn)."""
    if tensor.layout == torch._mkldnn:
        return tensor
    return StandIn(tensor)


def _inner(value):
    return value.inner if isinstance(value, StandIn) else value


def move(value):
    """Every tensor in `value` onto the stand-in device."""
    return map_values(value, lambda t: StandIn(t) if isinstance(t, torch.Tensor) and not isinstance(t, StandIn) else t)


@contextlib.contextmanager
def holding(obj):
    """While active, a module's parameters and buffers (every submodule's) on the stand-in device,
    as `module.to(device)` would put them; put back as they were afterwards. Anything else: as it is."""
    held = [(owner, name, tensor) for module in (obj.modules() if isinstance(obj, torch.nn.Module) else ())
            for owner in (module._parameters, module._buffers) for name, tensor in owner.items()
            if tensor is not None]
    for owner, name, tensor in held:
        owner[name] = StandIn(tensor)
    try:
        yield
    finally:
        for owner, name, tensor in held:
            owner[name] = tensor


def back(value, device):
    """(`value` with its stand-in tensors as the CPU tensors they hold; for each tensor of it, in the
    order grader.nested.leaves lists them, True if it was on the stand-in device, else where
    `device` (the call's Device) saw the student's code make it, or None)."""
    placed = []

    def plain(t):
        if isinstance(t, torch.Tensor):
            placed.append(True if isinstance(t, StandIn) else device.made_at.get(t))
            return _inner(t)
        return t

    return map_values(value, plain), placed
