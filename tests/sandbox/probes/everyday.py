"""Exercise 3, correct, written by a student who also does what ordinary code does: prints, writes
and reads files in its temporary folder, saves a tensor, starts threads and a thread pool, raises
torch's own thread count, allocates a large tensor, sleeps, draws random numbers, asks who and
where it is, formats a caught exception. Every one of these must keep working in a confined child
(the seccomp allowlist)."""

import concurrent.futures
import math
import os
import platform
import random
import resource
import sys
import tempfile
import threading
import time
import traceback

import numpy
import torch


def _ordinary_things():
    print("hello from the student's file")
    print("a warning", file=sys.stderr)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "notes.txt")
        with open(path, "w") as file:
            file.write("x" * 10000)
        with open(path) as file:
            assert len(file.read()) == 10000
        os.makedirs(os.path.join(folder, "sub", "deeper"))
        assert sorted(os.listdir(folder)) == ["notes.txt", "sub"] and os.stat(path).st_size == 10000
        torch.save({"w": torch.arange(6.0)}, os.path.join(folder, "w.pt"))
        assert torch.load(os.path.join(folder, "w.pt"))["w"].sum() == 15
        with tempfile.NamedTemporaryFile(dir=folder) as named:
            named.write(b"abc")
            named.flush()
        os.remove(path)
    results = []
    threads = [threading.Thread(target=lambda: results.append(sum(range(1000)))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert list(pool.map(abs, [-1, -2, -3])) == [1, 2, 3]
    before = torch.get_num_threads()
    torch.set_num_threads(4)
    big = torch.randn(512, 512)
    assert (big @ big).shape == (512, 512)
    torch.set_num_threads(before)
    assert torch.zeros(64 << 18).numel() == 64 << 18  # 64 MiB in one allocation
    assert numpy.asarray(torch.ones(3)).sum() == 3
    time.sleep(0.01)
    random.seed(os.urandom(8))
    assert resource.getrlimit(resource.RLIMIT_NOFILE) and os.cpu_count() and os.sched_getaffinity(0)
    assert os.getppid() > 0 and os.getuid() >= 0 and os.getegid() >= 0 and platform.machine()
    try:
        {}["missing"]
    except KeyError:
        assert "KeyError" in traceback.format_exc()
    return results


_ordinary_things()


def scale_scores(scores, d_k):
    _ordinary_things()
    return scores / math.sqrt(d_k)


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
