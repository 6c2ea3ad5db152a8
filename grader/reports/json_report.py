"""The saved JSON report (`--format json`, batch's records): a GradeReport with its schema's version."""

import json

from grader.reports import schema


def render(report):
    """The saved report: the verdict with the version of its schema (grader/reports/report.schema.json)."""
    return json.dumps({"schema_version": schema.SCHEMA_VERSION, **report.to_dict()}, indent=2, ensure_ascii=False) + "\n"
