"""The class gradebook: which students a shard grades, the roster, the CSV rows, and merging shards.

`batch` grades student folders into records (one JSON per student); this module turns records into
the CSV an LMS imports, and spreads a class over machines:

- `--shard K/N` grades the students whose name hashes to K (SHA-256 of the folder name, mod N):
  a student's shard never depends on who else is in the class, so adding a late student moves
  nobody. Each shard writes its own CSV, reports folder and a manifest (`_shard.manifest` in the
  reports folder, a name no student's STUDENT.json can take: K, N, the students it was given,
  the grading settings).
- `merge` reads shard outputs, refuses a student graded twice or shards graded with different
  settings, and reports students (and whole shards) that are missing. It reads what a shard's
  machine wrote as `batch` reads its resume records: regular files only, never through a link or
  blocking on a pipe, bounded, validated; a bad record is a missing student, a bad manifest a refusal.
- `--roster roster.csv` (student id, name, email) gives every rostered student a row: one without a
  submission is `missing`, 0 points of the full maximum; folders not on the roster are reported.
"""

import csv
import hashlib
import io
import json
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader import catalog
from grader.grading.results import clean_text, held_where
from grader.reports import safe_cell, schema
from grader.sandbox import files

# In a shard's reports folder, where every STUDENT.json is a record: the manifest (JSON) is named so
# that no student's record can be it. Shards written before it was kept as _shard.json, which
# `read_manifest` still reads when there is no MANIFEST (and which a student `_shard` overwrote).
MANIFEST = "_shard.manifest"
OLD_MANIFEST = "_shard.json"
MAX_MANIFEST_BYTES = 16 << 20  # a class of 100 000 students, settings and all
MAX_REPORT_BYTES = 32 << 20  # a grader's JSON report: far more than ten exercises' need
MAX_RECORD_BYTES = MAX_REPORT_BYTES + (1 << 20)  # a student's record: the report and what batch adds
RECORD_STATUSES = ("graded", "timeout", "error", "no files")
PENDING = "not graded yet"  # a gradebook row's status while its student waits for a batch stopped or running
EXERCISE_IDS = [exercise.id for exercise in catalog.EXERCISES]
COLUMNS = ["student", "status", *EXERCISE_IDS, "total", "max_score", "percent", "tier", "containment", "message"]
ROSTER_COLUMNS = ["student_id", "name", "email"]  # before COLUMNS when there is a roster
ROSTER_HEADERS = {"student_id": ("student_id", "student id", "id", "sis id", "sis_id", "sid"),
                  "name": ("name", "student name", "full name"),
                  "email": ("email", "e-mail", "email address")}


class ClassbookError(ValueError):
    """Shard outputs or a roster that cannot make one gradebook (the message says why)."""


# -- shards ----------------------------------------------------------------------------------------

def parse_shard(text):
    """'K/N' -> (K, N), with 0 <= K < N (K counts from 0, like a Slurm array or a matrix index)."""
    try:
        index, count = (int(part) for part in str(text).split("/"))
    except ValueError:
        raise ClassbookError(f"{text!r} is not a shard: write K/N, e.g. 0/4 (K from 0 to N-1)") from None
    if count < 1 or not 0 <= index < count:
        raise ClassbookError(f"shard {text}: K must be between 0 and N-1 (N = {count})")
    return index, count


def shard_of(student, count):
    """The shard (0 .. count-1) a student's folder name belongs to: stable across runs, machines and
    Python versions (not Python's salted hash()), and independent of the rest of the class."""
    return int.from_bytes(hashlib.sha256(student.encode("utf-8")).digest()[:8], "big") % count


def select(students, shard):
    """The student folders of `shard` ((K, N) or None for all)."""
    if shard is None:
        return list(students)
    index, count = shard
    return [student for student in students if shard_of(student.name, count) == index]


