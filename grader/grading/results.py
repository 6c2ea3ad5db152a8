"""The verdict: what each test found, per exercise and in total. Filled by the pytest plugin,
read by the reports; nothing in here comes from the student's process except through the suites.

Scoring rule: an exercise's `max_score` is the points of all its tests that ran or could have run
on this machine, whatever the submission did. A missing, unreadable or unimportable file does not
shrink it: its tests are `not_run` and score 0 of their full points. Only a test skipped for the
machine (a CUDA case without a GPU) counts towards neither score nor maximum, the same for every
student graded there.

Every text field that can hold what a student produced (messages, exception text, printed output,
file names, the diagnoses and the tier) is passed through `clean_text` as it is set, so every
report format can carry it.
"""

import re
from dataclasses import dataclass, field

from grader.characters import REPLACEMENT, UNSAFE
from grader.nested import map_values

STATUSES = ("passed", "failed", "error", "timeout", "not_run", "skipped")
HELD_FOR_REVIEW = "held for your instructor's review"  # how a held test's message starts (held_message)
_HELD = re.compile(re.escape(HELD_FOR_REVIEW) + r": your code reaches into the process that runs it \((.*)\), where code")



def held_message(where):
    """The message of each test passed by a file that reaches into its own process (`where`: the
    places, grader.sandbox.reach), whose points wait for a person: the cause, then what to do."""
    return (f"{HELD_FOR_REVIEW}: your code reaches into the process that runs it ({where}), where code can change "
            "what the grader measures, so the kit does not score this exercise. Attention code needs none of this: "
            "take it out (an experiment in a notebook: under its scratch cell's `if __name__ == \"__main__\":`, "
            "imports too) and submit again")


def held_where(message):
    """The places a held test's message names (`held_message`), or None for any other message."""
    match = _HELD.match(message)
    return match.group(1) if match else None


def clean_text(text, newlines=True):
    """`text` as every report format can carry and show it: each unsafe character (grader.characters)
    becomes U+FFFD, and without `newlines` a newline becomes a space."""
    text = UNSAFE.sub(REPLACEMENT, str(text))
    return text if newlines else text.replace("\n", " ")


def clean_data(value):
    """`value` (text, or dicts, lists and tuples of them, as a diagnosis or a tier holds) with every
    string in it cleaned by `clean_text`, newlines kept; numbers and the rest as they are."""
    return map_values(value, lambda leaf: clean_text(leaf) if isinstance(leaf, str) else leaf)


class _CleanFields:
    """Cleans the string fields named in TEXT_FIELDS whenever they are set, at creation or later."""

    TEXT_FIELDS = ()

    def __setattr__(self, name, value):
        if name in self.TEXT_FIELDS and isinstance(value, str):
            value = clean_text(value)
        super().__setattr__(name, value)


@dataclass
class TestResult(_CleanFields):
    TEXT_FIELDS = ("name", "message")

    name: str
    status: str  # one of STATUSES
    max_score: float
    visibility: str = "visible"  # or "hidden"
    message: str = ""
    details: dict = field(default_factory=dict)  # extra data for front ends (pictures, values)
    duration: float = 0.0  # seconds the test ran (JUnit's `time`)
    earned: float = None  # a partial score (the performance tier's), instead of all or nothing

    @property
    def score(self):
        if self.earned is not None:
            return self.earned
        return self.max_score if self.status == "passed" else 0.0

    @property
    def ran(self):
        return self.status not in ("skipped", "not_run")

    @property
    def counted_max(self):
        """Skipped tests (a GPU check on a CPU machine) count towards neither score nor maximum."""
        return 0.0 if self.status == "skipped" else self.max_score

    def to_dict(self):
        data = {
            "name": self.name,
            "status": self.status,
            "score": self.score,
            "max_score": self.counted_max,
            "visibility": self.visibility,
            "message": self.message,
        }
        # the misconception this test showed, the small matrices of a failing mask or weight matrix
        # (rows = queries, columns = keys), for front ends to draw, and the dtype's tolerance its
        # message gives ({dtype, text}), which a page listing several mismatches may say once
        data.update({key: self.details[key] for key in ("diagnosis", "picture", "tolerance") if key in self.details})
        return data


@dataclass
class ExerciseResult(_CleanFields):
    TEXT_FIELDS = ("file", "error", "output")

    id: str
    title: str
    file: str  # the file graded (or that was looked for)
    tests: list = field(default_factory=list)
    tier: dict = None
    diagnoses: list = field(default_factory=list)
    output: str = ""  # the start of what the student's code printed
    error: str = ""  # why the file could not be graded at all (missing, unreadable, failed to import)
    handed_in: bool = True  # False: no file for the exercise was found (`file` is the name looked for)
    ignored: list = field(default_factory=list)  # other candidate files found and not graded
    calls: list = field(default_factory=list, repr=False)  # the passed checks' calls, for the diagnosis

    def __setattr__(self, name, value):
        # the diagnoses' messages and examples and the tier's message can quote the student's own
        # exception text (a diagnosis's smallest example, "not timed: on the performance case, ...")
        if name in ("ignored", "diagnoses", "tier") and value is not None:
            value = clean_data(value)
        super().__setattr__(name, value)

    @property
    def score(self):
        return sum(test.score for test in self.tests)

    @property
    def max_score(self):
        return sum(test.counted_max for test in self.tests)

    @property
    def passed(self):
        ran = [test for test in self.tests if test.status != "skipped"]
        return bool(ran) and all(test.status == "passed" for test in ran)

    def to_dict(self):
        return {
            "id": self.id,
            "title": self.title,
            "file": self.file,
            "ignored": list(self.ignored),
            "error": self.error or None,
            "handed_in": self.handed_in,
            "passed": self.passed,
            "score": self.score,
            "max_score": self.max_score,
            "tier": self.tier,
            "diagnoses": list(self.diagnoses),
            "tests": [test.to_dict() for test in self.tests],
            "output": self.output,
        }


@dataclass
class GradeReport:
    exercises: list
    device: str  # the devices the suites ran on, e.g. "cpu" or "cpu+cuda"
    seed: int
    wall_time: float = 0.0  # seconds the grading run took (Gradescope's `execution_time`)
    containment: dict = None  # how the student's code was confined: {"level": kernel|process, "layers"}
    device_note: str = None  # why a device present was not graded on (runner.usable_devices), if one was not

    @property
    def containment_level(self):
        return (self.containment or {}).get("level", "process")

    @property
    def containment_text(self):
        """"kernel (mount-namespace, uid 65534, landlock ABI 7, thread cap 64, seccomp allowlist)", for a report's header."""
        layers = (self.containment or {}).get("layers") or []
        return self.containment_level + (f" ({', '.join(layers)})" if layers else "")

    @property
    def score(self):
        return sum(exercise.score for exercise in self.exercises)

    @property
    def max_score(self):
        return sum(exercise.max_score for exercise in self.exercises)

    @property
    def passed(self):
        return all(exercise.passed for exercise in self.exercises)

    def to_dict(self):
        return {
            "score": self.score,
            "max_score": self.max_score,
            "device": self.device,
            "seed": self.seed,
            "containment": self.containment_level,
            "containment_layers": list((self.containment or {}).get("layers") or []),
            "exercises": [exercise.to_dict() for exercise in self.exercises],
            **({"device_note": self.device_note} if self.device_note else {}),
        }
