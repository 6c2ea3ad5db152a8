"""The saved JSON report's schema and its one loader: every reader of a saved report goes through `load`
or `check`.

`report.schema.json` (shipped in the package) is the schema; `SCHEMA_VERSION` is the version this
kit writes and reads. A report without `schema_version` was made before the schema existed, one
with another version by another kit: both are refused with a message that says so (`OldReport`,
`ForeignReport`), never a KeyError later. `check` then holds the report to the schema (the subset of
JSON Schema the file uses: type, const, enum, required, properties, items, minimum) and to what a
schema cannot say: known exercises once each, scores that add up, within their maxima.
"""

import json
import math
from pathlib import Path

from grader import catalog

SCHEMA_VERSION = 1
SCHEMA_FILE = Path(__file__).with_name("report.schema.json")
SCHEMA = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


class ReportError(ValueError):
    """A saved report this kit cannot read: not a report, or not one of its schema."""


class OldReport(ReportError):
    """A report made by a version of the kit before its report had a schema version."""


class ForeignReport(ReportError):
    """A report of another schema version than this kit's."""


def load(data, where="the report"):
    """The checked report of a JSON text (str or bytes); ReportError otherwise."""
    try:
        report = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReportError(f"{where} is not JSON ({error})") from None
    return check(report, where)


def check(report, where="the report"):
    """`report` (a parsed JSON value) if it is a report of this kit's schema; ReportError otherwise."""
    if not isinstance(report, dict) or not isinstance(report.get("exercises"), list):
        raise ReportError(f"{where} is not a Lumen grading report")
    version = report.get("schema_version")
    if version is None:
        raise OldReport(f"{where} was made by an older version of the Lumen kit (its report has no schema_version): "
                        f"grade again with this version, which writes schema_version {SCHEMA_VERSION}")
    if version != SCHEMA_VERSION:
        raise ForeignReport(f"{where} has schema_version {version!r}; this version of the kit reads "
                            f"{SCHEMA_VERSION}: read it with the kit that wrote it, or grade again")
    _validate(report, SCHEMA, where)
    _add_up(report, where)
    return report


_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def _is(value, kind):
    if kind in ("number", "integer"):
        return (isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
                and (kind == "number" or float(value).is_integer()))
    return isinstance(value, _TYPES[kind])


def _validate(value, schema, where):
    _compiled(schema)(value, None, where)


def _where(parent, step):
    """The place a check names: the report's `where`, then ': key' or '[i]' per level."""
    if parent is None:
        return step
    return _where(*parent) + (f"[{step}]" if isinstance(step, int) else f": {step}")


_CHECKS = {}  # id(schema node) -> (its check, the node): built once, for the millions of a class's nodes


def _compiled(schema):
    """The check of one schema node, (value, parent, step) -> None or ReportError; the place it
    names (`_where`) is spelt out only for an error."""
    if id(schema) in _CHECKS:
        return _CHECKS[id(schema)][0]
    kinds = schema.get("type")
    kinds = None if kinds is None else [kinds] if isinstance(kinds, str) else kinds
    plain = tuple(_TYPES[kind] for kind in kinds or () if kind in _TYPES)
    numeric = [kind for kind in kinds or () if kind not in _TYPES]
    limits = [key for key in ("const", "enum", "minimum") if key in schema]
    required = schema.get("required", ())
    properties = [(name, _compiled(sub)) for name, sub in schema.get("properties", {}).items()]
    items = _compiled(schema["items"]) if "items" in schema else None

    def check(value, parent, step):
        if kinds is not None and not isinstance(value, plain) and not any(_is(value, kind) for kind in numeric):
            raise ReportError(f"{_where(parent, step)}: not of type {schema['type']}")
        if limits:
            if "const" in schema and value != schema["const"]:
                raise ReportError(f"{_where(parent, step)}: must be {schema['const']!r}")
            if "enum" in schema and value not in schema["enum"]:
                raise ReportError(f"{_where(parent, step)}: {str(value)[:40]!r} is not one of {schema['enum']}")
            if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:  # numbers only
                raise ReportError(f"{_where(parent, step)}: below {schema['minimum']}")
        if isinstance(value, dict):
            missing = [name for name in required if name not in value]
            if missing:
                raise ReportError(f"{_where(parent, step)}: no {', '.join(missing)}")
            here = (parent, step)
            for name, sub in properties:
                if name in value:
                    sub(value[name], here, name)
        elif items is not None and isinstance(value, list):
            here = (parent, step)
            for i, item in enumerate(value):
                items(item, here, i)

    _CHECKS[id(schema)] = (check, schema)  # the node kept alive, so that its id is never reused
    return check


def _close_to(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def _add_up(report, where):
    """What the schema cannot say: known exercises once each, scores within their maxima that add up."""
    known, seen, total, total_max = {exercise.id for exercise in catalog.EXERCISES}, set(), 0.0, 0.0
    for exercise in report["exercises"]:
        if exercise["id"] not in known - seen:
            raise ReportError(f"{where}: an unknown or repeated exercise ({exercise['id'][:40]!r})")
        seen.add(exercise["id"])
        tests = exercise["tests"]
        if any(test["score"] > test["max_score"] + 1e-9 for test in tests):
            raise ReportError(f"{where}: {exercise['id']}: a test scores more than its maximum")
        score, top = exercise["score"], exercise["max_score"]
        if not (_close_to(score, sum(t["score"] for t in tests)) and _close_to(top, sum(t["max_score"] for t in tests))
                and score <= top + 1e-9):
            raise ReportError(f"{where}: {exercise['id']}: the scores do not add up")
        total, total_max = total + score, total_max + top
    if not (_close_to(report["score"], total) and _close_to(report["max_score"], total_max)):
        raise ReportError(f"{where}: the total does not add up")
