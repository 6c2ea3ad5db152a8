"""The hint ladder's engine: which level of each diagnosis a student sees.

A diagnosis's levels (`grader.diagnosis.hints.ladder`: 1 principle, 2 smallest example, 3 the
mistake named, 4 the remedy) are climbed with the student's attempts, not their saves: an attempt
is a new version of the exercise's file (by content: a notebook by its code cells) that still
shows the same mistake. Per exercise and mistake the ladder keeps the content hashes of the
versions that showed it and the times the student asked for the next hint (`lumen-grade hint`),
and the level is

    the course's first level + (distinct versions − 1) + hints asked for,

counted in the levels the diagnosis has (today not every one has all four) and capped by the
course's highest level before (or after) the due date (`Policy`).

Where the state lives: locally, `.lumen/ladder.json` in the folder of the graded file, small and safe
to delete (deleting it starts every ladder again); on Gradescope, the previous uploads' results
(`submission_metadata.json`), so the ladder climbs across uploads and a student cannot forge it.
Saving the state never costs a grade: a read-only folder or a damaged file is said once, and the
report is the same but for the level.
"""

import copy
import dataclasses
import hashlib
import json
import os
from datetime import datetime, timezone
from pathlib import Path

from grader.grading import submission
from grader.grading.settings import LADDER_FOLDER
from grader.sandbox import files

STATE_FILE = "ladder.json"
STATE_VERSION = 1
MAX_STATE_BYTES = 1 << 20  # far more than a class's worth of mistakes
KEPT_VERSIONS = 16  # hashes kept per mistake: more than the four levels need
NEXT = "next"  # --hint next
ALL = "all"  # --hints all


def digest(path):
    """The content hash of the version of an exercise file at `path`: a notebook's is of its code
    cells only (running it again, which changes its outputs, is no new version); None when it
    cannot be read (the grading says why)."""
    path = Path(path)
    try:
        if submission.is_notebook(path):
            code = "\0".join(text for _, _, text in submission.notebook_cells(path)).encode("utf-8")
        else:
            code = files.read_submission(path)
    except (OSError, submission.SubmissionError):
        return None
    return hashlib.sha256(code).hexdigest()


def digests(exercises, options):
    """{exercise id: the digest of the file a grading with `options` reads}, taken before grading."""
    found = {}
    for exercise in exercises:
        try:
            path = options.notebook or submission.find_file(exercise, options.submission)
        except (OSError, submission.SubmissionError):
            path = None
        found[exercise.id] = path and digest(path)
    return found


def state_folder(options):
    """The folder whose `.lumen/` holds the ladder of a grading with `options`: the graded file's."""
    return Path(options.notebook).parent if options.notebook is not None else Path(options.submission)


def mistake_key(diagnosis):
    """A diagnosis's key in the state: its id, or its ids joined for an "either … or" one."""
    return "+".join(diagnosis.get("ids") or [diagnosis["id"]])


def _steps(mistake, earlier):
    """Levels climbed: one per distinct version that showed the mistake (here, or in `earlier`
    uploads) after the first, and one per hint asked for."""
    return max(len(set(mistake["versions"]) | earlier) - 1, 0) + mistake["bumps"]


def climb(hints, first, highest, steps):
    """The level shown: the lowest level the diagnosis has at or above `first` (else its highest
    allowed), `steps` levels up among those it has, never above `highest`; None when it has no
    level at or below `highest`."""
    levels = sorted(hint["level"] for hint in hints if hint["level"] <= highest)
    if not levels:
        return None
    start = next((index for index, level in enumerate(levels) if level >= first), len(levels) - 1)
    return levels[min(start + steps, len(levels) - 1)]


def as_allowed(diagnosis):
    """`diagnosis` (the ladder's, with "hints" and "allowed") as a student may read it: the text of each
    level above the course's highest now withheld (its level and kind kept: "hint 1 of 4"), the example
    too if level 2 is, and the message (the remedy, or a finding's cause) replaced by the highest level
    allowed, or by nothing."""
    if all(entry["level"] <= diagnosis["allowed"] for entry in diagnosis["hints"]):
        return diagnosis
    levels = [entry if entry["level"] <= diagnosis["allowed"] else {**entry, "text": ""} for entry in diagnosis["hints"]]
    allowed = [entry for entry in levels if entry["text"]]
    kept = {key: value for key, value in diagnosis.items()
            if key != "example" or any(entry["kind"] == "example" for entry in allowed)}
    return {**kept, "hints": levels, "message": allowed[-1]["text"] if allowed else ""}


