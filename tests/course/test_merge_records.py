"""`lumen-grade merge` reads files a shard's machine wrote, where a student's code may have run: its
manifest and the students' records are read like `batch`'s resume records (issue 10, points 2 and
3): regular files only, never through a link, never blocking on a pipe, bounded in size, and
validated; a record that fails is that student's `missing` line (regrade them), never a grade, and
a manifest that fails refuses the merge."""

import json
import os

import pytest
from click.testing import CliRunner

from conftest import unwrapped
from grader.course import classbook
from grader.cli.main import main
from test_batch import read_csv
from test_classbook import record, shard_output


def merge(tmp_path, *outputs):
    return CliRunner().invoke(main, ["merge", *map(str, outputs), "--out", str(tmp_path / "all.csv")])


def forged(student):
    """Full marks with no test behind them: what a student's code would write if it could."""
    return {"student": student, "status": "graded", "message": "", "seconds": 1.0, "files": [],
            "report": {"schema_version": 1, "score": 204, "max_score": 204, "containment": "kernel", "exercises": []}}


@pytest.mark.parametrize("plant", ["pipe", "link", "too large", "forged", "someone else's", "not json"])
def test_a_record_that_is_not_a_valid_regular_file_is_a_missing_student(tmp_path, plant, monkeypatch):
    honest = record("ann", 6.0)
    output = shard_output(tmp_path / "a", (0, 1), ["ann", "ben"], {"ann": honest})
    path = output / "grades" / "ben.json"
    if plant == "pipe":
        os.mkfifo(path)  # a reader that opened it blocking would wait for ever
    elif plant == "link":
        (tmp_path / "elsewhere.json").write_text(json.dumps(record("ben", 8.0)))
        path.symlink_to(tmp_path / "elsewhere.json")
    elif plant == "too large":
        monkeypatch.setattr(classbook, "MAX_RECORD_BYTES", 4096)
        path.write_text(json.dumps({**record("ben", 8.0), "message": "x" * 5000}))
    elif plant == "forged":
        path.write_text(json.dumps(forged("ben")))
    elif plant == "someone else's":
        path.write_text(json.dumps(record("ann", 8.0)))
    else:
        path.write_text("{")
    result = merge(tmp_path, output)
    assert result.exit_code == 1, result.output
    assert "missing: ben (shard 0/1: its record" in result.stderr and "regrade" in result.stderr
    assert list(read_csv(tmp_path / "all.csv")) == ["ann"]
    assert json.loads((tmp_path / "all" / "ann.json").read_text()) == honest


@pytest.mark.parametrize("name", ["../outside", "/tmp/anywhere", ".hidden", "a/b", ""])
def test_a_manifest_naming_a_path_instead_of_a_student_is_refused(tmp_path, name):
    output = shard_output(tmp_path / "a", (0, 1), [], {})
    manifest = output / "grades" / classbook.MANIFEST
    manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "students": [name]}))
    (tmp_path / "outside.json").write_text(json.dumps(record("../outside", 8.0)))
    result = merge(tmp_path, output)
    assert result.exit_code == 2 and "not a student's folder name" in unwrapped(result.output), result.output
    assert not (tmp_path / "all.csv").exists() and not (tmp_path / "all").exists()


@pytest.mark.parametrize("plant, says", [("pipe", "not a readable shard manifest"),
                                         ("link", "not a readable shard manifest"),
                                         ("not json", "not a readable shard manifest"),
                                         ("wrong fields", "not a shard manifest")])
def test_a_manifest_that_is_not_a_valid_regular_file_is_refused(tmp_path, plant, says):
    output = shard_output(tmp_path / "a", (0, 1), ["ann"], {"ann": record("ann", 6.0)})
    manifest = output / "grades" / classbook.MANIFEST
    text = manifest.read_text()
    manifest.unlink()
    if plant == "pipe":
        os.mkfifo(manifest)
    elif plant == "link":
        (tmp_path / "manifest.json").write_text(text)
        manifest.symlink_to(tmp_path / "manifest.json")
    elif plant == "not json":
        manifest.write_text("[")
    else:
        manifest.write_text(json.dumps({**json.loads(text), "of": "two"}))
    result = merge(tmp_path, output)
    assert result.exit_code == 2 and says in result.output, result.output
    assert not (tmp_path / "all.csv").exists()
