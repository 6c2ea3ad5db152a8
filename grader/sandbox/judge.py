"""The judge's side of the sandbox: start children, send them calls, survive whatever they do.

Student code runs only in a child process (see `grader.sandbox.child`). On Linux every child is
forked from a "zygote": a copy of this process made at start-up, after torch is imported but before
any expected value exists, so a child costs milliseconds instead of a second of `import torch`, and
holds no secret. Elsewhere each child is a fresh interpreter, started in isolated mode (`python -I`: no
current folder, user site-packages or PYTHON* variables).

While a launcher runs, this process is not "dumpable" (Linux): a child of the same user can no
longer open its /proc files (its memory, its environment, its terminal) or trace it. The zygote and
its children live in a PID namespace of their own where the kernel allows one
(`containment.namespaces`), so a child sees no process outside it; on Linux no path reaches a child
on a command line (a forked child's is the judge's; paths travel on the sockets). Everything a
child says is data: errors are rebuilt here from plain strings, cleaned of control characters.
"""

import array
import codecs
import contextlib
import ctypes
import io
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import tokenize
import weakref
from typing import NamedTuple

from grader.characters import REPLACEMENT, UNSAFE
from grader.sandbox import child, containment, files, rules, wire

PR_GET_DUMPABLE, PR_SET_DUMPABLE = 3, 4


def printable(text, limit=2000, newlines=False):
    """A student's text as the report may show it: no terminal escapes, carriage returns, line or
    paragraph separators (U+2028, U+2029: round 24), bidirectional marks or overrides (which could draw
    a fake "passed" line) or lone surrogates (which no report writer can encode), newlines only if asked."""
    text = UNSAFE.sub(REPLACEMENT, str(text)[:limit])
    return text if newlines else text.replace("\n", " ")


class StudentError(Exception):
    """The student's code raised; carries what the student needs to find the line."""

    def __init__(self, type, message, frames, kinds=()):
        super().__init__(f"{type}: {message}")
        self.type, self.message, self.frames = type, message, frames
        self.kinds = (type, *kinds)  # its type, and the built-in exceptions it is one of

    def is_a(self, kind):
        """Whether the student's exception is a `kind` (a built-in exception's name), as `except kind` would
        say: its own class or one it derives from."""
        return kind in self.kinds

    @staticmethod
    def from_wire(error):
        """The exception for an error the child sent, whatever shape it has."""
        error = error if isinstance(error, dict) else {}
        frames = error.get("frames")
        fields = {
            "type": printable(error.get("type", "Exception"), 200),
            "message": printable(error.get("message", "")),
            "frames": [printable(frame, 500) for frame in frames[-5:]] if isinstance(frames, list) else [],
        }
        kinds = error.get("kinds")
        kinds = [printable(kind, 100) for kind in kinds[:8]] if isinstance(kinds, list) else []
        if fields["type"] == "ForbiddenCall":
            return ForbiddenCall(rule=printable(error.get("rule", "")), advice=printable(error.get("advice", "")),
                                 **fields)
        if fields["type"] == "MemoryLimit":
            return MemoryLimit(**fields)
        if fields["type"] == child.UNREAD:
            return InputsUnread(**fields)
        return StudentError(**fields, kinds=kinds)

    @property
    def location(self):
        """Where in the student's file: "exercise5_softmax.py, line 12, in softmax" (or "")."""
        return self.frames[-1].split(":")[0] if self.frames else ""

    @property
    def caller(self):
        """Where the student's code called the function that raised, when that is another function of
        theirs (a given helper fed wrong shapes): "line 80, in forward" (or "")."""
        places = [frame.split(":")[0] for frame in self.frames]
        function = places[-1].rpartition(", in ")[2] if places else ""
        callers = [place for place in places[:-1] if place.rpartition(", in ")[2] != function]
        found = re.search(r"line \d+, in .*$", callers[-1]) if callers else None
        return found.group(0) if found else ""

    @property
    def summary(self):
        text = f"{self.type}: {self.message}" if self.message else self.type
        called = f", called from {self.caller}" if self.caller else ""
        return f"your code raised {text}" + (f" ({self.location}{called})" if self.frames else "")


