"""The grader's environment stays with the grader: a child keeps only where it is, its language, its
scratch folder and how torch and CUDA are set up, so that a secret of the machine's cannot be printed
into the student's own report (round 22's a9: a token set for the grader read back in the JSON
report, the gradebook record and the feedback page)."""

import time

from grader.grading.settings import DEFAULTS
from grader.sandbox.judge import Child, Launcher, load_request

PROBE = """
import os


def environment():
    return dict(os.environ)


def c_library(name):
    import ctypes  # refused to a student's file; this probe is the kit's own (load_request(ctypes=True))
    value = ctypes.CDLL(None).getenv
    value.restype = ctypes.c_char_p
    found = value(name.encode())
    return None if found is None else found.decode()
"""


def test_a_child_keeps_nothing_of_the_graders_environment_but_what_torch_needs(tmp_path, monkeypatch):
    monkeypatch.setenv("INSTRUCTOR_API_TOKEN", "s3cr3t")
    monkeypatch.setenv("LUMEN_CONFIDENTIAL", "/somewhere/private")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    for name in ("NVIDIA_API_KEY", "TORCH_HUB_TOKEN", "LC_COURSE_TOKEN", "PYTORCH_S3_KEY"):  # round 24's a10
        monkeypatch.setenv(name, "s3cr3t")
    launcher = Launcher()
    launcher.start()  # the zygote is forked with the environment above
    path = tmp_path / "exercise3_scaling.py"
    path.write_text(PROBE)
    one = Child(launcher, str(tmp_path / "child.log"), time.monotonic() + 60, DEFAULTS.memory_limit,
                readable=(str(path),))
    try:
        one.request(load_request(str(path), "exercise3_scaling", ctypes=True))
        seen = one.request({"op": "call", "target": "environment", "args": [], "kwargs": {}})["value"]
        in_c = one.request({"op": "call", "target": "c_library", "args": ["INSTRUCTOR_API_TOKEN"], "kwargs": {}})
    finally:
        one.stop()
        launcher.close()
    assert not any(value == "s3cr3t" for value in seen.values()) and "LUMEN_CONFIDENTIAL" not in seen, sorted(seen)
    assert in_c["value"] is None  # the C library's copy too
    assert seen["OMP_NUM_THREADS"] == "1" and "PATH" in seen and seen["TMPDIR"] == seen["HOME"]
