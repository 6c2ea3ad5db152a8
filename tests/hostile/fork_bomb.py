"""Tries to start processes in Python's ways: os.fork, os.forkpty, subprocess and multiprocessing
(fork through ctypes, libc's and the raw system call, is refused by the rules before the kernel sees
it: the kernel's refusal of it is tests/sandbox/probes/refused.py's). Bounded, so that a machine without the guard survives: at
most 16 children, each sleeping a minute. Children that did start leave a file behind."""

import os
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
    forks = [os.fork, lambda: os.forkpty()[0]]
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