class ForbiddenCall(StudentError):
    """The student's code used a shortcut the exercise forbids (see `grader.sandbox.rules`): `rule` names it."""

    def __init__(self, type, message, frames, rule, advice):
        super().__init__(type, message, frames)
        self.rule, self.advice = rule, advice

    @property
    def summary(self):
        where = f", {self.location}" if self.frames else ""
        return f"forbidden: {self.rule} ({self.message}{where}) — {self.advice}"


class InputsUnread(StudentError):
    """The child says it could not read a request (its tensors could not be put on the device asked
    for: CUDA that does not start there). Only the child says so, and the student's code runs in it
    and may write on its socket (round 24's a7): never taken as the grader's fault."""

    @property
    def summary(self):
        return (f"your code's process could not take this test's inputs ({self.message}), so the test did not "
                "run: on a GPU, does your code change CUDA's settings, or hold the GPU's memory, when it is imported?")


class MemoryLimit(StudentError):
    """The student's code asked for more memory than the limit allows."""

    @property
    def summary(self):
        where = f" ({self.location})" if self.frames else ""
        return (f"memory limit: {self.message}{where}; is a tensor far larger than it needs to be, "
                "or are tensors kept in a list that grows without end?")


class Deadline(NamedTuple):
    """When a child's answers must have arrived (`at`, time.monotonic()), and the limit that sets
    it in the report's words: an exercise's own, or (`whole_run`) the whole run's."""

    at: float
    limit: str
    whole_run: bool = False

    @classmethod
    def whole(cls, seconds):
        """The whole run's deadline, `seconds` from now."""
        return cls(time.monotonic() + seconds, f"the time limit of the whole run (--total-timeout {seconds:g} s)", True)

    @classmethod
    def earliest(cls, seconds, run=None):
        """An exercise's deadline, `seconds` from now, or the whole run's `run` if that comes first."""
        own = cls(time.monotonic() + seconds, f"the exercise's time limit ({seconds:g} s)")
        return run if run is not None and run.at < own.at else own


class ChildTimeout(Exception):
    """The time limit ran out: during this call, or (`earlier`) before it began."""

    def __init__(self, earlier=False):
        super().__init__("time limit used up before this call" if earlier else "time limit")
        self.earlier = earlier


class ChildCrashed(Exception):
    """The student's process ended in the middle of a call."""


class SubmissionRefused(ChildCrashed):
    """The student's file cannot be graded as it is (a link, a pipe, far too large)."""


