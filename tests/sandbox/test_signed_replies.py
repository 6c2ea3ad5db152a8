"""The child signs every message it sends the judge with a key the judge gave it before any student
code ran (`grader.sandbox.wire`): bytes the student's code writes on the child's socket are no reply.
Round 42's a06 found the socket's descriptor in /proc/self/fd and wrote a message of the protocol on
it through an `io.FileIO` (a class it had from `type()` of a file pathlib opened), reaching nothing."""

import socket
import struct

import pytest
import torch

from conftest import ROOT, failures
from grader.sandbox import wire

FORGED = ROOT / "tests" / "attacks" / "round42" / "a06_fileio_type_on_judge_socket" / "sub" / "exercise1_projection.py"


def test_a_signed_message_is_read_and_any_other_refused():
    key = wire.new_key()
    ours, theirs = socket.socketpair()
    with ours, theirs:
        value = {"value": (torch.arange(6.0).reshape(2, 3), 7)}
        wire.send(theirs, value, key)
        got = wire.receive(ours, key=key)["value"]
        assert torch.equal(got[0], value["value"][0]) and got[1] == 7
        wire.send(theirs, value)  # unsigned: as the student's code would write it
        with pytest.raises(wire.WireError, match="did not write"):
            wire.receive(ours, key=key)
        wire.send(theirs, value, wire.new_key())  # signed with another key
        with pytest.raises(wire.WireError, match="did not write"):
            wire.receive(ours, key=key)
        frames = wire.encode(value)
        frames[1] = bytes(frames[1])[:-4] + struct.pack("!f", 8.0)  # a tensor's bytes changed, the signature kept
        signature = wire._signature(key, wire.encode(value))
        wire.send_frames(theirs, [*frames, signature])
        with pytest.raises(wire.WireError, match="did not write"):
            wire.receive(ours, key=key)


def test_a_message_the_student_s_code_writes_on_the_socket_is_no_reply(grade):
    result = grade(1, path=FORGED)
    forged = [test for test in result.tests if "did not write" in test.message]
    assert forged and all(test.status != "passed" for test in forged), failures(result)
    assert not any("ForgedOnTheSocket" in test.message for test in result.tests)
