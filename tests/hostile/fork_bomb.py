"""Tries to start processes in every way: os.fork, fork through ctypes (libc and the raw system
call), subprocess and multiprocessing. Bounded, so that a machine without the guard survives: at
most 16 children, each sleeping a minute. Children that did start leave a file behind."""

import ctypes
import os
import platform
import subprocess
import tempfile
import time

MARK = os.path.join(tempfile.gettempdir(), f"lumen-hostile-child-{os.getpid()}")


def _child():
    open(f"{MARK}-{os.getpid()}", "w").close()
    time.sleep(60)
    os._exit(0)


def scale_scores(scores, d_k):
    started = 0
    libc = ctypes.CDLL(None)
    forks = [os.fork, libc.fork]
    if platform.machine() == "x86_64":
        forks.append(lambda: libc.syscall(57))  # the fork system call itself, past libc
    for attempt in range(4):
        for fork in forks:
            try:
                pid = fork()
            except OSError:
                continue
            if pid == 0:
                _child()
            started += pid > 0
    raise RuntimeError(f"{started} processes started")


def scaled_scores(q, k):
    import multiprocessing

    subprocess.run(["sleep", "60"])
    multiprocessing.Process(target=time.sleep, args=(60,)).start()