def python_text(data):
    """A source file's bytes as the text Python itself would read: in the encoding its BOM or PEP 263
    coding line names (a Windows editor's BOM, a latin-1 file that says so), else UTF-8. Raises
    UnicodeDecodeError where Python could not read it either, UnicodeError where the coding line
    names a codec that makes no text (hex, rot13, zlib: Python's "encoding problem")."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except (SyntaxError, LookupError):  # a coding line naming no codec, or a BOM beside another one
        encoding = "utf-8"
    if not codecs.lookup(encoding)._is_text_encoding:  # round 23's a8: "grader error" before
        raise UnicodeError(f"its coding line names {encoding}, which is not a text encoding")
    return data.decode(encoding)


def _not_text(name, data, error):
    """Why a file whose bytes do not decode cannot be graded, in one line."""
    line = data.count(b"\n", 0, error.start) + 1
    where = f"it is not {error.encoding} text (byte 0x{data[error.start]:02x} on line {line})"
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark: UTF-8 whatever its coding line says (round 30's a15)
        return f"cannot grade {name}: {where}, and it starts with UTF-8's byte-order mark: save it as UTF-8"
    return (f"cannot grade {name}: {where}: save it as UTF-8, or name its encoding in a coding line "
            "(# -*- coding: latin-1 -*-)")


def load_request(path, module, forbidden=(), ctypes=False, watched=()):
    """The request that loads a student's file in a child as `module`: its source, read here by the
    judge (files.read_submission), so that the child needs no access to the student's folder, and
    the rule ids its exercise forbids beyond every exercise's rules (grader.sandbox.rules). `ctypes`:
    the file may use ctypes (only the kit's own probes of the kernel's layer, which must get past
    Python's; a student's file never). `watched`: the names whose every call the child measures
    (`child.Session.call`)."""
    try:
        data = files.read_submission(path)
    except OSError as error:
        raise SubmissionRefused(f"cannot grade {os.path.basename(path)}: {error.strerror or error}") from None
    try:
        source = python_text(data)
    except UnicodeDecodeError as error:
        raise SubmissionRefused(_not_text(os.path.basename(path), data, error)) from None
    except UnicodeError as error:  # a coding line Python refuses too ("undefined", a bytes-to-bytes codec)
        raise SubmissionRefused(f"cannot grade {os.path.basename(path)}: {error}: save it as UTF-8 and remove "
                                "its coding line") from None
    return {"op": "load", "source": source, "path": str(path), "module": module, "forbidden": list(forbidden),
            "ctypes": bool(ctypes), "watched": list(watched)}


class Launcher:
    """Makes children: forked from a zygote on Linux, fresh interpreters elsewhere.

    Every child is confined (`containment`) to the plan made here, with a scratch folder of its
    own under one folder that `close` removes; `containment` is the weakest level any child
    reported (None until one did)."""

    def __init__(self, forbidden=()):
        self.control = None  # socket to the zygote, when there is one
        self.popens = {}  # pid -> Popen, for spawned children
        self.was_dumpable = None  # this process's dumpable flag before start(), to restore
        self.forbidden = tuple(forbidden)
        self.scratch = None  # the folder holding each child's scratch folder
        self.containment = None  # {"level", "layers"} of the least confined child so far
        self.spawned = 0
        self.plan = None  # what the zygote's children are confined to (Linux)
        self.zygote_pids = {}  # a child's pid here -> its pid in the zygote's PID namespace
        self.talking = threading.Lock()  # one exchange with the zygote at a time (children made on another thread)
        self.reserved = None  # the CPU a run's timing has for itself (grader.perf.judge), which no other child gets
        self.cuda = _UNTRIED  # why CUDA does not start in its children, None where it does (`cuda_problem`)

    @property
    def level(self):
        """{"level", "layers"}: what the children reported, or before any did, what the plan promises."""
        if self.containment is not None:
            return self.containment
        kernel = self.plan is not None and containment.expected_level() == containment.KERNEL
        return {"level": containment.KERNEL if kernel else containment.PROCESS, "layers": []}

    def start(self):
        """Fork the zygote now: call before any expected value is computed in this process."""
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="lumen-scratch-")
        if sys.platform != "linux" or self.control is not None:
            return
        plan = self.plan = containment.plan(self.forbidden)
        self.was_dumpable = _set_dumpable(False)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)  # children's pids, as seen here
        pid = os.fork()
        if pid == 0:
            ours.close()
            for other in list(_LIVE):  # another launcher's zygote must see its judge hang up
                if other.control is not None:
                    other.control.close()
            _zygote(theirs, plan)
        theirs.close()
        self.control, self.zygote_pid = ours, pid
        _LIVE.add(self)

    def spawn(self, log_path, memory_limit=None, readable=(), trusted=False, scratch_bytes=None):
        """A new child serving on a socket, allowed memory_limit bytes (None: no limit) beyond
        what it holds at its start, and to read the files `readable`; returns (socket, pid).
        A `trusted` child (the reference's, for timing) never holds student code: it may read the
        kit, and keeps only the process-level limits. `scratch_bytes`: the size of its scratch tmpfs,
        where it has one (None: containment.SCRATCH_BYTES)."""
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="lumen-scratch-")
        with self.talking:
            self.spawned += 1
            scratch = os.path.join(self.scratch, str(self.spawned))
            if self.control is not None:
                self.control.send(("spawn " + json.dumps([log_path, memory_limit, scratch, list(readable), trusted,
                                                          scratch_bytes])).encode())
                theirs, fds, pid = _receive_child(self.control)
                self.zygote_pids[pid] = theirs
                return socket.socket(fileno=fds[0]), pid
        os.mkdir(scratch, 0o700)
        ours, theirs = socket.socketpair()
        boot = "import sys; sys.path.insert(0, sys.argv[1]); from grader.sandbox import child; child.main(sys.argv[2:])"
        popen = subprocess.Popen(
            [sys.executable, "-I", "-c", boot, _KIT_ROOT, str(theirs.fileno()), log_path, str(memory_limit or 0),
             scratch],
            pass_fds=[theirs.fileno()], start_new_session=True,
        )
        theirs.close()
        self.popens[popen.pid] = (popen, scratch)
        return ours, popen.pid

    def stop(self, pid, grace):
        """End a child: give it `grace` seconds to finish exiting, then kill its whole process
        group (everything it started) and remove its scratch folder. Returns its exit code
        (negative: the signal)."""
        if self.control is not None:
            with self.talking:
                self.control.send(f"stop {self.zygote_pids.pop(pid, pid)} {grace}".encode())
                return int(self.control.recv(64))
        popen, scratch = self.popens.pop(pid)
        try:
            popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        _kill_group(pid)
        code = popen.wait()
        files.remove_tree(scratch)
        return code

    def cuda_problem(self, memory_limit):
        """None where a child confined as a student's is (no student code in it) runs a small product
        on the GPU; else why it did not, in a line. Tried once per launcher."""
        if self.cuda is _UNTRIED:
            self.cuda = self._try_cuda(memory_limit)
        return self.cuda

    def _try_cuda(self, memory_limit):
        with tempfile.TemporaryDirectory(prefix="lumen-cuda-") as folder:
            try:
                one = Child(self, os.path.join(folder, "child.log"), time.monotonic() + CUDA_START_SECONDS,
                            memory_limit)
            except (ChildCrashed, ChildTimeout) as error:
                return str(error) or f"no child started within {CUDA_START_SECONDS:g} s"
            try:
                one.request({"op": "cuda"})
                return None
            except StudentError as error:
                return f"{error.type}: {error.message}"
            except ChildTimeout:
                return f"no answer within {CUDA_START_SECONDS:g} s"
            except ChildCrashed as error:
                return str(error)
            finally:
                one.stop()

    def confined(self, report):
        """Record what a child said of its confinement (before any student code ran there)."""
        level = report.get("containment") if isinstance(report, dict) else None
        layers = report.get("layers") if isinstance(report, dict) else None
        if level not in (containment.KERNEL, containment.PROCESS) or not isinstance(layers, list):
            level, layers = containment.PROCESS, []
        seen = {"level": level, "layers": [printable(layer, 80) for layer in layers[:10]]}
        if self.containment is None or (level == containment.PROCESS and self.containment["level"] != level):
            self.containment = seen

    def close(self):
        """Stop the zygote (which ends every child still alive) and remove the scratch folders."""
        for pid in list(self.popens):
            self.stop(pid, 0)
        if self.control is not None:
            self.control.close()
            os.waitpid(self.zygote_pid, 0)
            self.control = None
            _LIVE.discard(self)
            _set_dumpable(self.was_dumpable)
        if self.scratch is not None:
            files.remove_tree(self.scratch)
            self.scratch = None


_UNTRIED = object()
CUDA_START_SECONDS = 60.0  # what CUDA may take to start in a child: a driver can take seconds to bring a GPU up
_KIT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the folder holding grader/
_LIVE = weakref.WeakSet()  # launchers whose zygote runs


_CREDENTIALS = struct.Struct("iII")  # struct ucred: pid, uid, gid


def _receive_child(control):
    """(the child's pid in the zygote's PID namespace, its socket, its pid in this process's): the
    kernel translates the pid the zygote sent in its credentials (SO_PASSCRED) from the zygote's
    namespace; a zygote in none sends no credentials of the child's, and its pids are ours."""
    message, ancillary, _, _ = control.recvmsg(64, socket.CMSG_SPACE(4) + socket.CMSG_SPACE(_CREDENTIALS.size))
    theirs, in_namespace = (int(word) for word in message.split())
    fds, pid = [], theirs
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds += array.array("i", data[:len(data) - len(data) % 4])
        elif level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS and in_namespace:
            pid = _CREDENTIALS.unpack(data[:_CREDENTIALS.size])[0]
    return theirs, fds, pid


def _set_dumpable(dumpable):
    """Set this process's dumpable flag (Linux); returns the previous one."""
    libc = ctypes.CDLL(None, use_errno=True)
    before = libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1
    libc.prctl(PR_SET_DUMPABLE, int(dumpable), 0, 0, 0)
    return before


def _zygote(control, plan):
    """The zygote's loop: fork a child per request, report exit codes. Never returns; when the
    judge goes (hangs up, or dies: PR_SET_PDEATHSIG), every child still alive is killed."""
    children = {}  # pid -> scratch folder
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the judge's to handle
        ctypes.CDLL(None).prctl(containment.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        rules.forget_modules()  # for every child to come, while the judge goes on
        plan = containment.namespaces(plan)
        while True:
            request = control.recv(1 << 16).decode()
            if not request:
                break
            command, _, argument = request.partition(" ")
            if command == "spawn":
                log_path, memory_limit, scratch, readable, trusted, scratch_bytes = json.loads(argument)
                os.mkdir(scratch, 0o700)
                ours, theirs = socket.socketpair()
                pid = os.fork()
                if pid == 0:
                    control.close()
                    ours.close()
                    child.child_main(theirs.detach(), log_path, memory_limit, None if trusted else plan, scratch,
                                      readable, scratch_bytes)
                theirs.close()
                children[pid] = scratch
                _send_child(control, pid, ours, plan.pid_ns)
                ours.close()
            elif command == "stop":
                pid, grace = argument.split()
                code = _stop_child(int(pid), float(grace))
                files.remove_tree(children.pop(int(pid), ""))
                control.send(str(code).encode())
    finally:
        for pid, scratch in children.items():
            _kill_group(pid)
            files.remove_tree(scratch)
        os._exit(0)


def _send_child(control, pid, sock, in_namespace):
    """In the zygote: the new child's pid (in this namespace) and its socket; in a PID namespace
    also as credentials, which the kernel translates to the judge's namespace (see _receive_child)."""
    ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [sock.fileno()]))]
    if in_namespace:
        ancillary.append((socket.SOL_SOCKET, socket.SCM_CREDENTIALS, _CREDENTIALS.pack(pid, os.getuid(), os.getgid())))
    control.sendmsg([f"{pid} {int(in_namespace)}".encode()], ancillary)


