"""The course file: the instructor's hint policy, in TOML, read by every grading command (`--course
FILE`, else `lumen-course.toml` in the current folder) and carried by the Gradescope bundle.

    [hints]
    first_level = 1                  # 1 principle, 2 smallest example, 3 the mistake named, 4 the remedy
    highest_level = 3                # the highest level shown before the due date
    highest_level_after_due = 4      # and after it
    due = 2026-12-15T23:59:00+01:00  # a TOML date-time (without an offset: this machine's time zone)

    [report]
    show_tier = true                 # the performance tier, to students
    show_hidden_tests = false        # the hidden checks' names and messages, to students

Every key is optional; the defaults are `grader.grading.settings.Policy`'s. A key this kit does not
know, a value of the wrong kind or levels that contradict each other are a `PolicyError` naming the
key: a typo must never pass silently as the default.
"""

from datetime import date, datetime, time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10 (Ubuntu 22.04's, Gradescope's base image): the same parser
    import tomli as tomllib

from grader.grading.settings import COURSE_FILE, HINT_LEVELS, Policy

MAX_BYTES = 64 << 10  # a course file is a few lines

# table -> key -> (the Policy field, what the value must be)
KEYS = {
    "hints": {"first_level": ("first_level", "level"), "highest_level": ("highest_level", "level"),
              "highest_level_after_due": ("highest_level_after_due", "level"), "due": ("due", "date")},
    "report": {"show_tier": ("show_tier", "bool"), "show_hidden_tests": ("show_hidden_tests", "bool")},
}
KINDS = {"level": f"an integer from 1 to {HINT_LEVELS}", "bool": "true or false",
         "date": "a TOML date-time like 2026-12-15T23:59:00+01:00 (or a date: the end of that day)"}


class PolicyError(ValueError):
    """A course file that cannot be read, is not TOML, or holds a key or value this kit refuses."""


def load(path):
    """The Policy of the course file at `path`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise PolicyError(f"cannot read the course file {path}: {error.strerror or error}") from None
    if len(data) > MAX_BYTES:
        raise PolicyError(f"the course file {path} is over {MAX_BYTES >> 10} KiB: it is not a course file")
    try:
        tables = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PolicyError(f"the course file {path} is not valid TOML: {error}") from None
    given = {}
    for table, keys in tables.items():
        if table not in KEYS:
            raise PolicyError(f"{path}: unknown table [{table}] (the course file has {_names(KEYS)})")
        if not isinstance(keys, dict):
            raise PolicyError(f"{path}: {table} must be a table, [{table}]")
        for key, value in keys.items():
            if key not in KEYS[table]:
                raise PolicyError(f"{path}: unknown key {table}.{key} (the keys of [{table}]: {_names(KEYS[table])})")
            name, kind = KEYS[table][key]
            given[name] = _value(path, f"{table}.{key}", kind, value)
    policy = Policy(**given, source=path)
    for key in ("highest_level", "highest_level_after_due"):
        if policy.first_level > getattr(policy, key):
            raise PolicyError(f"{path}: hints.first_level ({policy.first_level}) is above hints.{key} "
                              f"({getattr(policy, key)}): no level could be shown")
    return policy


def default():
    """The course file of the current folder (COURSE_FILE), if there is one; else the defaults."""
    return load(COURSE_FILE) if COURSE_FILE.is_file() else Policy()


def _value(path, key, kind, value):
    if kind == "level" and type(value) is int and 1 <= value <= HINT_LEVELS:
        return value
    if kind == "bool" and isinstance(value, bool):
        return value
    if kind == "date" and isinstance(value, (date, datetime)):
        if not isinstance(value, datetime):  # a bare date: due at the end of that day
            value = datetime.combine(value, time(23, 59, 59))
        return value if value.tzinfo is not None else value.astimezone()
    raise PolicyError(f"{path}: {key} must be {KINDS[kind]}, not {value!r}")


def _names(table):
    return ", ".join(table)


def as_toml(policy):
    """The course file that reads back as `policy`: the Gradescope bundle carries what it checked, its
    due date with the offset it was read with (the container's time zone may be another)."""
    lines = []
    for table, keys in KEYS.items():
        lines.append(f"[{table}]")
        for key, (name, kind) in keys.items():
            value = getattr(policy, name)
            if value is None:
                continue
            lines.append(f"{key} = " + (value.isoformat() if kind == "date" else str(value).lower() if kind == "bool"
                                        else str(value)))
        lines.append("")
    return "\n".join(lines)

