"""The child's side of the sandbox: import the submission, run the calls the judge sends.

This code runs in the child process, next to the student's code, so it holds no expected values
and decides nothing: it computes what it is asked to and sends back plain values (see `wire`).

Before any student code runs, the child confines itself (`child_main`): its output goes to a log
file of bounded size, its memory is bounded, and on Linux a seccomp filter forbids new processes,
signals or tracing aimed at other processes and raising its own limits, while a root child also
gives up every capability. The exercise's forbidden shortcuts are watched by `grader.sandbox.rules`.
"""

import contextlib
import ctypes
import errno
import importlib.util
import io
import linecache
import os
import platform
import re
import resource
import signal
import socket
import sys
import traceback

import torch

from grader.nested import map_values
from grader.sandbox import clock, containment, rules, wire

# The requests a child serves beyond "load" and "call", by op: handler(session, request) -> the reply's
# value. A later stage registers its own (grader.perf.child: "bench") when it is imported, in the
# judge before the zygote forks, so that every child can serve it before any student code runs. In
# a child that loaded a student's file the handler runs under the exercise's rules; in one that
# never did (the reference's timing child) the handler applies what it needs itself.
OPS = {}
OUTPUT_LIMIT = 8 << 20  # bytes: what the student's code may print (the log file) or write to any file
_OUT_OF_MEMORY = re.compile(r"can't allocate memory|not enough memory")  # torch's CPU allocator


class Session:
    """The state of one child: the student's module, the objects it has made, the exercise's rules."""

    def __init__(self, memory_limit=None):
        self.module = None
        self.path = None
        self.guard = None  # the exercise's rules, from the load request on
        self.memory_limit = memory_limit
        self.objects = {}  # handle ref -> object living here (a module, a cache)

    def answer(self, request):
        """The encoded reply to one request. The student's code, and the encoding of what it
        returned (a list subclass runs its own code), run under the exercise's rules."""
        op = request["op"]
        if op == "load":
            return wire.encode(self.load(request["source"], request["path"], request["module"],
                                         request.get("forbidden", ())))
        if op in OPS and self.guard is None:  # a child that never loads student code (the reference's)
            return wire.encode(OPS[op](self, request))
        if self.guard is None:
            raise RuntimeError("no file loaded")
        if op == "call":  # the reference's child answers the timing's calls this way too, once it adopted one
            return self.guard.run(lambda: wire.encode(self.call(request)))
        if op in OPS:  # e.g. the performance phase: the student's code is timed under the rules too
            return self.guard.run(lambda: wire.encode(OPS[op](self, request)))
        raise ValueError(f"unknown op {op!r}")

    def load(self, source, path, module_name, forbidden=()):
        """Run the student's file as module `module_name` from its source, which the judge read
        and sent (this process may not be able to open the file), with nothing beside it importable,
        under every exercise's rules and the `forbidden` rule ids of its exercise's declaration."""
        folder = os.path.dirname(os.path.abspath(path))
        sys.path[:] = [p for p in sys.path if p not in ("", ".", folder, os.getcwd())]
        self.guard = rules.Guard(tuple(forbidden), path)
        self.guard.install()
        self.path = os.path.abspath(path)
        linecache.cache[self.path] = (len(source), None, source.splitlines(True), self.path)  # for tracebacks
        code = compile(source, self.path, "exec", dont_inherit=True)
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(module_name, path))
        sys.modules[module_name] = module
        self.guard.run(exec, code, vars(module))
        self.module = module
        return {"value": sorted(name for name in vars(module) if not name.startswith("_"))}

    def resolve(self, value):
        """Turn handles sent by the judge back into the objects they name, anywhere in a value."""
        return map_values(value, lambda item: self.objects[item.ref] if isinstance(item, wire.Handle) else item)

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
        """One call of the student's code, the suites' or the timing's alike (the performance phase
        sends the very same requests): its value, and the clocks' readings around it."""
        obj, fn = self.target(request)
        args = list(self.resolve(request["args"]))
        kwargs = self.resolve(request["kwargs"])
        grad = request.get("grad")
        if grad is None:
            with torch.no_grad() if request.get("no_grad") else contextlib.nullcontext():
                start = clock.read()
                value = fn(*args, **kwargs)
                spent = clock.since(start)
            reply = {"value": self.sendable(value), "clock": spent}
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
            wire.check(value)
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
        ][-5:]
        if isinstance(error, rules.Violation):
            return {"type": "ForbiddenCall", "message": error.called, "frames": frames,
                    "rule": error.rule.name, "advice": error.rule.advice}
        if isinstance(error, MemoryError) or (isinstance(error, RuntimeError) and _OUT_OF_MEMORY.search(str(error))):
            limit = f" of {self.memory_limit / (1 << 30):.3g} GiB" if self.memory_limit else ""
            return {"type": "MemoryLimit", "frames": frames,
                    "message": f"your code needed more memory than the limit{limit} (--memory-limit)"}
        if isinstance(error, wire.WireError):
            return {"type": "TypeError", "frames": frames,
                    "message": f"your code returned {error}, which is not a tensor or a plain value"}
        message = str(error)[:2000]
        if isinstance(error, PermissionError) and error.errno == errno.EPERM:
            message += " (the grader runs your code alone: no new processes, no signals to others, no shared memory)"
        return {"type": type(error).__name__, "message": message, "frames": frames}


