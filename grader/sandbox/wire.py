"""The only language the judge and the student's process share: plain data and raw tensor bytes.

No pickle crosses the boundary: the judge decodes JSON and builds every tensor itself from bytes,
so whatever the student's process sends, what arrives is a real `torch.Tensor` (never a subclass
or an object with a custom `__eq__`) or a plain Python value.
"""

import hashlib
import hmac
import json
import math
import re
import secrets
import struct
import time

import torch

MAX_MESSAGE_BYTES = 128 << 20  # a larger reply is a runaway submission, not an answer (the largest
                               # the suites expect, a CUDA performance case, is 36 MiB)
MAX_HEADER_BYTES = 16 << 20  # the JSON part: plain values, never tensor data
MAX_VALUES = 100_000  # plain values (numbers, strings, lists...) in one message
MAX_TOKENS = 4 * MAX_VALUES  # commas and opening brackets in a header (each value past the first follows one,
                             # strings may hold more): bounds what json.loads builds (round 9's a17: 16 MiB of
                             # {} made the judge build 5.6 M dicts, +450 MiB, before MAX_VALUES was checked)
MAX_DIMS = 16  # dimensions of one tensor
_DEVICES = re.compile(r"(cpu|cuda(:\d+)?)\Z")
_KIND = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,99}\Z")  # a type name, as the judge will print it


def dtype_text(dtype):
    """A dtype's name as the wire carries it and every message writes it: "float32"."""
    return str(dtype).removeprefix("torch.")


_DTYPES = {
    dtype_text(dtype): dtype
    for dtype in (
        torch.float16, torch.bfloat16, torch.float32, torch.float64,
        torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
    )
}


class WireError(Exception):
    """A value that cannot be sent, or a frame that does not decode."""


class Allowance:
    """The bytes of messages a receiver still takes from one sender, over all its messages: the judge
    keeps what the student's answers hold (values, their float64 copies, the diagnosis's records), so
    their total bounds its memory, as no limit on one child does (round 23's a7: 120 MiB at every call
    took the judge from 0.3 to 2.2 GiB)."""

    def __init__(self, total):
        self.total, self.left = total, total


class OverAllowance(WireError):
    """A message larger than what its receiver's Allowance still takes: not read."""

    def __init__(self, size, allowance):
        super().__init__(f"a message of {size} bytes, with {allowance.left} of {allowance.total} left")
        self.size, self.allowance = size, allowance


class Handle:
    """A reference to an object that lives in the student's process (a module, a cache)."""

    def __init__(self, ref, kind):
        self.ref = ref
        self.kind = kind

    def __repr__(self):
        return f"<{self.kind} in the student's process>"


def encode(value):
    """Value -> list of frames: a JSON header, then one buffer per tensor (a view of its bytes)."""
    buffers = []
    tree = _pack(value, buffers)
    header = json.dumps(tree, allow_nan=False).encode()
    return [header, *buffers]


def check(value):
    """Raise WireError unless `value` can be sent; cheaper than encoding it (no bytes copied)."""
    _pack(value, None)


def send(sock, value, key=None):
    send_frames(sock, encode(value), key)


def send_frames(sock, frames, key=None):
    """Write one message: its length, then each frame with its length. A tensor's bytes go from
    its own memory to the socket, never copied into one body first. With `key`, the message ends
    with a frame that signs the others (`receive` checks it)."""
    if key is not None:
        frames = [*frames, _signature(key, frames)]
    sizes = [memoryview(frame).nbytes for frame in frames]
    head = struct.pack("!Q", sum(sizes) + 8 * len(sizes))
    for frame, size in zip(frames, sizes):
        sock.sendall(head + struct.pack("!Q", size))
        sock.sendall(frame)
        head = b""


