"""Gradescope's results.json of a GradeReport: a test per check, the diagnoses, the tiers as a
leaderboard."""

import json
from collections import Counter

from grader.grading.settings import Policy
from grader.reports import explains, hint_lines, in_visible_checks

# Gradescope's visibility settings, and how the summary tells a student when hidden checks appear.
VISIBILITIES = {"hidden": "hidden from students", "after_due_date": "shown after the due date",
                "after_published": "shown when grades are published", "visible": ""}
HIDDEN_VISIBILITY = "after_published"  # of the hidden checks, unless the instructor chooses another
PRINTED_VISIBILITY = "visible"  # of what the student's code printed (Gradescope's stdout_visibility)


def render(report, hidden_visibility=HIDDEN_VISIBILITY, policy=Policy()):
    """Gradescope's results.json (gradescope-autograders.readthedocs.io/en/latest/specs/).

    A test per check, its teaching message as the output (and the misconception it showed, at the
    level its hint ladder chose), numbered exercise.check (3.1, 3.2, ...) and tagged with the
    exercise; the misconception's id, its level and the whole diagnosis with every level are in
    the test's `extra_data`, for staff and machines; hidden checks get `hidden_visibility` (one
    shown at once, `visible`, waits for the due date where the course's `policy` withholds hidden
    checks). Skipped checks (a GPU case on a CPU machine) are left out, as Gradescope has no
    'skipped' and they count towards no score, and are counted in the top-level output instead.
    The performance tiers become a `leaderboard`, present only when some exercise has a tier and
    the policy shows tiers."""
    if not policy.show_hidden_tests and hidden_visibility == "visible":
        hidden_visibility = "after_due_date"
    tests = [
        {
            "name": f"{exercise.id}: {test.name}",
            "number": f"{exercise.id.removeprefix('exercise')}.{number}",  # Gradescope orders tests by it
            "score": test.score,
            "max_score": test.max_score,
            "status": "passed" if test.status == "passed" else "failed",
            "output": "\n".join([test.message, *_explained(exercise, test)]).strip("\n"),
            "tags": [exercise.id],
            "visibility": hidden_visibility if test.visibility == "hidden" else "visible",
            **({"extra_data": _diagnosis_data(exercise, test)} if test.details.get("diagnosis") else {}),
        }
        for exercise in report.exercises
        for number, test in enumerate((test for test in exercise.tests if test.status != "skipped"), start=1)
    ]
    results = {
        "score": report.score,
        "execution_time": round(report.wall_time, 2),
        "output": _summary(report, hidden_visibility, policy.show_tier),
        "output_format": "text",
        "test_output_format": "text",  # each test's output holds the student's own text: never read as markup
        "extra_data": {"max_score": report.max_score, "device": report.device, "seed": report.seed,
                       "containment": report.containment_level},
        "tests": tests,
    }
    leaderboard = [entry for exercise in report.exercises for entry in _leaderboard(exercise)] if policy.show_tier else []
    if leaderboard:
        results["leaderboard"] = leaderboard
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def _shown_by(exercise, test):
    """The exercise's diagnosis that explains `test`, or None."""
    return next((diagnosis for diagnosis in exercise.diagnoses if explains(diagnosis, test)), None)


def _explained(exercise, test):
    """The misconception a test showed, at its chosen levels ("➜ hint 1 of 4: ..."), else []."""
    diagnosis = _shown_by(exercise, test)
    return [] if diagnosis is None else hint_lines(diagnosis)


def _diagnosis_data(exercise, test):
    """A diagnosed test's extra_data: the id, for machines; the level shown and the whole diagnosis,
    every level of its ladder included, for staff."""
    diagnosis = _shown_by(exercise, test)
    data = {"diagnosis": test.details["diagnosis"]}
    if diagnosis is not None and "level" in diagnosis:
        data.update(level=diagnosis["level"], diagnosed=diagnosis)
    return data


def _summary(report, hidden_visibility, show_tier=True):
    """The top-level output: per exercise, the checks a student may see now, tier and diagnoses."""
    when_hidden = VISIBILITIES[hidden_visibility]
    lines = [f"Lumen attention kit — graded on {report.device}, seed {report.seed}, "
             f"containment: {report.containment_text}"] + ([report.device_note] if report.device_note else [])
    skipped = Counter()
    for exercise in report.exercises:
        ran = [test for test in exercise.tests if test.status != "skipped"]
        shown = [test for test in ran if not when_hidden or test.visibility != "hidden"]
        line = (f"{exercise.id} ({exercise.title}): "
                f"{sum(test.status == 'passed' for test in shown)} of {len(shown)} checks passed")
        if len(shown) < len(ran):
            line += f"; {len(ran) - len(shown)} more {when_hidden}"
        lines.append(line)
        if exercise.error:
            lines.append(f"    not graded: {exercise.error}")
        if exercise.tier and show_tier:
            lines.append(f"    performance: {exercise.tier.get('message') or exercise.tier.get('name')}")
        lines.extend(line for diagnosis in exercise.diagnoses if not when_hidden or in_visible_checks(exercise, diagnosis)
                     for line in hint_lines(diagnosis, "    "))  # those of hidden checks alone: with them
        skipped.update(test.message for test in exercise.tests if test.status == "skipped")
    lines.extend(f"{count} check(s) skipped and not counted: {reason}" for reason, count in skipped.items())
    return "\n".join(lines)


def _leaderboard(exercise):
    """Leaderboard entries for an exercise's measured tier: its name, and the time ratio student /
    reference (lower is better). A tier without a ratio (not timed) makes none."""
    ratio = (exercise.tier or {}).get("ratio")
    if not isinstance(ratio, (int, float)) or isinstance(ratio, bool):
        return []
    return [{"name": f"{exercise.id} tier", "value": str(exercise.tier.get("name"))},
            {"name": f"{exercise.id} time vs reference", "value": round(ratio, 3), "order": "asc"}]
