"""The saved report's schema: the writer's JSON holds to report.schema.json (checked by an independent
JSON Schema validator), and every reader goes through one loader that refuses an old or foreign
report with a message that says so."""

import json

import jsonschema
import pytest
from click.testing import CliRunner

from conftest import SOLUTIONS, SUBMISSIONS
from grader import catalog
from grader.cli.main import main
from grader.course import classbook
from grader.grading import runner
from grader.reports import schema
from grader.reports.json_report import render as render_json
from test_batch import read_csv
from test_classbook import record, shard_output
from grader.grading.settings import Settings


@pytest.fixture(scope="module")
def written(launcher, tmp_path_factory):
    """The JSON the writer writes for a class of one passing and one failing (diagnosed) exercise."""
    folder = tmp_path_factory.mktemp("submission")
    (folder / "exercise1_projection.py").write_text((SOLUTIONS / "exercise1_projection.py").read_text())
    (folder / "exercise3_scaling.py").write_text(next((SUBMISSIONS / "exercise3").glob("wrong_*.py")).read_text())
    verdict = runner.grade([catalog.find("1"), catalog.find("3")], Settings(submission=folder, device="cpu", perf=False),
                           launcher=launcher)
    return json.loads(render_json(verdict))


def test_the_writers_report_holds_to_the_schema_file(written):
    jsonschema.Draft202012Validator.check_schema(schema.SCHEMA)
    jsonschema.Draft202012Validator(schema.SCHEMA).validate(written)
    assert written["schema_version"] == schema.SCHEMA_VERSION
    assert any(exercise["diagnoses"] for exercise in written["exercises"])  # the diagnosis fields are covered
    assert schema.check(written) is written


def test_a_report_from_before_the_schema_is_called_old_not_a_key_error(written):
    old = {key: value for key, value in written.items() if key != "schema_version"}
    with pytest.raises(schema.OldReport, match="made by an older version"):
        schema.load(json.dumps(old))
    with pytest.raises(schema.ForeignReport, match="schema_version 99"):
        schema.check({**written, "schema_version": 99})
    for foreign in ([], "text", {"score": 1}):
        with pytest.raises(schema.ReportError, match="not a Lumen grading report"):
            schema.check(foreign)


@pytest.mark.parametrize("change, says", [
    (lambda r: r["exercises"][0]["tests"][0].update(status="won"), "is not one of"),
    (lambda r: r["exercises"][0].pop("tests"), "no tests"),
    (lambda r: r.update(score=r["score"] + 1), "does not add up"),
    (lambda r: r["exercises"][0].update(id="exercise99"), "unknown or repeated exercise"),
    (lambda r: r.update(containment="none"), "is not one of"),
])
def test_a_report_that_breaks_the_schema_is_refused_with_where(written, change, says):
    report = json.loads(json.dumps(written))
    change(report)
    with pytest.raises(schema.ReportError, match=says):
        schema.check(report)


def test_merge_names_a_record_made_by_an_older_version_as_such(tmp_path):
    old = record("ben", 8.0)
    del old["report"]["schema_version"]
    output = shard_output(tmp_path / "a", (0, 1), ["ann", "ben"], {"ann": record("ann", 6.0), "ben": old})
    result = CliRunner().invoke(main, ["merge", str(output), "--out", str(tmp_path / "all.csv"),
                                       "--feedback", str(tmp_path / "pages")])
    assert result.exit_code == 1, result.output
    assert "missing: ben" in result.stderr and "made by an older version of the Lumen kit" in result.stderr
    assert list(read_csv(tmp_path / "all.csv")) == ["ann"] and (tmp_path / "pages" / "ann.html").is_file()


def test_the_records_reader_checks_the_report_with_the_loader():
    old = record("ben", 8.0)
    del old["report"]["schema_version"]
    with pytest.raises(schema.OldReport):
        classbook.valid_record(old, "ben")
    assert classbook.valid_record(record("ben", 8.0), "ben")["student"] == "ben"
