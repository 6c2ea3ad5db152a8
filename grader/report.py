"""Renderers of a GradeReport: text for a person, JSON for machines. One function per format."""

import json
from collections import Counter

import click

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("✗", "red"),
         "timeout": ("⏱", "red"), "skipped": ("-", "yellow")}
OUTPUT_LINES = 8  # lines of the student's own printing shown under a failed exercise


def _points(value):
    return f"{value:g}"


def render_text(report, color=False):
    """The report a student reads: a line per test, a reason per failure, a total."""
    style = click.style if color else (lambda text, **_: text)
    lines = [f"Lumen attention kit — graded on {report.device}, seed {report.seed}", ""]
    for exercise in report.exercises:
        mark = style("✓", fg="green") if exercise.passed else style("✗", fg="red")
        lines.append(style(f"{mark} {exercise.id}  {exercise.title}", bold=True)
                     + f"   {_points(exercise.score)}/{_points(exercise.max_score)}   {exercise.file}")
        skipped = Counter()
        for test in exercise.tests:
            if test.status == "skipped":
                skipped[test.message] += 1
                continue
            symbol, colour = MARKS[test.status]
            lines.append(f"    {style(symbol, fg=colour)} {_points(test.score)}/{_points(test.max_score)}"
                         f"  {test.name}")
            if test.message:
                lines.append(f"          {test.message}")
        for reason, count in skipped.items():
            lines.append(style(f"    - {count} skipped: {reason}", fg="yellow"))
        if exercise.tier:
            lines.append(f"    tier: {exercise.tier.get('name')} ({exercise.tier.get('ratio', 0):.2f}× the reference)")
        for diagnosis in exercise.diagnoses:
            lines.append(style(f"    ➜ {diagnosis['message']}", fg="cyan", bold=True))
        if exercise.output and not exercise.passed:
            printed = exercise.output.splitlines()
            lines.append("    your code printed:")
            lines.extend(f"    | {line}" for line in printed[:OUTPUT_LINES])
            if len(printed) > OUTPUT_LINES:
                lines.append(f"    | … {len(printed) - OUTPUT_LINES} more lines")
        lines.append("")
    passed = sum(exercise.passed for exercise in report.exercises)
    lines.append(style(f"Total: {_points(report.score)}/{_points(report.max_score)} — "
                       f"{passed} of {len(report.exercises)} exercise(s) passed", bold=True))
    return "\n".join(lines) + "\n"


def render_json(report):
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


RENDERERS = {"text": render_text, "json": render_json}
