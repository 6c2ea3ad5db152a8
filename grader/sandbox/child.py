"""The child's side of the sandbox: import the submission, run the calls the judge sends.

This code runs in the child process, next to the student's code, so it holds no expected values
and decides nothing: it computes what it is asked to and sends back plain values (see `wire`).

Before any student code runs, the child confines itself (`child_main`): its output goes to a log
file of bounded size, its memory is bounded, and on Linux it gets a thread cap of its own (a user
namespace), gives up every capability, and installs a seccomp allowlist: the system calls that
importing torch, running its CPU kernels and answering the judge were recorded to make, and no
others (EPERM). The exercise's forbidden shortcuts are watched by `grader.sandbox.rules`.
"""

import contextlib
import ctypes
import errno
import glob
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

from grader.nested import leaves, map_values
from grader.sandbox import clock, containment, dtype_trail, gradient_trail, rules, stand_in, wire

# The requests a child serves beyond "load" and "call", by op: handler(session, request) -> the reply's
# value. A later stage registers its own (grader.perf.child: "bench") when it is imported, in the
# judge before the zygote forks, so that every child can serve it before any student code runs. In
# a child that loaded a student's file the handler runs under the exercise's rules; in one that
# never did (the reference's timing child) the handler applies what it needs itself.
OPS = {}
# The readings of threads and CUDA, as the child started (the student's code may replace this module's
# names: tests/perf/test_perf.py's clocks_report_a_microsecond replaces `clock`)
_threads, _cuda_initialized = clock.threads, clock.cuda_initialized
# How a watched call is measured (Session.call): watch(fn, args, kwargs, obj, threads) -> (its value, what
# was measured), obj the object whose method fn is (its storages are not new) or None.
# Registered with the ops by the later stage that measures (grader.perf.child).
WATCH = None
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
        self.made_by = {}  # handle ref -> the name in the student's file whose call made it ("KVCache")
        self.watched = frozenset()  # the names whose every call is measured (the exercise's `watched`)
        self.threads = None  # the threads this process had before the student's file ran (and CUDA's since)

    def answer(self, request):
        """The encoded reply to one request. The student's code, and the encoding of what it
        returned (a list subclass runs its own code), run under the exercise's rules."""
        op = request["op"]
        if op == "load":
            return wire.encode(self.load(request["source"], request["path"], request["module"],
                                         request.get("forbidden", ()), request.get("ctypes", False),
                                         request.get("watched", ())))
        if op in OPS and self.guard is None:  # a child that never loads student code (the reference's)
            return wire.encode(OPS[op](self, request))
        if self.guard is None:
            raise RuntimeError("no file loaded")
        if op == "call":  # the reference's child answers the timing's calls this way too, once it adopted one
            return self.guard.run(lambda: wire.encode(self.call(request)))
        if op in OPS:  # e.g. the performance phase: the student's code is timed under the rules too
            return self.guard.run(lambda: wire.encode(OPS[op](self, request)))
        raise ValueError(f"unknown op {op!r}")

    def load(self, source, path, module_name, forbidden=(), ctypes=False, watched=()):
        """Run the student's file as module `module_name` from its source, which the judge read
        and sent (this process may not be able to open the file), with nothing beside it importable,
        under every exercise's rules and the `forbidden` rule ids of its exercise's declaration
        (`ctypes`, `watched`: see judge.load_request)."""
        if watched and WATCH is None:
            raise RuntimeError("watched calls need grader.perf.child imported before the child started")
        self.watched = frozenset(watched)
        _refuse_tensor_subclasses(os.path.abspath(path))
        folder = os.path.dirname(os.path.abspath(path))
        sys.path[:] = [p for p in sys.path if p not in ("", ".", folder, os.getcwd())]
        self.guard = rules.Guard(tuple(forbidden), path, ctypes=ctypes)
        self.guard.install()
        torch.compile = _eager_compile
        self.path = os.path.abspath(path)
        linecache.cache[self.path] = (len(source), None, source.splitlines(True), self.path)  # for tracebacks
        code = compile(source, self.path, "exec", dont_inherit=True)
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(module_name, path))
        sys.modules[module_name] = module
        if watched:  # CUDA's own threads are the grader's: started before they are counted, where it can start
            with contextlib.suppress(Exception):
                if torch.cuda.is_available():
                    torch.cuda.init()
        self.threads = _threads()  # a measured call may run beside no thread the student's code started
        self.guard.run(exec, code, vars(module))
        self.module = module
        return {"value": sorted(name for name in vars(module) if not name.startswith("_"))}

    def received(self, threads_before, cuda_before):
        """After the judge's request was read: the threads CUDA started if reading it started CUDA (its
        tensors moved to the GPU) are the grader's, not the student's (`threads`)."""
        if self.threads is not None and not cuda_before and _cuda_initialized():
            grown = (_threads() or 0) - (threads_before or 0)
            self.threads += max(grown, 0)

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
        sends the very same requests): its value, and the clocks' readings around it, from before the
        target is looked up (a module can run code when it is: that is the call's too)."""
        start = clock.read()
        obj, fn = self.target(request)
        args = tuple(self.resolve(request["args"]))  # a tuple: the tensors sent back are the ones passed
        kwargs = self.resolve(request["kwargs"])
        grad = request.get("grad")
        watched = request.get("watch", True) and self.watched_name(request) in self.watched
        if request.get("stand_in"):
            if grad is not None:
                raise ValueError("a call on the stand-in device takes no grad")
            return self.call_on_stand_in(obj, fn, args, kwargs)
        if request.get("dtype_trail"):
            return self.call_with_dtype_trail(obj, fn, args, kwargs)
        if grad is None:
            with torch.no_grad() if request.get("no_grad") else contextlib.nullcontext():
                value, measured = _watch(obj, fn, args, kwargs, watched, self.threads)
                spent = clock.since(start)
            # the arguments as the call left them, whether or not the judge checks them: no request says
            # which calls are a check of the inputs (round 11's a09 edited them in place but when asked back)
            reply = {"value": self.sendable(value), "clock": spent, "args": map_values(args, _plain),
                     "shares": _shared(value, args)}
        else:
            reply, measured = self.call_with_grad(obj, fn, args, kwargs, grad, watched)
        if isinstance(request["target"], str) and isinstance(reply["value"], wire.Handle):
            self.made_by[reply["value"].ref] = request["target"]
        return reply if measured is None else {**reply, "watched": measured}

    def watched_name(self, request):
        """The name a call request is watched by (`Exercise.watched`): a function's ("fused_project"), or
        of a method of an object a call of the file's names made, its maker's ("KVCache.update")."""
        target, method = request["target"], request.get("method")
        maker = target if isinstance(target, str) else self.made_by.get(target.ref)
        return maker if method is None else f"{maker}.{method}"

    def call_on_stand_in(self, obj, fn, args, kwargs):
        """fn with every tensor argument (and a module's parameters and buffers) on the stand-in
        device (grader.sandbox.stand_in): its value, and for each of its tensors whether it is there
        too (`placed`: see stand_in.back)."""
        args, kwargs = stand_in.move(args), stand_in.move(kwargs)
        with stand_in.Device(self.path) as device, stand_in.holding(obj):
            value = fn(*args, **kwargs)
        value, placed = stand_in.back(value, device)
        return {"value": self.sendable(value), "placed": placed}

    def call_with_dtype_trail(self, obj, fn, args, kwargs):
        """fn without gradients, its floating tensors of another dtype than its inputs' followed to where
        that dtype entered (grader.sandbox.dtype_trail): the reply's `entered` says where, for its value,
        or for the operation that raised (then `value` is None and `raised` True)."""
        with torch.no_grad(), dtype_trail.Trail(self.path, dtype_trail.wanted(obj, args, kwargs)) as trail:
            try:
                value = fn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - the crash is what the trail is asked about
                return {"value": None, "raised": True, "entered": trail.crash}
        return {"value": self.sendable(value), "raised": False, "entered": trail.of(value)}

    def call_with_grad(self, obj, fn, args, kwargs, grad, watched=False):
        """Run fn with gradients on, backpropagate the judge's upstream gradient: the reply with its
        grads, and what was measured of the call (forward only) if it is `watched`."""
        args = tuple(arg.detach().clone().requires_grad_(True) if index in grad["wrt"] else arg
                     for index, arg in enumerate(args))
        params = dict(obj.named_parameters()) if isinstance(obj, torch.nn.Module) else {}
        for p in params.values():
            p.grad = None
        trail = gradient_trail.Trail(self.path) if grad.get("trail") else None
        with trail or contextlib.nullcontext():
            value, measured = _watch(obj, fn, args, kwargs, watched, self.threads)
            outputs = value if isinstance(value, tuple) else (value,)
            # an output outside autograd's record (detached, made under no_grad) passes no gradient back:
            # the inputs it alone depends on get None, which the judge reports as "no gradient reached"
            pairs = [(out, up) for out, up in zip(outputs, grad["upstream"])
                     if up is not None and isinstance(out, torch.Tensor) and out.requires_grad]
            if trail:
                trail.watch([out for out, _ in pairs])
            if pairs:  # sum(out * upstream) has exactly the upstream gradient, and avoids backward(grad_tensors),
                # whose first use imports sympy (half a second per child)
                sum((out * up).sum() for out, up in pairs).backward()
        reply = {
            "value": self.sendable(value),
            "grads": [args[index].grad for index in grad["wrt"]],
            "param_grads": {name: p.grad for name, p in params.items()},
        }
        if trail:  # where the first inf or NaN of the backward pass was made (grader.sandbox.gradient_trail)
            reply["entered"] = trail.first
        return reply, measured

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
        if isinstance(error, PermissionError) and error.errno == errno.EPERM and "in the grader" not in message:
            message += (" (not allowed in the grader: new processes, signals to others, shared memory, sockets,"
                        " changing files' modes, owners, times or links)")
        elif isinstance(error, RuntimeError) and "can't start new thread" in message:
            message += f" (the grader allows {THREAD_CAP} threads per submission)"
        kind = type(error).__name__
        if kind == UNREAD:  # a class of the student's named like the child's own (round 22's a14)
            kind = f"{kind} (a class of your code's)"
        # the built-in exceptions it is one of: a class of the student's own (`CacheFullError(ValueError)`)
        # is the ValueError a docstring asks for (round 29)
        kinds = [base.__name__ for base in type(error).__mro__ if base.__module__ == "builtins"]
        return {"type": kind, "message": message, "frames": frames, "kinds": kinds[:8]}


def serve(sock, session, key=None):
    """Answer the judge's requests until it hangs up, each reply signed with `key` (the judge's, for this
    child: bytes the student's code writes on the socket are no reply)."""
    while True:
        threads, cuda = _threads(), _cuda_initialized()
        try:
            request = wire.receive(sock, from_judge=True)
            session.received(threads, cuda)
        except (EOFError, OSError, wire.WireError):
            return  # the judge has gone, or what it sends can no longer be read
        except Exception as error:  # noqa: BLE001 - read whole, but its values cannot be made here (CUDA
            request, frames = None, wire.encode({"error": _unread(error)})  # that does not start in this child)
        if request is not None:
            frames = _answer(session, request)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # the student's code may have replaced them
                stream.flush()
        try:
            wire.send_frames(sock, frames, key)
        except (BrokenPipeError, ConnectionResetError):
            return  # the judge hung up on this child (it stopped reading it): nobody to answer


def _answer(session, request):
    """The encoded reply to a request: its value, or whatever the student's code raised."""
    try:
        return session.answer(request)
    except BaseException as error:  # the student's code may raise anything, SystemExit included
        try:
            return wire.encode({"error": session.describe(error)})
        except BaseException:  # an exception whose message cannot even be read
            return wire.encode({"error": {"type": type(error).__name__, "message": "", "frames": []}})


def _unread(error):
    """The reply's error for a request this child could not even read (judge.InputsUnread)."""
    return {"type": UNREAD, "message": f"{type(error).__name__}: {error}"[:2000], "frames": []}


UNREAD = "InputsUnread"  # the error type of `_unread`


def child_main(fd, log_path, memory_limit=None, plan=None, scratch=None, readable=(), scratch_bytes=None):
    """Entry point of a fresh child, forked or spawned: confine it, tell the judge how (the first
    message, sent before any student code runs), then serve on socket fd."""
    try:
        if os.getpgrp() != os.getpid():
            os.setsid()  # its own process group, which the judge kills as a whole
        sys.dont_write_bytecode = True
        _redirect_output(log_path, keep=fd)
        # CUDA's allowance where the plan lets the child use NVIDIA devices; the reference's timing
        # child (no plan: it never holds student code) gets it wherever there are some
        gpu = containment.uses_nvidia(plan.devices if plan is not None else glob.glob("/dev/nvidia*"))
        _steady_allocator()
        _set_limits(memory_limit, gpu)
        layers = containment.confine(plan, scratch, readable, scratch_bytes or containment.SCRATCH_BYTES)
        layers += confine(gpu=gpu)
        _own_environment()
        torch.set_num_threads(1)
        sock = socket.socket(fileno=fd)
        key = bytes.fromhex(wire.receive(sock, from_judge=True)["key"])  # signs every reply (wire.receive)
        _refuse_in_python()
        wire.send(sock, {"containment": containment.level_of(layers), "layers": containment.held(layers)}, key)
        serve(sock, Session(memory_limit), key)
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


def _own_environment():
    """The grader's environment, which the fork gave this child, cut down to KEPT_ENVIRONMENT: a
    secret of the machine's (a token, a course's credentials) must not reach the student's code,
    which can print it into its own report (round 22's a9). os.environ's removals reach the C
    library's copy too (unsetenv)."""
    for name in list(os.environ):
        if name not in KEPT_ENVIRONMENT:
            del os.environ[name]


# what a child keeps of the grader's environment, by name (never a family of names: a token lives
# in NVIDIA_API_KEY or TORCH_HUB_TOKEN as well, round 24's a10): where it is and its language, its
# scratch folder (HOME, TMPDIR: containment.confine), and the settings that torch, its thread pools
# and CUDA read as they start in the child (CUDA starts there, lazily) or as they run
KEPT_ENVIRONMENT = frozenset({
    "PATH", "HOME", "TMPDIR", "LANG", "LANGUAGE", "TZ", "TERM", "LD_LIBRARY_PATH",
    "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY", "LC_MESSAGES", "LC_PAPER",
    "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE", "LC_MEASUREMENT", "LC_IDENTIFICATION",
    "OMP_NUM_THREADS", "OMP_DYNAMIC", "OMP_PROC_BIND", "OMP_PLACES", "OMP_WAIT_POLICY", "OMP_STACKSIZE",
    "MKL_NUM_THREADS", "MKL_DYNAMIC", "MKL_THREADING_LAYER", "MKL_SERVICE_FORCE_INTEL", "OPENBLAS_NUM_THREADS",
    "KMP_AFFINITY", "KMP_BLOCKTIME", "KMP_DUPLICATE_LIB_OK",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING", "CUDA_LAUNCH_BLOCKING", "CUDA_CACHE_PATH",
    "CUDA_CACHE_DISABLE", "CUDA_CACHE_MAXSIZE", "CUDA_HOME", "CUDA_PATH", "CUBLAS_WORKSPACE_CONFIG",
    "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "NVIDIA_TF32_OVERRIDE",
    "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NO_CUDA_MEMORY_CACHING", "PYTORCH_NVML_BASED_CUDA_CHECK",
    "TORCH_SHOW_CPP_STACKTRACES", "TORCH_CPP_LOG_LEVEL", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE",
})


def _steady_allocator():
    """glibc's allocator told to keep what a call frees for the next (Linux): by default a tensor
    of a few MiB is mapped afresh and faulted in page by page on every call, or not, as its
    thresholds move with the process's history. Then a call's time, and what a request costs
    around it, would depend on what the child served before, not on the code called."""
    if _LIBC is None:
        return
    for option, value in ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 1 << 30), (M_TOP_PAD, 16 << 20)):
        _LIBC.mallopt(option, value)