def _stop_child(pid, grace):
    """In the zygote: wait up to `grace` s for child `pid` to exit, then kill its group."""
    give_up = time.monotonic() + grace
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() >= give_up:
            break
        time.sleep(0.005)
    _kill_group(pid)
    if not done:
        _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def _kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def call_request(target, method=None, args=(), kwargs=None, grad=None, no_grad=False, stand_in=False,
                 dtype_trail=False, watch=True):
    """A "call" request, as the suites and the timing both send it: the same keys always, so that
    the student's code, which can read it from the child's frames, cannot tell one from the other
    by its shape (round 11's a05). `watch`: a call of a watched name is measured (the diagnosis's
    calls, which explain and grade nothing, are not)."""
    return {"op": "call", "target": target, "method": method, "args": list(args), "kwargs": kwargs or {},
            "grad": grad, "no_grad": no_grad, "stand_in": stand_in,
            "dtype_trail": dtype_trail, "watch": watch}


def pin(pid, cpu=None, avoid=None):
    """Keep a student's process on one CPU (`cpu`, or one of the judge's picked by its pid, which
    spreads a batch's children over the CPUs, other than `avoid` where there are others: the CPU
    that the run's timing has), before any of its code runs: every child, the suites' and the
    timing's alike, then sees one CPU, so that none can tell it is being timed by that (round 11's
    a01). Its code runs on one intra-op thread anyway. Nothing where the system cannot pin."""
    if not hasattr(os, "sched_setaffinity"):
        return
    with contextlib.suppress(OSError):
        if cpu is None:
            allowed = sorted(os.sched_getaffinity(0))
            allowed = [other for other in allowed if other != avoid] or allowed
            cpu = allowed[pid % len(allowed)]
        os.sched_setaffinity(pid, {cpu})