def receive(sock, deadline=None, allowance=None, from_judge=False, key=None):
    """Read one message written by `send`; EOFError when the other side has gone, TimeoutError
    past `deadline` (time.monotonic()), however slowly the other side trickles its bytes;
    OverAllowance, before reading it, for a message larger than what `allowance` still takes.
    `from_judge`: a child reading the judge's request, whose header is not counted before it is read
    (a student's 2 MiB table of numbers is one string of many commas in the load request: round 29's a11).
    `key`: the message must be signed with it, as the child's own code signs its replies: bytes the
    student's code wrote on the child's socket (round 42's a06 found its descriptor) are not a reply."""
    (size,) = struct.unpack("!Q", _read_exactly(sock, 8, deadline))
    if allowance is not None:  # first: its reason is the one a student can act on
        if size > allowance.left:
            raise OverAllowance(size, allowance)
        allowance.left -= size
    if size > MAX_MESSAGE_BYTES:
        raise WireError(f"a message of {size} bytes is over the {MAX_MESSAGE_BYTES}-byte limit")
    frames, at = [], 0
    while at < size:  # the header, then each tensor's bytes straight into memory of its own (`_unpack`)
        if at + 8 > size:
            raise WireError("malformed message from the student's process: a frame is cut short")
        (length,) = struct.unpack("!Q", _read_exactly(sock, 8, deadline))
        if at + 8 + length > size:
            raise WireError("malformed message from the student's process: a frame is cut short")
        frames.append(_read_exactly(sock, length, deadline, tensor=bool(frames)))
        at += 8 + length
    if key is not None:
        if len(frames) < 2 or not hmac.compare_digest(_view(frames[-1]).tobytes(), _signature(key, frames[:-1])):
            raise WireError("a message the grader's side of the student's process did not write")
        frames = frames[:-1]
    if not frames or len(frames[0]) > MAX_HEADER_BYTES:
        raise WireError("malformed message from the student's process: no header, or one too large")
    return decode(frames, counted=not from_judge)


def new_key():
    """A key for one child's replies, made by the judge and read by the child before any student code runs."""
    return secrets.token_bytes(32)


def _signature(key, frames):
    """The keyed hash of a message's frames, each with its length."""
    signed = hmac.new(key, digestmod=hashlib.blake2b)
    for frame in frames:
        view = _view(frame)
        signed.update(struct.pack("!Q", view.nbytes))
        signed.update(view)
    return signed.digest()


def _view(frame):
    """A frame's bytes, as read (a tensor's: `_read_exactly`) or to be sent."""
    return memoryview(frame.numpy() if isinstance(frame, torch.Tensor) else frame)


def _read_exactly(sock, size, deadline, tensor=False):
    """`size` bytes from the socket, in a bytearray, or with `tensor` in a uint8 tensor: memory
    torch allocated (aligned as its own tensors are, so that an operation on it takes the time it
    takes on any tensor, wherever the allocator happened to put a bytearray)."""
    data = torch.empty(size, dtype=torch.uint8) if tensor else bytearray(size)
    view, got = memoryview(data.numpy() if tensor else data), 0
    while got < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the other side took too long")
            sock.settimeout(left)
        count = sock.recv_into(view[got:], min(size - got, 1 << 20))
        if not count:
            raise EOFError("the other side closed the connection")
        got += count
    return data


def decode(frames, counted=True):
    """Frames -> value; every tensor is rebuilt here from dtype, shape and bytes. Bounded: at most
    MAX_VALUES values, and each buffer used by one tensor only, whose size it must match exactly (a
    header naming one buffer many times must not make the judge copy it many times); `counted`: a
    header with more marks than MAX_TOKENS is refused before it is parsed (text counts too: cheap)."""
    header = bytes(frames[0])
    if counted and sum(header.count(mark) for mark in (b",", b"[", b"{")) > MAX_TOKENS:  # before json builds them
        raise WireError(f"malformed message from the student's process: more than {MAX_VALUES} values in one reply")
    try:
        tree = json.loads(header)
        return _unpack(tree, frames[1:], _Budget())
    except (ValueError, KeyError, TypeError, IndexError, RuntimeError, OverflowError, RecursionError) as err:
        raise WireError(f"malformed message from the student's process: {err}") from None


class _Budget:
    """What one message may still make the judge build."""

    def __init__(self):
        self.values, self.buffers = MAX_VALUES, set()

    def spend(self):
        self.values -= 1
        if self.values < 0:
            raise ValueError(f"more than {MAX_VALUES} values in one reply")

    def take(self, index, buffers):
        if index in self.buffers:
            raise ValueError("a tensor buffer used twice")
        self.buffers.add(index)
        return buffers[index]


