"""What the suites hold in their hands: the student's code, callable as if it were local.

`student.scale_scores(s, 16)` sends the call to the student's process and returns the values it
computed. A crashed or timed-out child is replaced by a fresh one on the next call, so one bad
test never takes the rest of the exercise down with it; the exercise's deadline is shared (and
comes no later than the whole run's). The file is imported once: if that fails (an error, a
forbidden import, a crash), every test reports the same failure.
"""

import contextlib
import os
import time
from typing import NamedTuple

import torch

from grader.sandbox import files, reach, wire
from grader.grading.compare import Mismatch, describe
from grader.grading.testkit import crash_evidence, grad_request, replayable
from grader.nested import map_values
from grader.sandbox.judge import (Child, ChildCrashed, ChildTimeout, Deadline, StudentError, SubmissionRefused,
                                  MemoryWatch, call_request, load_request, memory_status, printable)


class Student:
    """One student's file for one exercise, behind the sandbox."""

    def __init__(self, exercise, path, launcher, log_dir, time_limit, memory_limit, run=None):
        self.exercise, self.path = exercise, path
        self.launcher = launcher
        self.log_path = os.path.join(log_dir, f"{exercise.id}.log")
        self.time_limit, self.memory_limit = time_limit, memory_limit
        self.limit = Deadline.earliest(time_limit, run)  # the exercise's limit, or the whole run's (`run`)
        self.deadline = self.limit.at
        self.child = None
        self.load_failure = None  # why the file could not be imported, once it failed
        self.generation = 0  # bumped at every restart, so handles from a dead child are refused
        self.replies = wire.Allowance(REPLY_BYTES)  # what the answers of all its children may hold together
        self.reaches = []  # where the file reaches into its process (grader.sandbox.reach), once it was read
        self.watched = {}  # name -> a WatchedCall for each of its calls so far (the exercise's `watched`)
        self.watching = True  # whether its calls of a watched name are measured (not within `within`)
        self.printed_from = 0  # bytes of its log the judge has read (`read_printed`)
        self.called = False  # whether its process has run any of its code but the import

    def _live_child(self, calling=True):
        """Its process, started and the file imported there if none is alive; `calling`: a call of its
        code follows (`fresh`)."""
        if self.load_failure is not None:
            raise self.load_failure.with_traceback(None)
        if time.monotonic() >= self.deadline:
            raise ChildTimeout(earlier=True)
        if self.child is None or not self.child.alive:
            try:
                load = self._load_request()
            except SubmissionRefused as refused:
                self.load_failure = refused
                raise
            self.reaches = reach.reaches(load["source"])
            self.child = Child(self.launcher, self.log_path, self.deadline, self.memory_limit, (self.path,),
                               allowance=self.replies)
            self.generation += 1
            self.called = False
            try:
                self.child.request(load)
            except ChildTimeout:
                raise
            except Exception as failure:  # StudentError or ChildCrashed: it would fail again
                self.load_failure = failure
                self.child.stop()
                raise
        self.called = self.called or calling
        return self.child

    def _load_request(self, watched=True):
        exercise = self.exercise
        return load_request(self.path, exercise.stem, exercise.forbidden, watched=exercise.watched if watched else ())

    def watched_calls(self, name):
        """Every call of `name`, one of the exercise's `watched`, made so far: a WatchedCall each."""
        if name not in self.exercise.watched:
            raise ValueError(f"{self.exercise.id} does not watch {name}")
        return self.watched.get(name, [])

    @contextlib.contextmanager
    def within(self, seconds):
        """Calls made inside must end within `seconds`, and still by the exercise's deadline: a
        later, optional step (the diagnosis's smallest example) shares that deadline and bounds
        itself; a call past it times out as any other. Its calls explain and grade nothing: a watched
        name's are not measured (`Exercise.watched`)."""
        saved = self.deadline
        self.deadline = min(saved, time.monotonic() + seconds)
        self.watching = False
        if self.child is not None:
            self.child.deadline = self.deadline
        try:
            yield self
        finally:
            self.deadline, self.watching = saved, True
            if self.child is not None:
                self.child.deadline = saved

    def load(self):
        """Import the student's file now, if it is not imported yet; raises what the import raised."""
        self._live_child(calling=False)

    def run(self, target, *args, method=None, grad=None, return_args=False, no_grad=False, stand_in=False,
            dtype_trail=False, **kwargs):
        """Call `target` (a name in the student's file, or a RemoteObject) and return the reply:
        `value`, plus `args` (the arguments after the call) and `shares` (the positions of those whose
        memory the value shares) and `grads`/`param_grads` if asked.
        `stand_in`: with its tensors on the child's stand-in for a second device (see
        grader.sandbox.stand_in); the reply's `placed` says which tensors of `value` were there.
        `dtype_trail`: the reply's `entered` says where a dtype other than the inputs' entered
        (grader.sandbox.dtype_trail), and `raised` whether the call raised."""
        child = self._live_child()
        name = watched_name(target, method)
        if isinstance(target, RemoteObject):
            if target.generation != self.generation:
                raise ChildCrashed("an object made before the student's process restarted is gone")
            target = target.handle
        request = call_request(target, method, args, kwargs, grad, no_grad, stand_in, dtype_trail, self.watching)
        try:
            reply = child.request(_to_wire(request))
        except StudentError as error:
            if isinstance(target, str) and not target[:1].isupper() and replayable(error, grad, stand_in):
                crash_evidence(error, {"target": target, "args": args, "kwargs": kwargs,  # a function's call
                                       **({"wrt": grad["wrt"]} if grad else {})})  # run backwards: which gradients
            raise
        if not return_args:  # the child sends them back always, so that no call looks like a check of them
            reply.pop("args", None)
            reply.pop("shares", None)
        measured = reply.pop("watched", None)
        reply = map_values(reply, self._from_wire)
        if measured is not None:
            self.watched.setdefault(name, []).append(
                WatchedCall(measured, map_values(args, _meta), map_values(reply.get("value"), _meta)))
        if isinstance(target, str) and isinstance(reply.get("value"), RemoteObject):
            reply["value"].made_by = target
        if isinstance(target, str) and target[:1].isupper() and method is None and grad is None \
                and not isinstance(reply.get("value"), RemoteObject):  # a class of the exercise, called
            raise Mismatch(f"{target}(...) returned {describe(reply.get('value'))}, not an object: "
                           f"{target} must stay a class (an nn.Module) that the tests can build and call")
        return reply

    def largest_allocation(self, target, *args, method=None, **kwargs):
        """The largest tensor one call of `target(*args, **kwargs)` (or of the method `method` of a
        RemoteObject `target`, whose storages are its own, not new) allocates in the student's
        process, measured by the grader's probe: {"bytes", "shape", "disabled"} ("disabled": why the
        student's code switched the probe off, or None; see grader.perf.probe). Only of a name the exercise
        watches: were its other calls not measured too, code could tell the measured one by the probe's
        cost (round 54's a02 timed a few operations and read rows in blocks only when they were slow)."""
        if watched_name(target, method) not in self.exercise.watched:
            raise ValueError(f"{self.exercise.id} measures calls of {watched_name(target, method)} but does not "
                             "watch it: add it to the exercise's `watched`")
        request = {"op": "largest_allocation", "target": target, "method": method, "args": list(args),
                   "kwargs": kwargs}
        return self._live_child().request(_to_wire(request))["value"]

    def storages(self, remote):
        """{data pointer: bytes} of the tensors an object of the student's holds (`grader.perf.child.storages`),
        read without running any code of the object's."""
        request = {"op": "bench", "action": "storages", "ref": remote.handle.ref}
        found = self._live_child().request(request)["value"]
        if isinstance(found, str):  # it holds too much to be read (grader.perf.child.HeldTooMuch)
            raise Mismatch(f"the grader could not read which tensors your {remote.kind} keeps: {found}")
        if not (isinstance(found, dict) and all(isinstance(pointer, str) and pointer.isdigit() and type(size) is int
                                                for pointer, size in found.items())):
            raise Mismatch(f"the grader could not read which tensors your {remote.kind} keeps: what your code's "
                           "process answered is not the grader's reply")
        return {int(pointer): size for pointer, size in found.items()}

    def run_measured(self, target, *args, **kwargs):
        """One call of the function `target` in a fresh process of its own, with the memory that
        process gained from before the student's file was imported there to the end of the call, as
        this process reads it from the kernel: evidence no code in that process can forge or hide,
        whatever it does to its own objects. Returns (value, bytes gained), the bytes None where the
        kernel's counts cannot be read (not Linux).

        The bytes are its peak in RAM less what it held after the "warm" op ran torch's usual kernels
        there (before the file was imported), less the pages of files it added (code of kernels used
        for the first time: a few MiB) up to FILE_PAGES_ALLOWED, so that files mapped on purpose hide
        no more than that (and pages of files it dropped count against it); or, where larger, the most
        memory of its own it held as a MemoryWatch saw it, less what it held at the start (pages of
        files dropped and faulted back in cannot offset that one). Its scratch folder, where data would
        not count as its memory, holds MEASURED_SCRATCH bytes at most (in a private root)."""
        load = self._load_request(watched=False)  # measured from outside: the probe's records would weigh too
        log = os.path.join(os.path.dirname(self.log_path), f"{self.exercise.id}.measured.log")
        child = Child(self.launcher, log, self.deadline, self.memory_limit, (self.path,),
                      scratch_bytes=MEASURED_SCRATCH, allowance=self.replies)
        try:
            child.request({"op": "warm"})
            start = memory_status(child.pid)
            with MemoryWatch(child.pid) as watch:
                child.request(load)
                value = child.request(_to_wire(call_request(target, None, args, kwargs)))["value"]
            end = memory_status(child.pid)
        finally:
            child.stop()
        if isinstance(value, wire.Handle):
            raise Mismatch(f"{target}(...) returned {value.kind}, expected a tensor")
        if start is None or end is None:
            return value, None
        files = min(end["RssFile"] - start["RssFile"], FILE_PAGES_ALLOWED)  # pages it dropped count against it
        return value, max(end["VmHWM"] - start["VmRSS"] - files, watch.peak - start["RssAnon"], 0)

    def backward(self, target, *args, wrt, upstream, method=None, **kwargs):
        """Run target(*args) with gradients for args[i] (i in wrt), backpropagate `upstream`
        (one tensor or None per output); returns (value, grads, param_grads)."""
        reply = self.run(target, *args, method=method, grad=grad_request(wrt, upstream), **kwargs)
        return reply["value"], reply["grads"], reply["param_grads"]

    def first_non_finite(self, target, *args, wrt, upstream):
        """Where the backward pass of target(*args) first made an inf or a NaN, for `upstream`: the
        child's note (grader.sandbox.gradient_trail), or None."""
        return self.run(target, *args, grad=grad_request(wrt, upstream, trail=True)).get("entered")

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.run(name, *args, **kwargs)["value"]

    def fresh(self):
        """From here on, a process that has run none of the calls before (the next call imports the file
        in a new one, if any call ran in this one): what the code kept of a hidden check's inputs stays
        behind (round 66's a01)."""
        if self.child is not None and self.called:
            self.close()
            self.child = None

    def close(self):
        if self.child is not None:
            self.child.stop()

    def read_printed(self):
        """What the student's code printed (stdout and stderr) since the judge last read its log (the
        child flushes after each call), PRINTED_SCAN bytes in all at most. The judge keeps what it
        read: a child that writes over its log's start (round 30's a08) cannot change it."""
        left = PRINTED_SCAN - self.printed_from
        if left <= 0:
            return b""
        try:  # a child could have put a pipe or a link there: never block, never follow
            data = files.read_regular(self.log_path, left, follow=False, head=True, start=self.printed_from)
        except OSError:
            return b""
        self.printed_from += len(data)
        return data

    def _from_wire(self, value):
        """One value of a reply as the suites see it: a handle as a RemoteObject; an integer beyond
        any count refused."""
        if type(value) is int and abs(value) >= _HUGE:
            raise Mismatch(f"your code returned the integer {str(value)[:12]}… ({len(str(value))} digits), far "
                           "beyond any count of bytes or elements: is a factor multiplied in too often?")
        if isinstance(value, wire.Handle):
            return RemoteObject(self, value, self.generation)
        return value


