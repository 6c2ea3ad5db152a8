"""The student's side of the sandbox: import the submission, run the calls the judge sends.

This code runs in the child process, next to the student's code, so it holds no expected values
and decides nothing: it computes what it is asked to and sends back plain values (see `wire`).
"""

import contextlib
import importlib.util
import os
import socket
import sys
import traceback

import torch

from grader import wire


class Session:
    """The state of one child: the student's module and the objects it has made."""

    def __init__(self):
        self.module = None
        self.path = None
        self.objects = {}  # handle ref -> object living here (a module, a cache)

    def handle(self, request):
        op = request["op"]
        if op == "load":
            return self.load(request["path"], request["module"])
        if op == "call":
            return self.call(request)
        raise ValueError(f"unknown op {op!r}")

    def load(self, path, module_name):
        """Import the student's file by path, with nothing beside it importable."""
        folder = os.path.dirname(os.path.abspath(path))
        sys.path[:] = [p for p in sys.path if p not in ("", ".", folder, os.getcwd())]
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        self.path = os.path.abspath(path)
        spec.loader.exec_module(module)
        self.module = module
        return sorted(name for name in vars(module) if not name.startswith("_"))

    def resolve(self, value):
        """Turn handles sent by the judge back into the objects they name, anywhere in a value."""
        if isinstance(value, wire.Handle):
            return self.objects[value.ref]
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        if isinstance(value, tuple):
            return tuple(self.resolve(item) for item in value)
        if isinstance(value, dict):
            return {key: self.resolve(item) for key, item in value.items()}
        return value

    def target(self, request):
        target = request["target"]
        if isinstance(target, wire.Handle):
            obj = self.objects[target.ref]
        elif not hasattr(self.module, target):
            raise AttributeError(f"your file does not define `{target}`")
        else:
            obj = getattr(self.module, target)
        method = request.get("method")
        return (obj, getattr(obj, method)) if method else (obj, obj)

    def call(self, request):
        obj, fn = self.target(request)
        args = list(self.resolve(request["args"]))
        kwargs = self.resolve(request["kwargs"])
        grad = request.get("grad")
        if grad is None:
            with torch.no_grad() if request.get("no_grad") else contextlib.nullcontext():
                value = fn(*args, **kwargs)
            reply = {"value": self.sendable(value)}
        else:
            reply = self.call_with_grad(obj, fn, args, kwargs, grad)
        if request.get("return_args"):
            reply["args"] = args
        return reply

    def call_with_grad(self, obj, fn, args, kwargs, grad):
        """Run fn with gradients on, backpropagate the judge's upstream gradient, return grads."""
        for index in grad["wrt"]:
            args[index] = args[index].detach().clone().requires_grad_(True)
        params = dict(obj.named_parameters()) if isinstance(obj, torch.nn.Module) else {}
        for p in params.values():
            p.grad = None
        value = fn(*args, **kwargs)
        outputs = value if isinstance(value, tuple) else (value,)
        pairs = [(out, up) for out, up in zip(outputs, grad["upstream"]) if up is not None]
        for out, _ in pairs:
            if not (isinstance(out, torch.Tensor) and out.requires_grad):
                raise RuntimeError(
                    "your output is not connected to the inputs by autograd "
                    "(was it built with .detach(), .item(), .numpy() or torch.tensor(...)?)"
                )
        # sum(out * upstream) has exactly the upstream gradient, and avoids backward(grad_tensors),
        # whose first use imports sympy (half a second per child)
        sum((out * up).sum() for out, up in pairs).backward()
        return {
            "value": self.sendable(value),
            "grads": [args[index].grad for index in grad["wrt"]],
            "param_grads": {name: p.grad for name, p in params.items()},
        }

    def sendable(self, value):
        """Plain values travel as they are; any other object stays here behind a handle."""
        try:
            wire.encode(value)
            return value
        except wire.WireError:
            if isinstance(value, (torch.Tensor, list, tuple, dict)):
                raise
            self.objects[len(self.objects) + 1] = value
            return wire.Handle(len(self.objects), type(value).__name__)

    def describe(self, error):
        """An exception as the judge will show it: type, message and the student's own frames."""
        frames = [
            f"{os.path.basename(frame.filename)}, line {frame.lineno}, in {frame.name}: {(frame.line or '').strip()}"
            for frame in traceback.extract_tb(error.__traceback__)
            if self.path and os.path.abspath(frame.filename) == self.path
        ]
        return {"type": type(error).__name__, "message": str(error)[:2000], "frames": frames[-5:]}


def serve(sock):
    """Answer the judge's requests until it hangs up."""
    session = Session()
    while True:
        try:
            request = wire.receive(sock)
        except EOFError:
            return
        try:
            reply = session.handle(request)
        except BaseException as error:  # the student's code may raise anything, SystemExit included
            reply = {"error": session.describe(error)}
        try:
            wire.send(sock, reply)
        except wire.WireError as error:
            wire.send(sock, {"error": {"type": "TypeError", "message": f"your code returned {error}, "
                                  "which is not a tensor or a plain value", "frames": []}})


def child_main(fd, log_path):
    """Entry point of a fresh child, forked or spawned: isolate, then serve on socket fd."""
    try:
        os.setsid() if os.getpgrp() != os.getpid() else None
        sys.dont_write_bytecode = True
        log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        sys.stdin = open(os.devnull)
        torch.set_num_threads(1)
        serve(socket.socket(fileno=fd))
    finally:
        os._exit(0)


if __name__ == "__main__":
    child_main(int(sys.argv[1]), sys.argv[2])
