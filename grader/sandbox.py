"""The judge's side of the sandbox: start children, send them calls, survive whatever they do.

Student code runs only in a child process (see `worker`). On Linux every child is forked from a
"zygote": a copy of this process made at start-up, after torch is imported but before any expected
value exists, so a child costs milliseconds instead of a second of `import torch`, and holds no
secret. Elsewhere each child is a fresh interpreter.
"""

import os
import signal
import socket
import subprocess
import sys
import time

from grader import wire, worker


class StudentError(Exception):
    """The student's code raised; carries what the student needs to find the line."""

    def __init__(self, type, message, frames):
        super().__init__(f"{type}: {message}")
        self.type, self.message, self.frames = type, message, frames

    @property
    def summary(self):
        where = f" ({self.frames[-1].split(':')[0]})" if self.frames else ""
        text = f"{self.type}: {self.message}" if self.message else self.type
        return f"your code raised {text}{where}"


class WorkerTimeout(Exception):
    """The exercise's time limit ran out: during this call, or (`earlier`) before it began."""

    def __init__(self, earlier=False):
        super().__init__("time limit used up before this call" if earlier else "time limit")
        self.earlier = earlier


class WorkerCrashed(Exception):
    """The student's process ended in the middle of a call."""


class Launcher:
    """Makes children: forked from a zygote on Linux, fresh interpreters elsewhere."""

    def __init__(self):
        self.control = None  # socket to the zygote, when there is one
        self.popens = {}  # pid -> Popen, for spawned children

    def start(self):
        """Fork the zygote now: call before any expected value is computed in this process."""
        if sys.platform != "linux" or self.control is not None:
            return
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            ours.close()
            _zygote(theirs)
        theirs.close()
        self.control, self.zygote_pid = ours, pid

    def spawn(self, log_path):
        """A new child serving on a socket; returns (socket, pid)."""
        if self.control is not None:
            self.control.send(f"spawn {log_path}".encode())
            message, fds, _, _ = socket.recv_fds(self.control, 64, 1)
            return socket.socket(fileno=fds[0]), int(message)
        ours, theirs = socket.socketpair()
        popen = subprocess.Popen(
            [sys.executable, "-m", "grader.worker", str(theirs.fileno()), log_path],
            pass_fds=[theirs.fileno()], start_new_session=True,
        )
        theirs.close()
        self.popens[popen.pid] = popen
        return ours, popen.pid

    def stop(self, pid, grace):
        """End a child: give it `grace` seconds to finish exiting, then kill its whole process
        group (everything it started). Returns its exit code (negative: the signal)."""
        if self.control is not None:
            self.control.send(f"stop {pid} {grace}".encode())
            return int(self.control.recv(64))
        popen = self.popens.pop(pid)
        try:
            popen.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        _kill_group(pid)
        return popen.wait()

    def close(self):
        if self.control is not None:
            self.control.close()
            os.waitpid(self.zygote_pid, 0)
            self.control = None


def _zygote(control):
    """The zygote's loop: fork a child per request, report exit codes. Never returns."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the judge's to handle
        while True:
            request = control.recv(4096).decode()
            if not request:
                break
            command, _, argument = request.partition(" ")
            if command == "spawn":
                ours, theirs = socket.socketpair()
                pid = os.fork()
                if pid == 0:
                    control.close()
                    ours.close()
                    worker.child_main(theirs.detach(), argument)
                theirs.close()
                socket.send_fds(control, [str(pid).encode()], [ours.fileno()])
                ours.close()
            elif command == "stop":
                pid, grace = argument.split()
                control.send(str(_stop_child(int(pid), float(grace))).encode())
    finally:
        os._exit(0)


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


class Worker:
    """One child running one student file, with the exercise's deadline."""

    def __init__(self, launcher, log_path, deadline):
        self.launcher, self.deadline = launcher, deadline
        self.sock, self.pid = launcher.spawn(log_path)
        self.exit_code = None

    @property
    def alive(self):
        return self.exit_code is None

    def request(self, message):
        """Send one request and wait for its reply within the time left."""
        if not self.alive:
            raise WorkerCrashed("the student's process has already ended")
        try:
            self.sock.settimeout(max(self.deadline - time.monotonic(), 0.001))
            wire.send(self.sock, message)
            reply = wire.receive(self.sock)
        except (TimeoutError, socket.timeout):
            self.stop(grace=0)
            raise WorkerTimeout() from None
        except (EOFError, OSError, wire.WireError):
            self.stop(grace=1.0)
            raise WorkerCrashed(describe_exit(self.exit_code)) from None
        if "error" in reply:
            raise StudentError(**reply["error"])
        return reply

    def stop(self, grace=0.0):
        """Hang up, then end the child and everything it started."""
        if self.alive:
            self.sock.close()
            self.exit_code = self.launcher.stop(self.pid, grace)


def describe_exit(code):
    """A child's exit code in words a student can act on."""
    if code is None or code == -signal.SIGKILL:
        return "your code's process was killed (SIGKILL): usually the memory limit"
    if code < 0:
        name = signal.Signals(-code).name
        hint = ": a crash in native code (ctypes, a C extension)" if name in ("SIGSEGV", "SIGBUS") else ""
        return f"your code's process died from signal {name}{hint}"
    return f"your code ended the process with exit status {code} (os._exit or a crash in C)"