def printed_text(parts, limit=2000):
    """The start of what the student's code printed, for the report, without terminal escapes or
    carriage returns that could draw over the report's lines. `parts`: (printed during a hidden check,
    the bytes), in the order printed; what hidden checks printed would show their inputs: it is left
    out, and said in a note."""
    text = printable(b"".join(data for hidden, data in parts if not hidden).decode(errors="replace"), limit,
                     newlines=True)
    left_out = sum(len(data) for hidden, data in parts if hidden)
    if left_out:
        text += f"\n[{left_out} bytes your code printed during hidden checks are not shown: they would show their inputs]"
    return text


REPLY_BYTES = 64 << 20  # what the answers to one exercise's tests may hold together (the solutions' hold about
                       # 1 MiB): the judge keeps them, so they bound its memory (round 23's a7)
FILE_PAGES_ALLOWED = 8 << 20  # bytes of files' pages a measured call may add uncounted (after the warm op: ~4 MiB)
MEASURED_SCRATCH = 1 << 20  # bytes of scratch folder a measured call's process gets (a tmpfs: not its memory)
PRINTED_SCAN = 1 << 20  # bytes of the log read for the report: hidden checks' spans are cut out of them
_HUGE = 1 << 63  # an int beyond what any size or count can be (and beyond what a float compares exactly)