class Ladder:
    """The ladder of one student's files: `apply` chooses each diagnosis's level in a verdict.

    `folder`: where `.lumen/` is kept (None: no state file, as on Gradescope); `history`: the
    mistakes earlier uploads showed ({exercise id: {mistake key: [digest, ...]}}), added to the
    state's; `now`: the time the due date is compared with (default: the clock)."""

    def __init__(self, policy, folder=None, history=None, now=None):
        self.policy, self.history, self.now = policy, history or {}, now
        self.path = None if folder is None else Path(folder) / LADDER_FOLDER / STATE_FILE
        self.said = set()  # what went wrong with the state file, said once each
        self.kept = None  # the state file's text as last read: written again only when it changes

    def apply(self, verdict, found, hint=None, hints=None, attempt=True, withhold=True):
        """(the verdict with each diagnosis's level chosen, notes for the student: said once each).

        `found`: {exercise id: digest} of the versions graded (`digests`); `hint`: NEXT climbs
        every mistake shown one level now; `hints`: ALL shows every level the course allows;
        `attempt`: False (a `watch` re-grade, a save) keeps each level where it is, a new version
        counting only for a mistake seen for the first time. `withhold`: a report the student gets
        in any format (a JSON of their own run too) holds no level above the course's highest now
        (`as_allowed`); False only where staff alone read the whole diagnosis (Gradescope's extra_data)."""
        from grader.diagnosis import hints as ladders  # the catalogue imports the reference: only once the sandbox's
        # zygote is forked (by runner.grade), never into the process the student's code is forked from

        notes, state = self._read()
        now = self.now or datetime.now(timezone.utc)
        highest = self.policy.highest(now)
        exercises, at_top = [], []
        for result in verdict.exercises:
            known = state.setdefault(result.id, {}) if result.diagnoses else {}
            diagnoses = []
            for diagnosis in result.diagnoses:
                key = mistake_key(diagnosis)
                mistake = known.setdefault(key, {"versions": [], "bumps": 0})
                levels = ladders.ladder(diagnosis)
                earlier = set(self.history.get(result.id, {}).get(key, ()))
                before = climb(levels, self.policy.first_level, highest, _steps(mistake, earlier))
                version = found.get(result.id)
                if version and version not in mistake["versions"] and (attempt or not mistake["versions"]):
                    mistake["versions"] = [*mistake["versions"], version][-KEPT_VERSIONS:]
                steps = _steps(mistake, earlier)
                level = climb(levels, self.policy.first_level, highest, steps)
                if hint == NEXT and level == before:  # one level up: a new version's own step is that one
                    higher = climb(levels, self.policy.first_level, highest, steps + 1)
                    if higher != level:
                        mistake["bumps"] += 1
                        level = higher
                    else:
                        withheld = any(entry["level"] > highest for entry in levels)
                        at_top.append(f"{result.id} ({key}): " + (
                            f"the course shows hints up to level {highest} now" if withheld
                            else "this is its last level"))
                allowed = [entry["level"] for entry in levels if entry["level"] <= highest]
                shown = allowed if hints == ALL else [level] if level is not None else []
                chosen = {**diagnosis, "level": level, "shown": shown, "allowed": highest,
                          "attempts": len(set(mistake["versions"]) | earlier), "hints": levels}
                diagnoses.append(as_allowed(chosen) if withhold else chosen)
            exercises.append(dataclasses.replace(result, diagnoses=diagnoses))
        notes = (notes + self._write(state))[:1]  # what went wrong with the state: one line at most
        notes += [f"no further hint for {line}" for line in at_top]
        return dataclasses.replace(verdict, exercises=exercises), notes

    # -- the state file --------------------------------------------------------------------

    def _say(self, note):
        """`note` the first time it is said, else nothing."""
        if note in self.said:
            return []
        self.said.add(note)
        return [note]

    def _read(self):
        """(notes, {exercise id: {mistake key: {"versions", "bumps"}}}) from the state file."""
        self.kept = None
        if self.path is None:
            return [], {}
        try:
            self._own_folder()
            data = files.read_regular(self.path, MAX_STATE_BYTES, follow=False)
        except (FileNotFoundError, NotADirectoryError):
            return [], {}
        except OSError as error:
            return self._say(f"hint ladder: cannot read {self.path} ({error.strerror or error}): hints start at "
                             "the first level"), {}
        try:
            state = checked_state(json.loads(data.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError) as error:  # RecursionError: 200 000 brackets
            return self._say(f"hint ladder: {self.path} is not the ladder's state ({error}): every ladder starts "
                             "again"), {}
        self.kept = data
        return [], state

    def _own_folder(self):
        """Refuse (UnsafeFile) a `.lumen` that is a link, before reading: a student's `.lumen` pointing at a
        classmate's would have this grading climb their ladder (round 23's a9); the write opens the folder
        itself (`files.in_own_folder`)."""
        if os.path.islink(self.path.parent):
            raise files.UnsafeFile(f"{self.path.parent} is a link, not the ladder's own folder")

    def _write(self, state):
        """Keep `state`; [] or the note (said once) that it could not be kept."""
        if self.path is None:
            return []
        text = json.dumps({"version": STATE_VERSION, "exercises": state}, indent=1, sort_keys=True) + "\n"
        if self.kept == text.encode("utf-8") or (self.kept is None and not any(state.values())):
            return []  # unchanged, or nothing to keep where nothing was kept
        try:
            self.path.parent.mkdir(exist_ok=True)
            files.in_own_folder(self.path, text)
        except OSError as error:
            return self._say(f"hint ladder: cannot save it in {self.path.parent} ({error.strerror or error}): "
                             "the hints will not climb between gradings")
        return []


def checked_state(data):
    """The exercises of a state file's JSON, or ValueError saying what is wrong with it."""
    if not isinstance(data, dict) or data.get("version") != STATE_VERSION or not isinstance(data.get("exercises"), dict):
        raise ValueError(f"not a version {STATE_VERSION} ladder")
    for exercise in data["exercises"].values():
        if not isinstance(exercise, dict):
            raise ValueError("an exercise that is not an object")
        for mistake in exercise.values():
            if not (isinstance(mistake, dict) and isinstance(mistake.get("versions"), list)
                    and all(isinstance(version, str) for version in mistake["versions"])
                    and type(mistake.get("bumps")) is int and mistake["bumps"] >= 0):
                raise ValueError("a mistake without its versions and hints asked for")
    return copy.deepcopy(data["exercises"])


# -- Gradescope: the earlier uploads ---------------------------------------------------------------

RECORD_KEY = "ladder"  # in results.json's extra_data: what this upload showed, for the next one


def record(verdict, found):
    """What the next upload's ladder needs of this one: {exercise id: {"digest", "mistakes": [key]}}."""
    return {result.id: {"digest": found.get(result.id), "mistakes": [mistake_key(d) for d in result.diagnoses]}
            for result in verdict.exercises if result.diagnoses}


def history(metadata):
    """{exercise id: {mistake key: [digest]}} of the earlier uploads in Gradescope's
    submission_metadata.json (parsed): each previous submission's `results` is the results.json this
    kit wrote for it, whose extra_data keeps its `record`. Results of another grader (or none) count
    for nothing."""
    earlier = {}
    previous = metadata.get("previous_submissions") if isinstance(metadata, dict) else None
    for upload in previous if isinstance(previous, list) else ():
        results = upload.get("results") if isinstance(upload, dict) else None
        kept = ((results or {}).get("extra_data") or {}).get(RECORD_KEY) if isinstance(results, dict) else None
        for exercise, shown in (kept.items() if isinstance(kept, dict) else ()):
            if not (isinstance(shown, dict) and isinstance(shown.get("digest"), str)
                    and isinstance(shown.get("mistakes"), list)):
                continue
            for key in shown["mistakes"]:
                if isinstance(key, str):
                    versions = earlier.setdefault(exercise, {}).setdefault(key, [])
                    if shown["digest"] not in versions:
                        versions.append(shown["digest"])
    return earlier


def moment(text):
    """A timezone-aware datetime of a Gradescope time ("2018-07-31T23:00:00.000000-07:00"), or None."""
    if not isinstance(text, str):
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