def serve(sock, session):
    """Answer the judge's requests until it hangs up."""
    while True:
        try:
            request = wire.receive(sock)
        except (EOFError, ConnectionResetError):
            return
        try:
            frames = session.answer(request)
        except BaseException as error:  # the student's code may raise anything, SystemExit included
            try:
                frames = wire.encode({"error": session.describe(error)})
            except BaseException:  # an exception whose message cannot even be read
                frames = wire.encode({"error": {"type": type(error).__name__, "message": "", "frames": []}})
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the student's code may have replaced them
                stream.flush()
        try:
            wire.send_frames(sock, frames)
        except (BrokenPipeError, ConnectionResetError):
            return  # the judge hung up on this child (it stopped reading it): nobody to answer


def child_main(fd, log_path, memory_limit=None, plan=None, scratch=None, readable=()):
    """Entry point of a fresh child, forked or spawned: confine it, tell the judge how (the first
    message, sent before any student code runs), then serve on socket fd."""
    try:
        if os.getpgrp() != os.getpid():
            os.setsid()  # its own process group, which the judge kills as a whole
        sys.dont_write_bytecode = True
        _redirect_output(log_path, keep=fd)
        _set_limits(memory_limit)
        layers = containment.confine(plan, scratch, readable)
        gpu = plan is not None and any(device.startswith("/dev/nvidia") for device in plan.devices)
        layers.append(containment.Layer("seccomp", confine(shared_memory=gpu)))
        torch.set_num_threads(1)
        sock = socket.socket(fileno=fd)
        wire.send(sock, {"containment": containment.level_of(layers), "layers": containment.held(layers)})
        serve(sock, Session(memory_limit))
    except BaseException:  # the child's own failure (before any student code): into its log
        with contextlib.suppress(BaseException):
            traceback.print_exc()
            sys.stderr.flush()
        os._exit(70)
    finally:
        os._exit(0)


def main(argv):
    """`python -I -c ... FD LOG MEMORY_LIMIT SCRATCH`: the spawned child (where there is no zygote)."""
    child_main(int(argv[0]), argv[1], int(argv[2]) or None, None, argv[3] if len(argv) > 3 else None)


# -- confinement ----------------------------------------------------------------------------------


def _redirect_output(log_path, keep):
    """stdout and stderr into the log file, stdin from /dev/null; every other inherited file
    descriptor (the judge's terminal among them) closed, except the socket `keep`."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.closerange(3, keep)
    highest = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    os.closerange(keep + 1, highest if highest != resource.RLIM_INFINITY else 1 << 20)
    sys.stdin = open(0, closefd=False)
    sys.stdout = sys.__stdout__ = _capped_text(1)
    sys.stderr = sys.__stderr__ = _capped_text(2)


class _CappedFile(io.RawIOBase):
    """Writes to a file descriptor that stop silently at the file size limit: printing past
    OUTPUT_LIMIT is cut off, not an error in the student's code."""

    def __init__(self, fd):
        super().__init__()
        self.fd = fd

    def writable(self):
        return True

    def write(self, data):
        try:
            return os.write(self.fd, data)
        except OSError as error:
            if error.errno != errno.EFBIG:
                raise
            return len(data)