def memory_status(pid):
    """What the kernel counts of the process `pid`'s memory, in bytes, whatever the process says of
    itself: {"VmRSS": in RAM now, "VmHWM": the most it held in RAM since it started, "RssAnon" and
    "RssFile": the parts of VmRSS that are its own memory and files' pages (libraries' code)}; None
    where it cannot be read (not Linux, or the process is gone)."""
    found = {}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                name, _, value = line.partition(":")
                if name in _MEMORY_FIELDS:
                    found[name] = int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return found if len(found) == len(_MEMORY_FIELDS) else None


_MEMORY_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile")


class MemoryWatch:
    """The most memory of its own (RssAnon) the process `pid` holds while the block runs, read every
    `every` seconds on a thread of this process: a peak that pages of files it drops cannot offset."""

    def __init__(self, pid, every=0.002):
        self.pid, self.every, self.peak = pid, every, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="lumen-memory-watch", daemon=True)

    def _watch(self):
        while True:
            status = memory_status(self.pid)
            if status is not None:
                self.peak = max(self.peak, status["RssAnon"])
            if self._done.wait(self.every):
                return

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()


class Child:
    """One child running one student file, with the exercise's deadline."""

    def __init__(self, launcher, log_path, deadline, memory_limit, readable=(), trusted=False, scratch_bytes=None,
                 allowance=None):
        self.launcher, self.deadline, self.allowance = launcher, deadline, allowance  # allowance: wire.Allowance
        self.sock, self.pid = launcher.spawn(log_path, memory_limit, readable, trusted, scratch_bytes)
        self.exit_code = None
        self.key = wire.new_key()  # the child signs its replies with it: the student's code cannot
        if not trusted:
            pin(self.pid, avoid=launcher.reserved)
        try:  # the child's first message: how it is confined, sent before any student code ran
            self.sock.settimeout(max(self.deadline - time.monotonic(), 0.001))
            wire.send(self.sock, {"key": self.key.hex()})
            hello = wire.receive(self.sock, self.deadline, key=self.key)
            if not trusted:
                launcher.confined(hello)
        except (TimeoutError, socket.timeout):
            self.stop(grace=0)
            raise ChildTimeout() from None
        except (EOFError, OSError, wire.WireError):
            self.stop(grace=1.0)
            raise ChildCrashed(f"the grader could not start a process for your code ({describe_exit(self.exit_code)})") from None

    @property
    def alive(self):
        return self.exit_code is None

    def request(self, message):
        """Send one request and wait for its reply within the time left."""
        if not self.alive:
            raise ChildCrashed("the student's process has already ended")
        try:
            self.sock.settimeout(max(self.deadline - time.monotonic(), 0.001))
            wire.send(self.sock, message)
            reply = wire.receive(self.sock, self.deadline, self.allowance, key=self.key)
        except (TimeoutError, socket.timeout):
            self.stop(grace=0)
            raise ChildTimeout() from None
        except (EOFError, OSError):
            self.stop(grace=1.0)
            raise ChildCrashed(describe_exit(self.exit_code)) from None
        except wire.OverAllowance as over:
            self.stop()
            raise ChildCrashed(f"your code's answer held {mib(over.size)}, and the answers to one exercise's tests "
                               f"may hold {mib(over.allowance.total)} together ({mib(over.allowance.left)} left): "
                               "an answer is the size of the output its docstring describes, so the grader stopped "
                               "your code's process") from None
        except wire.WireError as error:
            reply = error
        if not isinstance(reply, dict) or not ("value" in reply or "error" in reply):
            self.stop()
            why = f" ({reply})" if isinstance(reply, wire.WireError) else ""
            raise ChildCrashed(f"your code's process sent the grader something that is not a reply{why}: does your "
                               "code return something other than tensors and plain values, or write to files it "
                               "did not open?")
        if "error" in reply:
            raise StudentError.from_wire(reply["error"])
        return reply

    def stop(self, grace=0.0):
        """Hang up, then end the child and everything it started."""
        if self.alive:
            self.sock.close()
            self.exit_code = self.launcher.stop(self.pid, grace)


def mib(size):
    """`size` bytes in MiB, as every message writes them."""
    return f"{size / 2 ** 20:.2f} MiB"


def describe_exit(code):
    """A child's exit code in words a student can act on."""
    if code is None or code == -signal.SIGKILL:
        return "your code's process was killed (SIGKILL): usually the memory limit"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        hint = ": a crash in native code (ctypes, a C extension)" if name in ("SIGSEGV", "SIGBUS") else ""
        return f"your code's process died from signal {name}{hint}"
    return f"your code ended the process with exit status {code} (os._exit or a crash in C)"
