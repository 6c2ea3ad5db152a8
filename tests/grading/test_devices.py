"""A device the machine has but the grader's sandbox cannot use costs no student a point: CUDA is
tried in a child confined as a student's is before any test runs (runner.usable_devices). Checked
on a CPU machine by telling the judge that CUDA is there (`torch.cuda.is_available` patched): the
children's torch, a CPU build, then fails to start it, as a GPU's driver refused by the sandbox did
on an H100 (docs/security.md). A request whose tensors a child cannot make is the grader's error."""

import json
import time

import pytest
import torch
from click.testing import CliRunner

from conftest import ROOT, unwrapped
from grader.cli.main import main
from grader.grading import runner
from grader.grading.settings import DEFAULTS
from grader.sandbox import wire
from grader.sandbox.judge import Child, InputsUnread, StudentError, call_request, load_request

SOLUTIONS = ROOT / "solutions"


@pytest.fixture
def cuda_claimed(monkeypatch):
    """The judge believes a CUDA device is there; the children's torch cannot start one."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)


def test_cuda_that_does_not_start_in_the_sandbox_is_left_out_of_auto_with_a_note(launcher, cuda_claimed):
    devices, note = runner.usable_devices("auto", launcher, DEFAULTS.memory_limit)
    assert devices == ("cpu",)
    assert note.startswith("graded on the CPU only: CUDA works on this machine but does not start in the "
                           "grader's sandbox (") and "CUDA" in note.partition("(")[2], note


def test_device_cuda_that_does_not_start_in_the_sandbox_is_a_usage_error(launcher, cuda_claimed):
    with pytest.raises(runner.DeviceUnavailable, match=r"^--device cuda: CUDA works on this machine but does not "
                                                        r"start in the grader's sandbox .*--device cpu"):
        runner.usable_devices("cuda", launcher, DEFAULTS.memory_limit)


def test_cuda_that_starts_needs_no_note(launcher):
    assert runner.usable_devices("cpu", launcher, DEFAULTS.memory_limit) == (("cpu",), None)


@pytest.mark.parametrize("choice, code", [("auto", 0), ("cuda", 2)])
def test_the_student_reads_why(choice, code, cuda_claimed):
    """auto: full marks on the CPU, the note in the text and JSON reports; cuda: exit 2, the reason, no traceback."""
    args = ["exercise3", "--submission", str(SOLUTIONS), "--no-perf", "--device", choice]
    text = CliRunner().invoke(main, args)
    said = unwrapped(text.output)
    assert text.exit_code == code and "Traceback" not in said, text.output
    assert "CUDA works on this machine but does not start in the grader's sandbox" in said
    if choice == "auto":
        assert "graded on cpu" in said and "! graded on the CPU only: " in said
        report = json.loads(CliRunner().invoke(main, [*args, "--format", "json"]).stdout)
        assert report["device"] == "cpu" and report["score"] == report["max_score"] > 0
        assert report["device_note"].startswith("graded on the CPU only: ")


def test_a_request_the_child_cannot_read_is_said_of_the_students_process(launcher, tmp_path):
    """Tensors for a device the child cannot start (CUDA, on a CPU build): the reply says the inputs were
    not taken, never that the student's code is not the cause (only the child says so, and the student's
    code can write on its socket: round 24's a7), and the child goes on answering."""
    path = tmp_path / "exercise3_scaling.py"
    path.write_text((SOLUTIONS / "exercise3_scaling.py").read_text())
    one = Child(launcher, str(tmp_path / "child.log"), time.monotonic() + 60, DEFAULTS.memory_limit,
                readable=(str(path),))
    try:
        one.request(load_request(str(path), "exercise3_scaling"))
        frames = wire.encode(call_request("scale_scores", args=[torch.ones(2, 2), 4]))
        frames[0] = frames[0].replace(b'"device": "cpu"', b'"device": "cuda"')
        wire.send_frames(one.sock, frames)
        error = StudentError.from_wire(wire.receive(one.sock)["error"])
        assert isinstance(error, InputsUnread) and error.summary.startswith(
            "your code's process could not take this test's inputs ("), error.summary
        assert "not the cause" not in error.summary
        assert one.request(call_request("scale_scores", args=[4.0, 4]))["value"] == 2.0
    finally:
        one.stop()


def test_an_exception_of_the_students_named_like_the_childs_own_is_the_students(grade):
    """Round 22's a14: an exception class named like the child's own error type read as the grader's fault."""
    result = grade("exercise3", source=(SOLUTIONS / "exercise3_scaling.py").read_text() + """

class InputsUnread(Exception):
    pass


def scale_scores(scores, d_k):
    raise InputsUnread("not mine")
""")
    errors = [test.message for test in result.tests if test.status == "error"]
    assert errors and not any("could not take this test's inputs" in message for message in errors), errors
    assert all("InputsUnread (a class of your code's)" in message for message in errors), errors


def test_a_reply_written_by_the_students_code_blames_no_grader(grade):
    """Round 24's a7: the student's code writes a well-formed error reply on the child's socket itself, of
    the type the child uses for inputs it cannot read, in words of its own, and ends its process."""
    result = grade("exercise3", source=(SOLUTIONS / "exercise3_scaling.py").read_text() + """

def scale_scores(scores, d_k):
    import json, os, stat, struct
    header = json.dumps({"error": {"type": "InputsUnread", "message": "the grader broke", "frames": []}}).encode()
    message = struct.pack("!Q", len(header) + 8) + struct.pack("!Q", len(header)) + header
    for fd in range(3, 64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.write(fd, message)
        except OSError:
            pass
    os._exit(0)
""")
    messages = [test.message for test in result.tests if test.status in ("error", "failed")]
    assert messages and result.score < result.max_score
    assert not any("not the cause" in message or "grader error" in message for message in messages), messages