def _pack(value, buffers):
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if isinstance(value, (list, tuple)):  # namedtuples and OrderedDicts arrive as plain ones
        kind = "list" if isinstance(value, list) else "tuple"
        return {kind: [_pack(item, buffers) for item in value]}
    if isinstance(value, dict):
        return {"dict": [[str(key), _pack(item, buffers)] for key, item in value.items()]}
    if isinstance(value, torch.dtype):
        return {"dtype": dtype_text(value)}
    if isinstance(value, Handle):
        return {"handle": value.ref, "kind": value.kind}
    if type(value) is torch.Generator and value.device.type == "cpu":  # its whole state, not just a seed
        return {"generator": _pack(value.get_state(), buffers)}
    if type(value) is torch.Tensor or type(value) is torch.nn.Parameter:
        tensor = value.detach()
        if dtype_text(tensor.dtype) not in _DTYPES:
            raise WireError(f"tensors of dtype {tensor.dtype} are not supported")
        if tensor.is_meta:  # its copy raises NotImplementedError, which would read as a stub not yet written
            raise WireError("a tensor on the meta device (a shape without values)")
        if tensor.layout != torch.strided:  # its copy raises a RuntimeError that would read as the code's own
            raise WireError(f"a tensor of layout {str(tensor.layout).removeprefix('torch.')} (return a dense one)")
        if buffers is None:  # only checking
            return None
        order = axis_order(tensor)
        flat = tensor.permute(order).to("cpu").contiguous().reshape(-1)
        if flat.numel() and flat.untyped_storage().data_ptr() == tensor.untyped_storage().data_ptr():
            flat = flat.clone()  # numpy's view of a storage marks it shared with numpy for good (a cache's: probe)
        buffers.append(flat.view(torch.uint8).numpy() if flat.numel() else b"")  # its bytes
        packed = {
            "tensor": len(buffers) - 1,
            "dtype": dtype_text(tensor.dtype),
            "shape": list(tensor.shape),
            "device": str(tensor.device),
        }
        if order != sorted(order):
            packed["order"] = order
        return packed
    kind = f"{type(value).__module__}.{type(value).__qualname__}"
    if isinstance(value, torch.Tensor):
        raise WireError(f"a subclass of torch.Tensor ({kind}): return a plain tensor")
    raise WireError(f"a value of type {kind}")


def axis_order(tensor):
    """The axes of `tensor` from the outermost in memory: a transposed tensor arrives transposed (round 7:
    code that views its input must meet a non-contiguous one). Any other layout arrives contiguous."""
    order = sorted(range(tensor.dim()), key=lambda axis: -tensor.stride(axis))
    return order if tensor.permute(order).is_contiguous() else list(range(tensor.dim()))


def _bytes_tensor(buffer):
    """A frame's bytes as a uint8 tensor of its own: as `receive` read it, or a copy of other bytes."""
    if type(buffer) is torch.Tensor:
        return buffer
    return torch.frombuffer(bytearray(buffer), dtype=torch.uint8) if len(buffer) else torch.empty(0, dtype=torch.uint8)


def _unpack(tree, buffers, budget):
    budget.spend()
    if tree is None or type(tree) in (bool, int, float, str):
        return tree
    if "tensor" in tree:
        dtype, shape = _DTYPES[tree["dtype"]], tree["shape"]
        if isinstance(shape, list) and len(shape) > MAX_DIMS:
            raise ValueError(f"a tensor of {len(shape)} dimensions, where the grader takes {MAX_DIMS} at most")
        if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
            raise ValueError("a tensor's shape is not a list of sizes")
        flat = _bytes_tensor(budget.take(int(tree["tensor"]), buffers))
        if flat.numel() != math.prod(shape) * dtype.itemsize:
            raise ValueError("a tensor's bytes do not match its shape")
        order = tree.get("order", list(range(len(shape))))
        if not isinstance(order, list) or sorted(order) != list(range(len(shape))) or \
                not all(type(axis) is int for axis in order):
            raise ValueError("a tensor's axis order is not an order of its axes")
        tensor = laid_out(flat.view(dtype), shape, order)
        device = str(tree["device"])
        if not _DEVICES.match(device):
            raise ValueError(f"unknown device {device!r}")
        return tensor if device == "cpu" else tensor.to(device)
    if "float" in tree:
        return float(tree["float"])
    if "list" in tree:
        return [_unpack(item, buffers, budget) for item in tree["list"]]
    if "tuple" in tree:
        return tuple(_unpack(item, buffers, budget) for item in tree["tuple"])
    if "dict" in tree:
        return {str(k): _unpack(item, buffers, budget) for k, item in tree["dict"]}
    if "dtype" in tree:
        return _DTYPES[tree["dtype"]]
    if "generator" in tree:  # a new CPU generator in the sent state (set_state refuses a wrong size)
        generator = torch.Generator()
        generator.set_state(_unpack(tree["generator"], buffers, budget))
        return generator
    if "handle" in tree:
        kind = str(tree["kind"])
        return Handle(int(tree["handle"]), kind if _KIND.match(kind) else "object")
    raise KeyError(f"unknown value {sorted(tree)}")


def laid_out(values, shape, order):
    """A tensor of `shape` whose axes lie in memory in `order` (axis_order's), holding `values` in that
    order (flat, or of the permuted shape)."""
    inverse = [0] * len(order)
    for position, axis in enumerate(order):
        inverse[axis] = position
    return values.reshape([shape[axis] for axis in order]).permute(inverse)
