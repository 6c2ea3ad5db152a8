"""CUDA's allowance, checked without a GPU: a child whose plan holds an NVIDIA device (a stand-in
path here) may name its own threads, as NVIDIA's driver does when CUDA starts, and nothing more of
/proc; a child without one may not even that. As root and as an unprivileged user (`privileges`).
What a GPU itself must show is benchmarks/gpu_check.py's."""

import contextlib
import sys
import time

import pytest

from conftest import ROOT
from grader.grading.settings import DEFAULTS
from grader.sandbox import containment
from grader.sandbox.judge import Child, Launcher, load_request

pytestmark = [pytest.mark.privileges, pytest.mark.skipif(sys.platform != "linux", reason="Linux's /proc")]
PROBE = ROOT / "tests" / "sandbox" / "probes" / "thread_names.py"
STAND_IN = "/dev/nvidia-stand-in"  # no such file: the plan says NVIDIA, no device is bound


@contextlib.contextmanager
def child_of(tmp_path, nvidia):
    """A confined child, as a grading run's are, of a plan with (or without) an NVIDIA device, the
    probe loaded; yields (the child, the layers it reported)."""
    make = containment.plan
    with pytest.MonkeyPatch.context() as patch:
        if nvidia:
            patch.setattr(containment, "plan", lambda *a, **k: make(*a, **k)._replace(
                devices=(*make(*a, **k).devices, STAND_IN)))
        launcher = Launcher()
        launcher.start()
    path = tmp_path / "exercise3_scaling.py"
    path.write_text(PROBE.read_text())
    one = None
    try:
        one = Child(launcher, str(tmp_path / "child.log"), time.monotonic() + 120, DEFAULTS.memory_limit,
                    readable=(str(path),))
        one.request(load_request(str(path), "exercise3_scaling"))
        yield one, launcher.level["layers"]
    finally:
        if one is not None:
            one.stop()
        launcher.close()


def attempts(one):
    return one.request({"op": "call", "target": "attempts", "args": [], "kwargs": {}})["value"]


def test_a_gpu_child_names_its_own_threads_and_writes_nothing_else(tmp_path):
    with child_of(tmp_path, nvidia=True) as (one, layers):
        done = attempts(one)
        assert one.request({"op": "call", "target": "scale_scores", "args": [4.0, 4], "kwargs": {}})["value"] == 2.0
    assert done["its main thread's name"] == "ok" and done["a new thread's name"] == "ok", done
    assert done["its parent's name"] != "ok", done
    if any(layer.startswith("landlock") for layer in layers):  # without Landlock, the files' owners alone decide
        assert done["its process's name, outside task/"] != "ok" and done["its oom_score_adj"] != "ok", done


def test_a_child_without_a_gpu_writes_nothing_of_proc(tmp_path):
    with child_of(tmp_path, nvidia=False) as (one, _):
        done = attempts(one)
    assert "ok" not in done.values(), done