def warm_heap(nbytes):
    """Touch `nbytes` of heap now, and free it into the heap, which keeps it faulted in (see
    `_steady_allocator`): a fresh process faults its heap in as it first grows, so that its first
    calls take several times what the same calls take later. Asked of a child before it is timed."""
    blocks = [torch.ones(nbytes // 8 // 4, dtype=torch.float32) for _ in range(8)]  # each under mmap's threshold
    del blocks


def warm_kernels(session, request):
    """The "warm" op, served only before a file is loaded: torch's usual CPU kernels for a block loop
    of attention (products, exponentials, maxima, masks, sums; float32 and float64) run once, so that
    the pages of their code are in this process before the judge reads how much memory it holds, and
    the free heap's pages are given back, so that the memory a measured call then gains is the
    student's code's own, all of it counted (Student.run_measured). From then on a block of 64 KiB
    or more is mapped on its own and given back when freed: in the heap of `_steady_allocator`, a loop
    that keeps a small tensor after each large one made its peak grow by what it had freed, memory it
    never held (round 14's wrong_query_blocks_only read as the whole matrix one run in two)."""
    if session.guard is not None:
        raise RuntimeError("the warm op comes before any file is loaded")
    for dtype in (torch.float32, torch.float64):
        q, k, v = (torch.randn(2, 256, 12, dtype=dtype) for _ in range(3))  # small: the heap grows by little
        for block in (16, 64):
            s = q @ k[:, :block].transpose(-2, -1) / 3.0  # (2, 256, block)
            m = torch.maximum(torch.full_like(s[..., :1], float("-inf")), s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m.masked_fill(m == float("-inf"), 0.0)).masked_fill(s > 100, 0.0)
            out = torch.einsum("bqk,bkd->bqd", p, v[:, :block]) + torch.bmm(p, v[:, :block])
            out = out / torch.where(p.sum(-1, keepdim=True) == 0, 1.0, p.sum(-1, keepdim=True))
            torch.cat([out, q.new_zeros(2, 1, 12)], dim=1).to(torch.float32)
    if _LIBC is not None:  # the free heap it inherited (the judge's, at the fork) given back: reused, it would
        _LIBC.malloc_trim(0)  # hold the student's memory in pages already counted before the call
        for option, value in ((M_MMAP_THRESHOLD, 64 << 10), (M_TRIM_THRESHOLD, 128 << 10), (M_TOP_PAD, 0)):
            _LIBC.mallopt(option, value)
    return {"value": None}


OPS["warm"] = warm_kernels


def cuda_check(session, request):
    """The "cuda" op, served only before a file is loaded: a small product on the GPU and back, this
    child's first use of CUDA, so that the judge learns before grading whether CUDA starts in a child
    confined as a student's is (runner.usable_devices); its value is the device's name."""
    if session.guard is not None:
        raise RuntimeError("the cuda op comes before any file is loaded")
    x = torch.arange(6.0, device="cuda").reshape(2, 3)
    (x @ x.T).softmax(dim=-1).cpu()
    return {"value": torch.cuda.get_device_name(x.device)}


OPS["cuda"] = cuda_check


# -- confinement ----------------------------------------------------------------------------------


def _redirect_output(log_path, keep):
    """stdout and stderr into the log file, stdin from /dev/null; every other inherited file
    descriptor (the judge's terminal among them) closed, except the socket `keep`. The log is
    appended to: a restarted child keeps what the last one printed, and a seek moves no write back
    over what the judge read already (round 30's a08)."""
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
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


def _capped_text(fd):
    """A text stream onto `fd` whose writes stop silently at the file size limit: printing past
    OUTPUT_LIMIT is cut off, not an error in the student's code. The descriptor is held in a
    closure, not an attribute that code could point at the judge's socket (`sys.stdout.buffer.raw`)."""

    class CappedFile(io.RawIOBase):
        def writable(self):
            return True

        def write(self, data):
            try:
                return os.write(fd, data)
            except OSError as error:
                if error.errno != errno.EFBIG:
                    raise
                return len(data)

    return io.TextIOWrapper(io.BufferedWriter(CappedFile()), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)


def _set_limits(memory_limit, gpu=False):
    """No core files, OUTPUT_LIMIT bytes per file written, OPEN_FILES descriptors, and memory_limit
    bytes of memory on top of what the child holds at its start: RLIMIT_DATA (private writable
    memory, which tensors and Python objects use) and, without a GPU, RLIMIT_AS too, with room for
    every thread's stack and malloc arena, so that the kernel memory a mapping costs (its page
    tables: a huge read-only mapping touched sparsely) is bounded as well. CUDA reserves far more
    address space than it uses, so a GPU child has RLIMIT_DATA only."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the size limit a write fails, it does not kill
    _lower(resource.RLIMIT_CORE, 0)
    _lower(resource.RLIMIT_FSIZE, OUTPUT_LIMIT)
    _lower(resource.RLIMIT_NOFILE, OPEN_FILES)
    if memory_limit and sys.platform == "linux":  # elsewhere RLIMIT_DATA does not bound mmap
        _lower(resource.RLIMIT_DATA, _status_bytes("VmData") + memory_limit)
        if not gpu:
            _lower(resource.RLIMIT_AS, _status_bytes("VmSize") + memory_limit + THREAD_CAP * PER_THREAD + (1 << 30))


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


def confine(gpu=False):
    """On Linux, before any student code: no new privileges, a thread cap of its own (a user
    namespace, in which RLIMIT_NPROC counts this child's tasks only), no capabilities, and the
    seccomp allowlist of `_seccomp_program` (`gpu`: with the allowance CUDA's driver needs).
    Returns its `Layer`s: the thread cap and the filter, each as it went."""
    cap_layer, filter_layer = f"thread cap {THREAD_CAP}", "seccomp allowlist"
    if _LIBC is None:
        return [containment.Layer(cap_layer, False), containment.Layer(filter_layer, False)]
    libc = _LIBC
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    arch = _ARCHES.get(platform.machine())
    root = os.geteuid() == 0
    # a namespace of its own (single-threaded still): its tasks are counted apart from the user's
    # other processes, so that a full cap here costs no classmate a thread
    own_count = libc.unshare(CLONE_NEWUSER) == 0
    if root or own_count:  # every capability there, none outside: drop them all
        _drop_capabilities(libc, arch)
    # RLIMIT_NPROC never binds uid 0 (a root child that could not drop its uid)
    _lower(resource.RLIMIT_NPROC, THREAD_CAP if own_count else _user_tasks() + THREAD_CAP)
    layers = [containment.Layer(cap_layer, own_count and not root)]
    if arch is not None:
        program = _seccomp_program(arch, os.getpid(), gpu)
        filters = (_SockFilter * len(program))(*(_SockFilter(*op) for op in program))
        fprog = _SockFprog(len(program), filters)
        held = libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) == 0
        return layers + [containment.Layer(filter_layer, held)]
    return layers + [containment.Layer(filter_layer, False)]


def _drop_capabilities(libc, arch):
    cap = 0
    while libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    if arch is not None:
        header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
        libc.syscall(arch.number("capset"), header, (ctypes.c_uint32 * 6)())  # effective, permitted, inheritable: none


def _user_tasks():
    """Processes and threads of this user now, for a process limit that leaves room for a few."""
    uid, count = os.getuid(), 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid == uid:
                count += len(os.listdir(f"/proc/{pid}/task"))
    return count


def _refuse_in_python():
    """The calls the filter refuses, refused first where Python makes them, with a message that
    names them ("not allowed in the grader: chmod"); ctypes and C code get the kernel's EPERM."""
    def hook(event, args):
        name = _REFUSED_EVENTS.get(event)
        if name is not None:
            raise PermissionError(errno.EPERM, f"not allowed in the grader: {name}")

    sys.addaudithook(hook)


# tasks per child, its main thread included: torch's own pools fit under it (a graded solution's child
# runs one task, torch at set_num_threads(n) runs n; docs/security.md has the measures)
THREAD_CAP = 64
PER_THREAD = 72 << 20  # the address space a thread may reserve: its stack (8 MiB) and a malloc arena (64 MiB)
OPEN_FILES = 1024  # descriptors a child may hold (each open file is kernel memory too)
_REFUSED_EVENTS = {  # Python's audit events of calls the filter refuses -> the name the student reads
    # (os.mkfifo and os.mknod raise none: they get the kernel's EPERM)
    "os.chmod": "chmod", "os.chown": "chown", "os.utime": "utime", "os.setxattr": "setxattr",
    "os.removexattr": "removexattr", "os.link": "link", "os.symlink": "symlink", "os.rename": "rename",
    "os.fork": "fork", "os.forkpty": "forkpty", "os.posix_spawn": "posix_spawn", "os.spawn": "spawn",
    "os.exec": "exec", "os.system": "os.system", "subprocess.Popen": "subprocess", "socket.__new__": "socket",
}
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None  # loaded once, in the judge
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # mallopt's options
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
CLONE_THREAD, CLONE_NEWUSER = 0x10000, 0x10000000
CLONE_NEW_ANY = 0x7E020000  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET


class _Arch:
    """An architecture: its audit number, and the column of `_NUMBERS` that holds its calls."""

    def __init__(self, audit, column):
        self.audit, self.column = audit, column

    def number(self, name):
        """The call's number here, None where this architecture has no such call (aarch64 has
        only the *at forms of the file calls)."""
        return _NUMBERS[name][self.column]


_ARCHES = {"x86_64": _Arch(0xC000003E, 0), "aarch64": _Arch(0xC00000B7, 1)}
# name -> (x86_64, aarch64): every call the allowlist names (from the kernel's unistd headers)
_NUMBERS = {
    "read": (0, 63), "write": (1, 64), "openat": (257, 56), "open": (2, None), "close": (3, 57),
    "lseek": (8, 62), "newfstatat": (262, 79), "fstat": (5, 80), "stat": (4, None), "lstat": (6, None),
    "getdents64": (217, 61), "getcwd": (79, 17), "readlinkat": (267, 78), "readlink": (89, None),
    "mkdir": (83, None), "mkdirat": (258, 34), "unlink": (87, None), "unlinkat": (263, 35), "rmdir": (84, None),
    "faccessat": (269, 48), "faccessat2": (439, 439), "access": (21, None),
    "brk": (12, 214), "mmap": (9, 222), "munmap": (11, 215), "mremap": (25, 216), "mprotect": (10, 226),
    "madvise": (28, 233), "clone": (56, 220), "clone3": (435, 435), "exit": (60, 93), "exit_group": (231, 94),
    "set_robust_list": (273, 99), "rseq": (334, 293), "futex": (202, 98), "gettid": (186, 178),
    "getpid": (39, 172), "sched_getaffinity": (204, 123), "sched_yield": (24, 124),
    "rt_sigprocmask": (14, 135), "rt_sigaction": (13, 134), "rt_sigreturn": (15, 139), "kill": (62, 129),
    "tgkill": (234, 131), "rt_sigqueueinfo": (129, 138), "rt_tgsigqueueinfo": (297, 240),
    "clock_gettime": (228, 113), "clock_nanosleep": (230, 115), "getrusage": (98, 165),
    "getrandom": (318, 278), "prlimit64": (302, 261), "fcntl": (72, 25), "ioctl": (16, 29), "prctl": (157, 167),
    "recvfrom": (45, 207), "sendto": (44, 206), "getsockname": (51, 204), "getsockopt": (55, 209),
    "memfd_create": (319, 279), "ftruncate": (77, 46), "shmget": (29, 194), "shmat": (30, 196), "shmdt": (67, 197), "shmctl": (31, 195),
    "mlock": (149, 228), "munlock": (150, 229), "eventfd2": (290, 19), "pipe2": (293, 59), "poll": (7, None),
    "ppoll": (271, 73), "epoll_create1": (291, 20), "epoll_ctl": (233, 21), "epoll_wait": (232, None),
    "epoll_pwait": (281, 22), "get_mempolicy": (239, 236), "mbind": (237, 235), "uname": (63, 160),
    "sysinfo": (99, 179), "sched_setaffinity": (203, 122), "capset": (126, 91), "getppid": (110, 173),
    "getuid": (102, 174), "geteuid": (107, 175), "getgid": (104, 176), "getegid": (108, 177),
}
# The calls a confined child may make whatever their arguments, by what needs them (docs/security.md
# says why each is there). Recorded, not recalled: `strace -f` of confined children grading the
# solutions (with and without the performance tiers), the honest corpus, the sandbox's and the
# suites' tests and tests/sandbox/probes/everyday.py, on CPU (benchmarks/child_syscalls.py).
# x86-64's older forms of the file calls stand beside the *at forms aarch64's C library uses.
_ALLOWED = {
    "files (Landlock and the private root decide which)": (
        "read", "write", "openat", "open", "close", "lseek", "newfstatat", "fstat", "stat", "lstat",
        "getdents64", "getcwd", "readlinkat", "readlink", "faccessat", "faccessat2", "access"),
    "its scratch folder (temporary files and folders)": ("mkdir", "mkdirat", "unlink", "unlinkat", "rmdir"),
    "memory (private mappings; RLIMIT_DATA bounds them)": ("brk", "munmap", "mremap", "mprotect", "madvise"),
    "threads (within the thread cap)": (
        "exit", "set_robust_list", "rseq", "futex", "gettid", "getpid", "sched_getaffinity", "sched_yield"),
    "signals to itself, clocks, randomness, limits read": (
        "exit_group", "rt_sigprocmask", "rt_sigaction", "rt_sigreturn", "clock_gettime", "clock_nanosleep",
        "getrusage", "getrandom"),
    "the judge's socket, inherited (no socket can be made)": ("recvfrom", "sendto", "getsockname", "getsockopt"),
    "who and where it is (these cannot fail in C: a refusal would read as a wrong value)": (
        "getppid", "getuid", "geteuid", "getgid", "getegid", "uname"),
}
# What CUDA's driver and runtime need beyond the CPU's list, allowed only on a machine with NVIDIA
# devices: not recorded yet (benchmarks/gpu_check.py on an H100 found CUDA not starting in a confined
# child; docs/security.md says what changed since and what a GPU run must still show). ftruncate
# sizes a memfd_create's file, which the driver maps shared.
_CUDA = ("memfd_create", "ftruncate", "shmget", "shmat", "shmdt", "shmctl", "mlock", "munlock", "eventfd2", "pipe2",
         "poll", "ppoll", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait", "get_mempolicy", "mbind",
         "sysinfo", "sched_setaffinity")
MAP_SHARED = 0x01  # MAP_SHARED_VALIDATE (0x03) has the MAP_SHARED bit too
MAP_GROWSDOWN = 0x0100
# fcntl: a descriptor's flags and close-on-exec duplicates (not F_SETOWN/F_SETSIG: signals to others;
# not F_SETPIPE_SZ: a pipe's buffer beyond its default size; not leases, notifications or locks)
_FCNTL = (1, 2, 3, 4, 1030)  # F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC
# ioctl on CPU: whether a descriptor is a terminal and its size (the log file is not one), close-on-exec,
# blocking (not TIOCSTI, nor any device's requests)
_IOCTL = (0x5401, 0x5413, 0x5451, 0x5450, 0x5421)  # TCGETS, TIOCGWINSZ, FIOCLEX, FIONCLEX, FIONBIO
_PRCTL = (15, 16)  # PR_SET_NAME, PR_GET_NAME: a thread's name

# classic BPF, as seccomp runs it on struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000


def _errno(code):
    return 0x00050000 | code


_PASS, _DENY = (_RET, 0, 0, _ALLOW), (_RET, 0, 0, _errno(errno.EPERM))


def _arg(index, high=False):
    return 16 + 8 * index + 4 * high  # offset of the low (or high) 32 bits of args[index]


def _seccomp_program(arch, pid, gpu=False):
    """The filter, as (code, jt, jf, k) tuples: a default-deny allowlist of `_rules`' calls;
    every other call, and every call of another ABI (32-bit x86, x32), answers EPERM, never a kill."""
    program = [(_LD, 0, 0, 4), (_JEQ, 1, 0, arch.audit), _DENY, (_LD, 0, 0, 0)]
    if arch is _ARCHES["x86_64"]:
        program += [(_JGE, 0, 1, 0x40000000), _DENY]  # the x32 ABI
    for name, body in _rules(pid, gpu):
        if arch.number(name) is not None:
            program += [(_JEQ, 0, len(body), arch.number(name)), *body]
    return program + [_DENY]


def _rules(pid, gpu=False):
    """(call, the filter's code once the call is known) for every call the filter lets through,
    as they come or for some arguments. Allowed as they come: `_ALLOWED` (and `_CUDA` with `gpu`).
    For some arguments only: clone for a thread (CLONE_THREAD, no CLONE_NEW*),
    kill/tgkill/rt_sigqueueinfo/rt_tgsigqueueinfo aimed at itself, mmap of private memory (shared
    too with `gpu`), prlimit64 that reads, and the `_FCNTL`, `_IOCTL` (any with `gpu`) and
    `_PRCTL` requests. clone3 answers ENOSYS, so that the C library falls back to clone, whose
    flags a filter can read."""

    def only(index, values):
        body = [(_LD, 0, 0, _arg(index))]
        body += [(_JEQ, len(values) - i, 0, value & 0xFFFFFFFF) for i, value in enumerate(values)]
        return body + [_DENY, _PASS]

    rules = [
        ("clone3", [(_RET, 0, 0, _errno(errno.ENOSYS))]),
        ("clone", [(_LD, 0, 0, _arg(0)), (_JSET, 0, 2, CLONE_THREAD), (_JSET, 1, 0, CLONE_NEW_ANY), _PASS, _DENY]),
        # itself, or its own process group by its id (not 0: in a PID namespace a process outside it
        # reads as pid 0, and kill(0) must not look like reaching it)
        ("kill", only(0, [pid, -pid])),
        *((name, only(0, [pid])) for name in ("tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo")),
        ("prlimit64", [(_LD, 0, 0, _arg(2)), (_JEQ, 1, 0, 0), _DENY,  # reading a limit (new_limit == NULL)
                       (_LD, 0, 0, _arg(2, high=True)), (_JEQ, 1, 0, 0), _DENY, _PASS]),
        ("fcntl", only(1, _FCNTL)),
        ("prctl", only(0, _PRCTL)),
    ]
    # no MAP_GROWSDOWN: a "stack" mapping, which RLIMIT_DATA does not count; and without a GPU no
    # shared mapping either (one of /dev/zero or of a file is shared memory too)
    refused = MAP_GROWSDOWN | (0 if gpu else MAP_SHARED)
    rules.append(("mmap", [(_LD, 0, 0, _arg(3)), (_JSET, 0, 1, refused), _DENY, _PASS]))
    if not gpu:
        rules.append(("ioctl", only(1, _IOCTL)))
    plain = [name for names in _ALLOWED.values() for name in names]
    plain += [*_CUDA, "ioctl"] if gpu else []
    return rules + [(name, [_PASS]) for name in plain]


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


_CLASS_KEYS = frozenset({"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__firstlineno__",
                         "__static_attributes__"})  # what every class body holds


def _eager_compile(model=None, **options):
    """torch.compile in the child: the function itself, run as it is written. Compiled, it was traced through
    the grader's own modes and probes, and an honest softmax gave wrong values (round 83's a08: 32/41); the
    grader judges what the code computes, and its speed against the reference's, uncompiled alike."""
    return model if model is not None else (lambda function: function)


def _refuse_tensor_subclasses(path):
    """A tensor subclass whose methods are the student's runs them wherever torch or the grader handle
    one of its tensors: in the probe's own bookkeeping (round 31's a15 overrode `untyped_storage`, a17
    hid exercise 10's whole-matrix attention there, a18 reported another tensor's storage). A class
    that overrides anything of torch.Tensor's is refused where the student's file `path` makes it, or
    where one of its overriding methods is the student's code; torch's own, made where torch's modules
    are first imported, are not."""
    tensor = torch.Tensor
    theirs = frozenset(dir(tensor)) | {"__torch_function__", "__torch_dispatch__"}

    def students(value):
        for inner in (value, getattr(value, "__func__", None), getattr(value, "fget", None),
                      getattr(value, "func", None)):  # a method, a class or static method, a property, a partial
            code = getattr(inner, "__code__", None)
            if code is not None and code.co_filename == path:
                return True
        return False

    def refuse(cls, **kwargs):
        overrides = sorted(name for name in vars(cls) if name in theirs and name not in _CLASS_KEYS)
        if overrides and (sys._getframe(1).f_code.co_filename == path
                          or any(students(vars(cls)[name]) for name in overrides)):
            raise TypeError(f"{cls.__name__} changes torch's tensors ({', '.join(overrides[:3])}): a subclass of "
                            "torch.Tensor with methods of its own is not allowed in the grader, whose checks handle "
                            "your tensors; attention code needs none")
        super(tensor, cls).__init_subclass__(**kwargs)

    tensor.__init_subclass__ = classmethod(refuse)


def _watch(obj, fn, args, kwargs, watched, threads):
    """fn(*args, **kwargs), and what the grader measured of the call if it is `watched` (else None); obj:
    the object whose method fn is, or fn itself; threads: the most threads the process may have meanwhile."""
    if not watched:
        return fn(*args, **kwargs), None
    return WATCH(fn, args, kwargs, obj if obj is not fn else None, threads)


def _shared(value, args):
    """The positions of the tensor arguments whose memory a tensor of `value` shares: the argument itself
    returned, or a view of it (a docstring that asks for a new tensor rules both out)."""
    try:
        mine = {t.untyped_storage().data_ptr() for t in leaves(value)
                if type(t) is torch.Tensor and t.layout == torch.strided and t.numel()}
        return [i for i, arg in enumerate(args) if type(arg) is torch.Tensor and arg.layout == torch.strided
                and arg.numel() and arg.untyped_storage().data_ptr() in mine]
    except Exception:  # noqa: BLE001 - a tensor without storage (meta, a subclass): nothing shared to tell
        return []


def _plain(value):
    """An argument as a reply carries it back: tensors and plain values; an object of theirs as None."""
    return value if value is None or type(value) in (bool, int, float, str) or type(value) is torch.Tensor else None


if __name__ == "__main__":
    main(sys.argv[1:])

