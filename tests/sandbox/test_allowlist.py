"""The child's system calls are a default-deny allowlist, its threads a cap of its own: checked
from inside children, as root and as an unprivileged user (both runs of the `privileges` tests).
Refused calls answer EPERM (clone3: ENOSYS) and the child lives on; Python's own functions say
which call the grader refused; ordinary code keeps working; and a child holding every thread it
may start costs a classmate's child, graded beside it, nothing."""

import contextlib
import json
import os
import platform
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from grader.grading.settings import DEFAULTS
from grader.sandbox import child
from grader.sandbox.judge import Child, Launcher, load_request

pytestmark = [pytest.mark.privileges,
              pytest.mark.skipif(sys.platform != "linux" or platform.machine() not in child._ARCHES,
                                 reason="the seccomp allowlist is written for Linux on x86-64 and aarch64")]
PROBES = ROOT / "tests" / "sandbox" / "probes"


@contextlib.contextmanager
def children(tmp_path):
    """A launcher whose children are confined as a grading run's are; yields `start(probe)`,
    which loads a probe file in a fresh child and returns the child."""
    launcher = Launcher()
    launcher.start()
    started = []

    def start(probe):
        path = tmp_path / f"{probe}-{len(started)}" / "exercise3_scaling.py"
        path.parent.mkdir()
        path.write_text((PROBES / f"{probe}.py").read_text())
        one = Child(launcher, str(path.parent / "child.log"), time.monotonic() + 120, DEFAULTS.memory_limit,
                    readable=(str(path),))
        started.append(one)
        one.request(load_request(str(path), "exercise3_scaling", ctypes=True))  # probes of the kernel's layer
        return one

    try:
        yield start
    finally:
        for one in started:
            one.stop()
        launcher.close()


def call(one, target, *args):
    return one.request({"op": "call", "target": target, "args": list(args), "kwargs": {}})["value"]


def test_every_refused_call_answers_eperm_and_python_names_it(tmp_path):
    sys.path.insert(0, str(PROBES))
    try:
        import refused
    finally:
        sys.path.remove(str(PROBES))
    with children(tmp_path) as start:
        one = start("refused")
        outcomes = call(one, "attempts")
        assert call(one, "scale_scores", 4.0, 4) == 2.0  # alive, and still answering
    kernel = {name: "ENOSYS" if name == "clone3" else "EPERM" for name in refused.REFUSED}
    assert {name: outcomes.get(name) for name in kernel if name in outcomes} == kernel
    assert {name: outcomes[name] for name in refused.ALLOWED} == {
        "getpid": "ok", "fcntl F_GETFD": "EBADF", "ioctl TCGETS": "EBADF", "read a limit": "ok",
        "signal itself": "ok", "a private mapping": "ok"}
    python = {name: outcome for name, outcome in outcomes.items() if name not in kernel and name not in refused.ALLOWED}
    named = {"os.chmod": "chmod", "os.chown": "chown", "os.utime": "utime", "os.link": "link",
             "os.symlink": "symlink", "os.rename": "rename", "os.setxattr": "setxattr",
             "socket.socket": "socket", "os.fork": "fork", "subprocess": "subprocess"}
    assert python == {"os.mkfifo": "Operation not permitted",  # no audit event: the kernel's own words
                      **{name: f"not allowed in the grader: {call}" for name, call in named.items()}}


def test_ordinary_code_keeps_working_in_the_child(tmp_path):
    """Files in its scratch folder, threads and a thread pool, torch at 4 threads, a 64 MiB tensor,
    torch.save, sleeping, randomness, a formatted traceback: at import and in a call, graded by
    `lumen-grade --score-reaching` to full marks (the file reaches into its process: it needs `os`
    and `threading`, which attention code does not, so by default its points would be held for review,
    tests/sandbox/test_reach.py). In a fresh grader process: torch's OpenMP pool hangs in a child
    forked from a process whose pool already ran (as this test process's may have), which a
    grading run avoids by forking its zygote before it computes anything."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "submission" / "exercise3_scaling.py").write_text((PROBES / "everyday.py").read_text())
    done = subprocess.run([sys.executable, "-m", "grader", "exercise3", "--submission", str(tmp_path / "submission"),
                           "--no-perf", "--device", "cpu", "--format", "json", "--score-reaching"],
                          capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)})
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["score"] == report["max_score"] > 0, done.stdout[-2000:]
    assert "hello from the student's file" in report["exercises"][0]["output"]


def test_a_child_holding_its_thread_cap_costs_a_classmate_nothing(tmp_path):
    """The attack: threads held from one child until the user's process limit is gone, so that
    classmates' children cannot start theirs. The cap stops it short, and a child graded beside
    it, as the same user, starts threads and answers."""
    with children(tmp_path) as start:
        greedy = start("threads")
        held = call(greedy, "hold", 1500)
        assert held["tasks"] == child.THREAD_CAP and held["started"] < child.THREAD_CAP  # its main thread counts
        assert call(greedy, "hold", 10)["started"] == 0  # and the cap holds while they live
        classmate = start("threads")  # while greedy's threads are held
        assert call(classmate, "hold", 8)["started"] == 8 and call(classmate, "scale_scores", 4.0, 4) == 2.0
