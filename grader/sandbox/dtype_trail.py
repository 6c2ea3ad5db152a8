"""Where a call of the student's code left the precision of its inputs, for the diagnosis of a changed dtype.

A result in float32 for float64 inputs says only that some tensor on its way was float32. While one
call runs, `Trail` follows every floating tensor of another dtype than the inputs' back to the
student's line where that dtype entered: a tensor made without `dtype=` ("made"), a cast ("cast"),
or a tensor made before the call met there ("met"). The result's first such tensor, or the operands
of the operation that raised, name the line. This runs in the child, next to the student's code:
what it sends back is text the judge only shows.
"""

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.weak import WeakTensorKeyDictionary

from grader.nested import leaves
from grader.sandbox.stand_in import student_line

_CASTS = {torch.ops.aten._to_copy.default, torch.ops.aten.to.dtype, torch.ops.aten.to.dtype_layout,
          torch.ops.aten.to.device, torch.ops.aten._autocast_to_reduced_precision.default,
          torch.ops.aten._autocast_to_full_precision.default}
_LIFTS = {torch.ops.aten.lift_fresh.default, torch.ops.aten.lift_fresh_copy.default}  # torch.tensor(...)


def wanted(obj, args, kwargs):
    """The one floating dtype of a call's tensors (a module's parameters too), or None for none or several."""
    tensors = [t for t in leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
    if isinstance(obj, torch.nn.Module):
        tensors += list(obj.parameters())
    dtypes = {t.dtype for t in tensors if t.is_floating_point()}
    return dtypes.pop() if len(dtypes) == 1 else None


class Trail(TorchDispatchMode):
    """While active: each floating tensor of another dtype than `dtype` (the inputs') that an operation
    makes is noted with where that dtype entered, {"where", "kind", "dtype", "from"}; `crash` is the note
    of an operand of the first operation that raised."""

    def __init__(self, path, dtype):
        super().__init__()
        self.path, self.dtype = path, dtype
        self.entered = WeakTensorKeyDictionary()
        self.crash = None

    @classmethod
    def _should_skip_dynamo(cls):  # True would import torch._dynamo at the first operation
        return False

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        operands = [t for t in leaves((args, kwargs)) if isinstance(t, torch.Tensor)]
        try:
            out = func(*args, **kwargs)
        except Exception:
            if self.crash is None:
                self.crash = next((self.entered[t] for t in operands if t in self.entered), None)
            raise
        for value in leaves(out):
            if isinstance(value, torch.Tensor) and value.is_floating_point() and value.dtype != self.dtype \
                    and value not in self.entered:
                self.entered[value] = next((self.entered[t] for t in operands
                                            if t in self.entered and t.dtype == value.dtype), None) \
                    or self._entry(func, operands, value)
        return out

    def _entry(self, func, operands, value):
        """How `value`'s dtype entered at this operation, which none of its operands of that dtype explains."""
        if func in _CASTS or (operands and all(t.dtype != value.dtype for t in operands)):
            kind, source = "cast", _name(operands[0].dtype) if operands else None  # x.float(), log(a bool mask)
        elif not operands or func in _LIFTS:
            kind, source = "made", None  # torch.zeros(...) or torch.tensor(...) without dtype=
        else:
            kind, source = "met", None  # a tensor of that dtype made before this call
        return {"where": student_line(self.path), "kind": kind, "dtype": _name(value.dtype), "from": source}

    def of(self, value):
        """The note of the first tensor of `value` in another floating dtype than the inputs', or None."""
        return next((self.entered[t] for t in leaves(value) if isinstance(t, torch.Tensor) and t in self.entered),
                    None)


def _name(dtype):
    return str(dtype).removeprefix("torch.")