def _capped_text(fd):
    return io.TextIOWrapper(io.BufferedWriter(_CappedFile(fd)), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)


def _set_limits(memory_limit):
    """No core files, OUTPUT_LIMIT bytes per file written, and memory_limit bytes of memory on top
    of what the child holds at its start (RLIMIT_DATA: private writable memory, which tensors
    and Python objects use; unlike RLIMIT_AS it leaves CUDA's large address reservations alone)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the size limit a write fails, it does not kill
    _lower(resource.RLIMIT_CORE, 0)
    _lower(resource.RLIMIT_FSIZE, OUTPUT_LIMIT)
    if memory_limit and sys.platform == "linux":  # elsewhere RLIMIT_DATA does not bound mmap
        _lower(resource.RLIMIT_DATA, _status_bytes("VmData") + memory_limit)


def _lower(limit, value):
    """Set both the soft and the hard limit (so that the child cannot raise it back)."""
    _, hard = resource.getrlimit(limit)
    value = value if hard == resource.RLIM_INFINITY else min(value, hard)
    resource.setrlimit(limit, (value, value))


def _status_bytes(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def confine(shared_memory=False):
    """On Linux: no new privileges, no capabilities (a root child keeps uid 0 but loses every
    privilege over other processes and limits), and the seccomp filter of `_seccomp_program`.
    Where no filter can be installed, a non-root child gets a process limit instead.
    Returns whether the filter is in place."""
    if _LIBC is None:
        return False
    libc = _LIBC
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    arch = _ARCHES.get(platform.machine())
    if os.geteuid() == 0:
        _drop_capabilities(libc, arch)
    if arch is not None:
        program = _seccomp_program(arch, os.getpid(), shared_memory)
        filters = (_SockFilter * len(program))(*(_SockFilter(*op) for op in program))
        fprog = _SockFprog(len(program), filters)
        if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0:
            return True
    if os.geteuid() != 0:
        _lower(resource.RLIMIT_NPROC, _user_tasks() + 64)  # threads count too: leave torch room
    return False


def _drop_capabilities(libc, arch):
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if arch is not None:
        header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
        libc.syscall(arch.capset, header, (ctypes.c_uint32 * 6)())  # effective, permitted, inheritable: none


def _user_tasks():
    """Processes and threads of this user now, for a process limit that leaves room for a few."""
    uid, count = os.getuid(), 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
    return count


_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None  # loaded once, in the judge
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
CLONE_THREAD = 0x10000


class _Arch:
    """An architecture's audit number and the numbers of the system calls the filter looks at."""

    def __init__(self, audit, capset, **calls):
        self.audit, self.capset, self.calls = audit, capset, calls


_ARCHES = {
    "x86_64": _Arch(0xC000003E, 126, fork=57, vfork=58, clone=56, clone3=435, kill=62, tkill=200,
                    tgkill=234, rt_sigqueueinfo=129, rt_tgsigqueueinfo=297, pidfd_send_signal=424,
                    pidfd_getfd=438, ptrace=101, process_vm_readv=310, process_vm_writev=311,
                    setrlimit=160, prlimit64=302, unshare=272, setns=308, mmap=9, memfd_create=319,
                    shmget=29, socket=41, io_uring_setup=425),
    "aarch64": _Arch(0xC00000B7, 91, clone=220, clone3=435, kill=129, tkill=130, tgkill=131,
                     rt_sigqueueinfo=138, rt_tgsigqueueinfo=240, pidfd_send_signal=424, pidfd_getfd=438,
                     ptrace=117, process_vm_readv=270, process_vm_writev=271, setrlimit=164,
                     prlimit64=261, unshare=97, setns=268, mmap=222, memfd_create=279, shmget=194,
                     socket=198, io_uring_setup=425),
}
_DENIED = ("fork", "vfork", "tkill", "pidfd_send_signal", "pidfd_getfd", "ptrace", "process_vm_readv",
           "process_vm_writev", "setrlimit", "unshare", "setns", "memfd_create", "shmget", "io_uring_setup")
