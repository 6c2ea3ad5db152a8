"""A student's file is read as Python reads it: a BOM (what Windows Notepad writes) or a PEP 263
coding line names its encoding; bytes that do not decode are a one-line reason, never a traceback
and never a grade of code Python would run differently."""

import pytest

from conftest import SOLUTIONS
from grader.sandbox.judge import SubmissionRefused, load_request

CORRECT = (SOLUTIONS / "exercise3_scaling.py").read_bytes()


@pytest.mark.parametrize("data", [b"\xef\xbb\xbf" + CORRECT, b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + CORRECT],
                         ids=["utf-8 BOM", "latin-1 coding line"])
def test_an_encoding_python_reads_is_graded(grade, tmp_path, data):
    (tmp_path / "file.py").write_bytes(data)
    result = grade(3, path=tmp_path / "file.py")
    assert result.score == result.max_score > 0, result.error


def test_bytes_that_do_not_decode_are_a_one_line_reason(grade, tmp_path):
    (tmp_path / "file.py").write_bytes(b"# \xff\xfe bad\n" + CORRECT)
    result = grade(3, path=tmp_path / "file.py")
    assert result.score == 0
    assert result.error.startswith("cannot grade exercise3_scaling.py: it is not utf-8 text (byte 0xff on line 1)")
    assert "\n" not in result.error and "Traceback" not in result.error


@pytest.mark.parametrize("codec", ["hex", "rot13", "zlib_codec", "undefined"])
def test_a_coding_line_python_refuses_is_a_one_line_reason(tmp_path, codec):
    """A coding line naming a codec that makes no text, as Python refuses it ("encoding problem"): the
    student's file is refused with a reason, never the grader's error (round 23's a8)."""
    path = tmp_path / "exercise3_scaling.py"
    path.write_bytes(f"# -*- coding: {codec} -*-\n".encode() + CORRECT)
    with pytest.raises(SubmissionRefused, match=f"^cannot grade exercise3_scaling.py: .*{codec}.*save it as UTF-8"):
        load_request(path, "exercise3_scaling")


def test_a_byte_order_mark_before_another_coding_line_says_the_mark_decides(tmp_path):
    """Python reads a file that starts with UTF-8's byte-order mark as UTF-8, whatever its coding line
    says: the reason names the mark, not a coding line the file already has (round 30's a15)."""
    path = tmp_path / "exercise3_scaling.py"
    path.write_bytes(b"\xef\xbb\xbf# -*- coding: latin-1 -*-\n# caf\xe9\n" + CORRECT)
    with pytest.raises(SubmissionRefused) as refused:
        load_request(path, "exercise3_scaling")
    assert str(refused.value) == ("cannot grade exercise3_scaling.py: it is not utf-8 text (byte 0xe9 on line 2), "
                                  "and it starts with UTF-8's byte-order mark: save it as UTF-8")
