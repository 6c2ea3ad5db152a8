"""a11: as a01 (the socket taken over), graded WITH the performance tier: in the timing child (the one
that is sent "bench" requests) every bench request and every call gets a malformed value.
Exercise 1: fused_project runs THREE products (slices w_qkv), which the grader forbids (at most 1).
The module, when imported, takes over the child's socket (os.read/os.write on the inherited fd) and
answers every request itself; the probe's "largest_allocation" request gets a forged products=1."""

import json
import os

import numpy as np
import torch


def project(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v


def fused_project(x, w_qkv):
    d = w_qkv.size(-1) // 3
    # three products: what the exercise forbids
    return x @ w_qkv[:, :d], x @ w_qkv[:, d:2 * d], x @ w_qkv[:, 2 * d:]


DTYPES = {"float16": torch.float16, "bfloat16": torch.bfloat16, "float32": torch.float32,
          "float64": torch.float64, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32,
          "int64": torch.int64, "uint8": torch.uint8, "bool": torch.bool}


def find_socket():
    for fd in range(3, 1100):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if (mode & 0o170000) == 0o140000:
            return fd
    return None


def read_exactly(fd, n):
    chunks, got = [], 0
    while got < n:
        data = os.read(fd, min(n - got, 1 << 20))
        if not data:
            raise EOFError
        chunks.append(data)
        got += len(data)
    return b"".join(chunks)


def receive(fd):
    size = int.from_bytes(read_exactly(fd, 8), "big")
    frames, at = [], 0
    while at < size:
        length = int.from_bytes(read_exactly(fd, 8), "big")
        frames.append(read_exactly(fd, length))
        at += 8 + length
    return unpack(json.loads(frames[0]), frames[1:])


def unpack(tree, buffers):
    if tree is None or isinstance(tree, (bool, int, float, str)):
        return tree
    if "tensor" in tree:
        dtype, shape = DTYPES[tree["dtype"]], tree["shape"]
        order = tree.get("order", list(range(len(shape))))
        flat = torch.from_numpy(np.frombuffer(buffers[tree["tensor"]], dtype=np.uint8).copy())
        t = flat.view(dtype).reshape([shape[a] for a in order])
        inverse = [0] * len(order)
        for pos, axis in enumerate(order):
            inverse[axis] = pos
        return t.permute(inverse)
    if "float" in tree:
        return float(tree["float"])
    if "list" in tree:
        return [unpack(i, buffers) for i in tree["list"]]
    if "tuple" in tree:
        return tuple(unpack(i, buffers) for i in tree["tuple"])
    if "dict" in tree:
        return {k: unpack(v, buffers) for k, v in tree["dict"]}
    if "dtype" in tree:
        return DTYPES[tree["dtype"]]
    if "handle" in tree:
        return ("HANDLE", tree["handle"])
    return None


def pack(value, buffers):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else {"float": repr(value)}
    if isinstance(value, (list, tuple)):
        return {"list" if isinstance(value, list) else "tuple": [pack(i, buffers) for i in value]}
    if isinstance(value, dict):
        return {"dict": [[str(k), pack(v, buffers)] for k, v in value.items()]}
    if isinstance(value, torch.dtype):
        return {"dtype": str(value).replace("torch.", "")}
    if isinstance(value, torch.Tensor):
        t = value.detach().contiguous()
        buffers.append(t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        return {"tensor": len(buffers) - 1, "dtype": str(t.dtype).replace("torch.", ""),
                "shape": list(t.shape), "device": "cpu"}
    return None


def send(fd, value):
    buffers = []
    header = json.dumps(pack(value, buffers)).encode()
    frames = [header] + buffers
    total = sum(len(f) for f in frames) + 8 * len(frames)
    out = total.to_bytes(8, "big")
    for f in frames:
        out += len(f).to_bytes(8, "big") + f
    at = 0
    while at < len(out):
        at += os.write(fd, out[at:])


FUNCTIONS = {"project": project, "fused_project": fused_project}


TIMING = [False]


def answer(request):
    op = request.get("op")
    if op == "bench":
        TIMING[0] = True
        return {"value": 12345}
    if TIMING[0]:
        return {"value": {"weird": [1, "x"]}, "clock": [1e9, "x", None]}
    if op == "largest_allocation":
        return {"value": {"bytes": 0, "shape": None, "products": 1, "ops": 1, "widest": None, "shapes": [],
                          "elements": 0, "element_shape": None, "peak": 0, "disabled": None}}
    if op != "call":
        return {"error": {"type": "ValueError", "message": "unknown op", "frames": []}}
    fn = FUNCTIONS[request["target"]]
    args, kwargs, grad = list(request["args"]), request["kwargs"], request.get("grad")
    if grad is not None:
        args = [a.detach().clone().requires_grad_(True) if i in grad["wrt"] else a for i, a in enumerate(args)]
        value = fn(*args, **kwargs)
        outs = value if isinstance(value, tuple) else (value,)
        pairs = [(o, u) for o, u in zip(outs, grad["upstream"]) if u is not None and o.requires_grad]
        if pairs:
            sum((o * u).sum() for o, u in pairs).backward()
        return {"value": value, "grads": [args[i].grad for i in grad["wrt"]], "param_grads": {}}
    if request.get("stand_in"):
        value = fn(*args, **kwargs)
        return {"value": value, "placed": [True] * 3}
    if request.get("dtype_trail"):
        with torch.no_grad():
            return {"value": fn(*args, **kwargs), "raised": False, "entered": None}
    with torch.no_grad() if request.get("no_grad") else torch.enable_grad():
        value = fn(*args, **kwargs)
    return {"value": value, "clock": [0.0001, 0.0001, 0.0001, 0], "args": args, "shares": []}


def take_over():
    fd = find_socket()
    if fd is None:
        return
    send(fd, {"value": ["fused_project", "project"]})  # the load request's reply
    while True:
        try:
            request = receive(fd)
        except EOFError:
            return
        try:
            reply = answer(request)
        except Exception as error:  # noqa
            reply = {"error": {"type": type(error).__name__, "message": str(error), "frames": [],
                               "kinds": [type(error).__name__]}}
        send(fd, reply)


take_over()