class WatchedCall(NamedTuple):
    """One call of a watched name: what the grader's probe measured of it in the student's process (a
    dict, its keys `grader.perf.child.WATCHED`, as the child sent it: check it), and its arguments and
    value with each tensor a meta tensor of its shape and dtype (their sizes, no data kept)."""
    measured: object
    args: tuple
    value: object


def watched_name(target, method):
    """The name a call is watched by (`Exercise.watched`, as `grader.sandbox.child.Session.watched_name`):
    "fused_project", or a method of an object a call of the file's names made, "KVCache.update"."""
    maker = target.made_by if isinstance(target, RemoteObject) else target
    return maker if method is None else f"{maker}.{method}"


def _meta(value):
    return torch.empty_like(value, device="meta") if isinstance(value, torch.Tensor) else value


def _to_wire(value):
    """A request as it can travel: each RemoteObject in it as its handle."""
    return map_values(value, lambda item: item.handle if isinstance(item, RemoteObject) else item)


class RemoteObject:
    """An object that lives in the student's process: a module, a KV cache.

    Calling it calls the object (a module's forward); any attribute is a method call.
    """

    def __init__(self, student, handle, generation):
        self.student, self.handle, self.generation = student, handle, generation
        self.made_by = None  # the name in the student's file whose call made it ("KVCache"), where known

    @property
    def kind(self):
        return self.handle.kind

    def __call__(self, *args, **kwargs):
        return self.student.run(self, *args, method="__call__", **kwargs)["value"]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: self.student.run(self, *args, method=name, **kwargs)["value"]

    def __len__(self):
        n = self.student.run(self, method="__len__")["value"]
        if type(n) is not int or n < 0:  # len() would raise a TypeError the report calls a grader bug
            raise Mismatch(f"len(...) of your {self.kind} returned {describe(n)}, expected an int >= 0")
        return n

    def __repr__(self):
        return f"<{self.kind} in the student's process>"