def write_manifest(reports, shard, students, settings):
    """Record what a shard was given, so that merge can tell a missing student from an absent one."""
    index, count = shard
    data = {"shard": index, "of": count, "students": sorted(student.name for student in students),
            "settings": settings}
    files.write_replacing(Path(reports, MANIFEST), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_manifest(reports):
    """The manifest of a shard's reports folder, checked (ClassbookError if it is not one)."""
    path = manifest_path(reports)
    try:
        manifest = json.loads(files.read_regular(path, MAX_MANIFEST_BYTES, follow=False).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError) as error:
        raise ClassbookError(f"{path}: not a readable shard manifest ({error})") from None
    fields = {"shard": int, "of": int, "students": list, "settings": dict}
    if not isinstance(manifest, dict) or any(type(manifest.get(key)) is not kind for key, kind in fields.items()):
        raise ClassbookError(f"{path}: not a shard manifest (it needs shard, of, students and settings)")
    if not 0 <= manifest["shard"] < manifest["of"]:
        raise ClassbookError(f"{path}: shard {manifest['shard']} of {manifest['of']} does not exist")
    for student in manifest["students"]:
        if not is_student_name(student):
            raise ClassbookError(f"{path}: {str(student)[:80]!r} is not a student's folder name")
    return manifest


MAX_NAME_BYTES = 200  # of a student's name, so that STUDENT.json and its temporary name fit NAME_MAX
_CUT_END = re.compile(r"~[0-9a-f]{16}\Z")  # how a cut name ends: ~ and 16 hex digits of a hash
_SHORTEST_CUT = MAX_NAME_BYTES - 17 - 3  # a cut name's length, less the bytes of a character cut in two


def student_name(folder):
    """The name a student's folder is known by in the gradebook, its records and its shard: the
    folder's name where it is printable UTF-8 (almost always), else with each byte that is not
    (bad UTF-8 from an old zip, a newline or tab, a character `clean_text` would replace), each `%`
    and each backslash written %XX, so that two folders never share a name and every name is a
    file name, a CSV cell and a JSON string; a name past MAX_NAME_BYTES is cut and ends in a hash
    of the whole, and so does a name that looks like one cut so (a folder named as a classmate's
    long name is known in the gradebook, is not a second row under it)."""
    raw = os.fsencode(folder)
    text = raw.decode("utf-8", "surrogateescape")
    name = "".join("".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogateescape"))
                   if char in "%\\\t\n" or clean_text(char) != char else char for char in text)
    size = len(name.encode("utf-8"))
    if size > MAX_NAME_BYTES or (size >= _SHORTEST_CUT and _CUT_END.search(name)):
        cut = name.encode("utf-8")[:MAX_NAME_BYTES - 17].decode("utf-8", "ignore")
        name = f"{cut}~{hashlib.sha256(raw).hexdigest()[:16]}"
    return name


def manifest_path(reports):
    """Where a shard's manifest is: MANIFEST, or OLD_MANIFEST in a shard written before it."""
    path, old = Path(reports, MANIFEST), Path(reports, OLD_MANIFEST)
    return old if os.path.lexists(old) and not os.path.lexists(path) else path


def is_student_name(name):
    """Whether `name` can be a student's folder in a class folder, as `batch` grades them: one path
    part, not hidden (a manifest naming "../x" must not make merge read or write elsewhere)."""
    return (isinstance(name, str) and name not in ("", ".", "..") and not name.startswith(".")
            and not any(char in name for char in "/\\\0"))


# -- roster ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rostered:
    student_id: str
    name: str
    email: str

    def keys(self):
        """What a submission folder may be named after, in ROSTER_KEYS' order: the id, the email (in
        lower case: a folder's is compared so) and the name ("" where the roster has none)."""
        return self.student_id, self.email.lower(), self.name


def read_roster(path):
    """The roster CSV (a header row naming student id, name and email; other columns ignored), each field as
    every report can carry it (`clean_text`)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # an LMS export often starts with a BOM
    except (OSError, UnicodeDecodeError) as error:
        raise ClassbookError(f"cannot read the roster {path}: {error}") from None
    reader = csv.DictReader(io.StringIO(text))
    headers = {(name or "").strip().lower(): name for name in reader.fieldnames or []}
    columns = {}
    for column, accepted in ROSTER_HEADERS.items():
        found = next((headers[name] for name in accepted if name in headers), None)
        if found is None:
            raise ClassbookError(f"the roster {path} has no {column} column: its header row must name "
                                 f"student_id, name and email (it has: {', '.join(reader.fieldnames or [])})")
        columns[column] = found
    roster, seen = [], {}
    for number, row in enumerate(reader, start=2):
        entry = Rostered(*(clean_text(row.get(columns[field]) or "", newlines=False).strip()  # no terminal codes,
                           for field in ROSTER_HEADERS))                                # NUL (round 82's a08)
        if not entry.student_id:
            raise ClassbookError(f"the roster {path}, line {number}: no student id")
        if entry.student_id in seen:
            raise ClassbookError(f"the roster {path} lists student id {entry.student_id} twice "
                                 f"(lines {seen[entry.student_id]} and {number})")
        seen[entry.student_id] = number
        roster.append(entry)
    return roster


ROSTER_KEYS = ("student id", "email", "name")  # what a class's folders may be named by, the strongest first


@dataclass(frozen=True)
class Matching:
    """How a class's folders meet its roster: `matched` {student id: folder}; `unknown`, folders on no row
    (or on several, or named another way than the class); `claimed` {student id: [folders]}, students
    several folders claim, whose rows none of them gets; `by`, the key the class's folders are named by."""

    matched: dict
    unknown: list
    claimed: dict
    by: str
    shared: dict = field(default_factory=dict)  # {student id: (a folder on that row and others, those rows' ids)}

    def left_out(self):
        """The folders no row shows: unknown ones and the claims no row took."""
        return [*self.unknown, *(folder for folders in self.claimed.values() for folder in folders)]


def match_roster(roster, names):
    """How the folders `names` meet the roster's rows (a `Matching`).

    A folder's name is a student's identity, which only the platform that named it vouches for. An
    LMS export names a whole class one way, so the key that names most folders (the student id, the
    email in any case, or the name) is the class's, and a folder named another way is on no row: while
    the class is named by id, a folder named after a classmate's email takes nobody's row. A folder on
    several rows is on none, and a student several folders claim gets none of them: the row says so and
    the instructor decides. Every other student's row is as if those folders were not there."""
    keyed = {kind: {} for kind in ROSTER_KEYS}
    for entry in roster:
        for kind, key in zip(ROSTER_KEYS, entry.keys()):
            if key:
                keyed[kind].setdefault(key, []).append(entry)

    def rows(kind, name):
        if kind != "email":
            return keyed[kind].get(name, [])
        found = keyed[kind].get(name.lower(), [])
        exact = [entry for entry in found if entry.email == name]  # ALICE@… registered beside alice@… (round
        return exact if len(found) > 1 and len(exact) == 1 else found  # 83's a07): each folder its own row

    names = sorted(names)
    by = max(ROSTER_KEYS, key=lambda kind: (sum(len(rows(kind, name)) == 1 for name in names),
                                            -ROSTER_KEYS.index(kind)))
    claims, unknown, shared = {}, [], {}
    for name in names:
        found = rows(by, name)
        if len(found) == 1:
            claims.setdefault(found[0].student_id, []).append(name)
        else:
            unknown.append(name)
            shared.update({entry.student_id: (name, [row.student_id for row in found]) for entry in found})
    return Matching({student: folders[0] for student, folders in claims.items() if len(folders) == 1}, unknown,
                    {student: folders for student, folders in claims.items() if len(folders) > 1}, by,
                    {student: named for student, named in shared.items() if student not in claims})


def shared_record(folder, students):
    """The row of each student whose folder's name is on several roster rows, `students` (two registered the same
    email): an error that says so, no points; the instructor corrects the roster (it said "no submission")."""
    return {"student": folder, "status": "error", "seconds": 0.0, "files": [], "report": None,
            "message": f"the folder {folder!r} is named after {len(students)} roster rows ({', '.join(students)}): "
                       "graded, but on no row until the roster tells them apart"}


def claimed_record(folders):
    """The row of a student several folders claim: an error, the folders named, no points."""
    return {"student": ", ".join(folders), "status": "error", "seconds": 0.0, "files": [], "report": None,
            "message": f"{len(folders)} folders claim this student ({', '.join(map(repr, folders))}): each was "
                       "graded under its own name; give the student's own folder its name and grade it again"}


# -- the gradebook ---------------------------------------------------------------------------------

def _points(value):
    return f"{value:g}"


def full_points(records):
    """{exercise id: its full points}, as the graded reports give them (every report carries each
    exercise's full points); an exercise no report has is left out."""
    full = {}
    for record in records.values():
        for exercise in (record.get("report") or {}).get("exercises", []):
            full[exercise["id"]] = max(full.get(exercise["id"], 0.0), exercise.get("max_score", 0.0))
    return full


def row(record, full=None):
    """The CSV row of a student's record: a score per exercise graded, total, percent, tiers."""
    values = {"student": record["student"], "status": record["status"], "message": record["message"],
              "total": "", "max_score": "", "percent": "", "tier": "", "containment": ""}
    report = record.get("report")
    if report:
        values["containment"] = report.get("containment", "")  # kernel or process: how it was confined
        exercises = report["exercises"]
        values.update({exercise["id"]: _points(exercise["score"]) for exercise in exercises})
        values.update(total=_points(report["score"]), max_score=_points(report["max_score"]))
        if report["max_score"]:
            values["percent"] = f"{100 * report['score'] / report['max_score']:.1f}"
        values["tier"] = "; ".join(f"{exercise['id']}: {exercise['tier']['name']}" for exercise in exercises
                                   if (exercise.get("tier") or {}).get("ratio") is not None)  # measured ones
        held = [exercise["id"] for exercise in exercises
                if any(held_where(test.get("message", "")) for test in exercise.get("tests", ()))]
        if held and not values["message"]:  # not a plain 0 (round 86): a person's review is due
            values["message"] = f"held for review: {', '.join(held)}"
    else:  # every row has the class's maximum, the grader's failure (error) included
        if full:
            values["max_score"] = _points(sum(full.values()))
        if record["status"] not in ("error", PENDING):  # the student's own outcome (no files, out of time, missing)
            values["total"] = "0"
            values["percent"] = "0.0" if full else ""
    return values


def missing_record(student):
    return {"student": student, "status": "missing", "message": "no submission", "seconds": 0.0,
            "files": [], "report": None}


def unmerged_record(student):
    """A rostered student in none of the shards a merge was given, while some were not given: maybe in those."""
    return {**pending_record(student), "message": "in none of the shards given: merge every shard's output"}


def pending_record(student):
    """A student `batch` has a folder of but has not graded yet (it was stopped, or is still running)."""
    return {"student": student, "status": PENDING, "message": "run the same batch command again to grade",
            "seconds": 0.0, "files": [], "report": None}


def gradebook_csv(records, roster=None, pending=(), shards_left_out=False):
    """The CSV text of the gradebook: a row per student, sorted by name, or with a roster, a row per
    rostered student in the roster's order (a missing one: status missing, 0 of the full points; one of
    the folders `pending` not graded yet: status "not graded yet", never missing: round 80; with
    `shards_left_out`, a merge without every shard, each rostered student in none of those given is not
    graded yet either: round 86 saw a student of a shard left out as "missing, no submission").
    Every cell is `safe_cell`."""
    full = full_points(records)
    text = io.StringIO()
    columns = COLUMNS if roster is None else ROSTER_COLUMNS + COLUMNS
    writer = csv.DictWriter(text, fieldnames=columns, restval="", extrasaction="ignore")
    writer.writeheader()

    def write(values):
        writer.writerow({column: safe_cell(value) for column, value in values.items()})

    absent = unmerged_record if shards_left_out else missing_record
    for entry, record in gradebook_records({**{name: pending_record(name) for name in pending}, **records}, roster,
                                           absent):
        values = row(record, full)
        if entry is not None:
            values.update(student_id=entry.student_id, name=entry.name, email=entry.email, student=record["student"])
        write(values)
    return text.getvalue()


def gradebook_records(records, roster=None, absent=missing_record):
    """[(roster entry or None, record)]: the gradebook's rows in its order. Without a roster, every
    record, by name; with one, a row per rostered student (`absent`, by default a `missing_record`, for one
    without a folder, a `claimed_record` for one several folders claim), and no row for a folder on no roster
    row."""
    if roster is None:
        return [(None, records[name]) for name in sorted(records)]
    matching = match_roster(roster, records)
    return [(entry, records[matching.matched[entry.student_id]] if entry.student_id in matching.matched else
             claimed_record(matching.claimed[entry.student_id]) if entry.student_id in matching.claimed else
             shared_record(*matching.shared[entry.student_id]) if entry.student_id in matching.shared else
             absent("")) for entry in roster]


# -- merging shard outputs -------------------------------------------------------------------------


def valid_record(record, name):
    """A student's record as `batch` writes it, for student `name`, its report checked by the report
    schema's loader; ValueError (a `schema.ReportError` for the report) otherwise."""
    if (not isinstance(record, dict) or record.get("student") != name or record.get("status") not in RECORD_STATUSES
            or not isinstance(record.get("message"), str) or not isinstance(record.get("files"), list)):
        raise ValueError("not a record")
    seconds = record.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds < 0:
        raise ValueError("seconds is not a number >= 0")
    if record["status"] == "graded":
        schema.check(record.get("report"), "its report")
    elif record.get("report") is not None:
        raise ValueError("a report without the status graded")
    return record


def read_record(reports, student):
    """(record, None) for a student's valid record in a reports folder, else (None, why not): read as
    `batch` reads its resume records (a regular file, no link, no pipe, bounded) and validated."""
    try:
        data = files.read_regular(Path(reports, f"{student}.json"), MAX_RECORD_BYTES, follow=False)
    except FileNotFoundError:
        return None, " did not finish grading them"
    except OSError as error:
        return None, f": its record cannot be read ({error}); regrade them"
    try:
        return valid_record(json.loads(data.decode("utf-8")), student), None
    except schema.OldReport as error:
        return None, f": {error}"
    except (ValueError, UnicodeDecodeError) as error:
        return None, f": its record is not valid ({str(error)[:200]}); regrade them"


@dataclass
class Merged:
    records: dict  # student -> record
    missing: list  # students a shard was given but did not grade, and shards not given at all
    shards: list  # (K, N) of the outputs read
    left_out: list = field(default_factory=list)  # (K, N) of the shards whose output was not given


def shard_output(path):
    """(csv, reports folder) of a shard output: its CSV, or a folder holding exactly one CSV."""
    path = Path(path)
    if path.is_dir():
        found = sorted(path.glob("*.csv"))
        if len(found) != 1:
            raise ClassbookError(f"{path}: expected one gradebook .csv in this folder, found {len(found)}")
        path = found[0]
    if path.suffix.lower() != ".csv" or not path.is_file():
        raise ClassbookError(f"{path}: not a shard's gradebook (give the .csv a batch --shard wrote, or its folder)")
    reports = path.with_suffix("")
    if not os.path.lexists(manifest_path(reports)):  # what is there is checked when it is read
        raise ClassbookError(f"{path}: no {reports.name}/{MANIFEST} beside it: was it written by "
                             "`lumen-grade batch --shard K/N`?")
    return path, reports


def merge(paths):
    """Combine shard outputs into one set of records. Refuses a student in two outputs, the same shard
    twice, shards of different N or graded with different settings; lists what is missing."""
    records, origin, shards, settings, missing = {}, {}, {}, None, []
    for path in paths:
        gradebook, reports = shard_output(path)
        manifest = read_manifest(reports)
        key = (manifest["shard"], manifest["of"])
        if key in shards:
            raise ClassbookError(f"shard {key[0]}/{key[1]} given twice: {shards[key]} and {gradebook}")
        shards[key] = gradebook
        if settings is None:
            settings = manifest["settings"]
        elif manifest["settings"] != settings:
            raise ClassbookError(f"{gradebook} was graded with other settings ({manifest['settings']}) than "
                                 f"the first shard ({settings}): regrade it with the same options")
        for student in manifest["students"]:
            record, problem = read_record(reports, student)
            if record is None:
                missing.append(f"{student} (shard {key[0]}/{key[1]}{problem})")
                continue
            if student in records:
                raise ClassbookError(f"student {student!r} is in two shard outputs: {origin[student]} and "
                                     f"{gradebook}; a student must be graded once")
            records[student], origin[student] = record, gradebook
    devices = {}
    for student, record in records.items():
        devices.setdefault((record.get("report") or {}).get("device"), []).append(student)
    devices.pop(None, None)
    if len(devices) > 1:  # --device auto on a GPU node and on a CPU one: different checks, other maxima
        found = "; ".join(f"{device}: {', '.join(sorted(names)[:3])}{' …' if len(names) > 3 else ''}"
                          for device, names in sorted(devices.items()))
        raise ClassbookError(f"the shards graded on different devices ({found}): their scores do not "
                             "compare; regrade them on the same kind of machine")
    counts = {count for _, count in shards}
    if len(counts) > 1:
        raise ClassbookError(f"the outputs split the class in different ways (N = {sorted(counts)})")
    (count,) = counts or {0}
    left_out = [(index, count) for index in range(count) if (index, count) not in shards]
    missing += [f"shard {index}/{count} (no output given: its students are missing)" for index, count in left_out]
    return Merged(records, missing, sorted(shards), left_out)
