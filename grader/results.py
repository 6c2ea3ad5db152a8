"""The verdict: what each test found, per exercise and in total. Filled by the pytest plugin,
read by the reports; nothing in here comes from the student's process except through the suites."""

from dataclasses import dataclass, field

STATUSES = ("passed", "failed", "error", "timeout", "skipped")


@dataclass
class TestResult:
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
        # the misconception this test showed, and the small matrices of a failing mask or weight
        # matrix (rows = queries, columns = keys), for front ends to draw
        data.update({key: self.details[key] for key in ("diagnosis", "picture") if key in self.details})
        return data


@dataclass
class ExerciseResult:
    id: str
    title: str
    file: str  # the file graded (or that was looked for)
    tests: list = field(default_factory=list)
    tier: dict = None
    diagnoses: list = field(default_factory=list)
    output: str = ""  # the start of what the student's code printed
    calls: list = field(default_factory=list, repr=False)  # the passed checks' calls, for the diagnosis

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
            "exercises": [exercise.to_dict() for exercise in self.exercises],
        }
