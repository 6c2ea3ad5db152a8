"""The clocks a child reads around every call of the student's code, captured when the sandbox is
imported (in the judge, before the zygote forks), so that they are the real ones whatever a
submission patches later. `grader.perf` turns the readings into a tier; the sandbox only records them.
"""

import os
import time

import torch

_thread_time = time.thread_time
_process_time = time.process_time
_perf_counter = time.perf_counter
_cuda_synchronize = torch.cuda.synchronize
_cuda_initialized = torch.cuda.is_initialized
try:
    import resource

    _getrusage = resource.getrusage
    _RUSAGE_THREAD = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)
except ImportError:  # Windows
    _getrusage = None


def threads():
    """The number of threads of this process (the links of /proc/self/task: one per thread, plus
    two), or None where it cannot be read."""
    try:
        return os.stat("/proc/self/task").st_nlink
    except OSError:
        return None


def cuda_initialized():
    """Whether CUDA has started in this process."""
    return _cuda_initialized()


def waits():
    """How many times this thread has waited (voluntary context switches: sleep, I/O, a lock, a
    join); 0 where the system does not say."""
    return _getrusage(_RUSAGE_THREAD).ru_nvcsw if _getrusage else 0


def read():
    """(this thread's CPU time, the process's CPU time, wall time, waits) now: read around every
    call of the student's code, the suites' and the timing's alike, so that a timed call takes the
    very path a tested one does. Where CUDA is in use, after the device has finished what it was
    given: the wall time then holds the GPU's work."""
    if _cuda_initialized():
        _cuda_synchronize()
    return _thread_time(), _process_time(), _perf_counter(), waits()


def since(start):
    """[seconds of each clock, waits] from `start` (a `read()`) to now."""
    return [now - then for now, then in zip(read(), start)]