MAP_SHARED, AF_UNIX = 0x01, 1  # MAP_SHARED_VALIDATE (0x03) has the MAP_SHARED bit too
_SHARED_MEMORY = ("memfd_create", "shmget")  # allowed, with shared mappings, where a GPU driver may need them
                                              # (a machine with NVIDIA devices)
_SELF_ONLY = ("tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")  # first argument: a process id

# classic BPF, as seccomp runs it on struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL = 0x7FFF0000, 0x80000000


def _errno(code):
    return 0x00050000 | code


def _arg(index, high=False):
    return 16 + 8 * index + 4 * high  # offset of the low (or high) 32 bits of args[index]


def _seccomp_program(arch, pid, shared_memory=False):
    """The filter, as (code, jt, jf, k) tuples. Refused with EPERM: fork, vfork, clone without
    CLONE_THREAD (threads stay allowed), signals to any process but this one, tracing or reading
    other processes, setting limits, new namespaces, io_uring (whose operations no filter sees),
    and shared memory that RLIMIT_DATA would not count (every shared mapping, anonymous, of
    /dev/zero or of a file; memfd; SysV segments); sockets other than Unix ones. clone3 answers ENOSYS, so that glibc falls back to
    clone, whose flags a filter can read. Another ABI (32-bit x86, x32) kills the child."""
    calls, deny = arch.calls, (_RET, 0, 0, _errno(errno.EPERM))

    def only(index, values):
        body = [(_LD, 0, 0, _arg(index))]
        body += [(_JEQ, len(values) - i, 0, value & 0xFFFFFFFF) for i, value in enumerate(values)]
        return body + [deny, (_RET, 0, 0, _ALLOW)]

    denied = [name for name in _DENIED if not (shared_memory and name in _SHARED_MEMORY)]
    blocks = [(calls[name], [deny]) for name in denied if name in calls]
    blocks.append((calls["clone3"], [(_RET, 0, 0, _errno(errno.ENOSYS))]))
    blocks.append((calls["clone"], [(_LD, 0, 0, _arg(0)), (_JSET, 0, 1, CLONE_THREAD), (_RET, 0, 0, _ALLOW), deny]))
    blocks.append((calls["kill"], only(0, [pid, -pid])))  # itself, or its own process group by its id (not 0:
    # in a PID namespace a process outside it reads as pid 0, and kill(0) must not look like reaching it)
    if not shared_memory:  # every shared mapping: one of /dev/zero or of a file is shared memory too
        blocks.append((calls["mmap"], [(_LD, 0, 0, _arg(3)), (_JSET, 0, 1, MAP_SHARED), deny, (_RET, 0, 0, _ALLOW)]))
    blocks.append((calls["socket"], [(_LD, 0, 0, _arg(0)), (_JEQ, 1, 0, AF_UNIX), deny, (_RET, 0, 0, _ALLOW)]))
    blocks += [(calls[name], only(0, [pid])) for name in _SELF_ONLY]
    blocks.append((calls["prlimit64"], [  # reading a limit (new_limit == NULL) is fine
        (_LD, 0, 0, _arg(2)), (_JEQ, 1, 0, 0), deny,
        (_LD, 0, 0, _arg(2, high=True)), (_JEQ, 1, 0, 0), deny, (_RET, 0, 0, _ALLOW)]))
    program = [(_LD, 0, 0, 4), (_JEQ, 1, 0, arch.audit), (_RET, 0, 0, _KILL), (_LD, 0, 0, 0)]
    if arch is _ARCHES["x86_64"]:
        program += [(_JGE, 0, 1, 0x40000000), (_RET, 0, 0, _KILL)]  # the x32 ABI
    for number, body in blocks:
        program.append((_JEQ, 0, len(body), number))
        program += body
    return program + [(_RET, 0, 0, _ALLOW)]


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


if __name__ == "__main__":
    main(sys.argv[1:])
