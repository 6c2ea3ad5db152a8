"""Renderers of a GradeReport: text for a person; JSON, Gradescope and JUnit for machines.
One function per format."""

import json
import re
import xml.etree.ElementTree as ET
from collections import Counter

import click

MARKS = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("✗", "red"),
         "timeout": ("⏱", "red"), "not_run": ("✗", "red"), "skipped": ("-", "yellow")}
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
        if exercise.ignored:
            lines.append(f"    also found, not graded: {', '.join(exercise.ignored)}")
        if exercise.error:
            lines.append(style(f"    ✗ {exercise.error}", fg="red"))
        not_run = [test for test in exercise.tests if test.status == "not_run"]
        if not_run:
            lines.append(f"    ✗ 0/{_points(sum(test.max_score for test in not_run))}  "
                         f"{len(not_run)} test(s) not run")
        skipped, drawn = Counter(), _drawn(exercise)
        for test in exercise.tests:
            if test.status == "not_run":
                continue
            if test.status == "skipped":
                skipped[test.message] += 1
                continue
            symbol, colour = MARKS[test.status]
            lines.append(f"    {style(symbol, fg=colour)} {_points(test.score)}/{_points(test.max_score)}"
                         f"  {test.name}")
            if test.message:
                lines.append(f"          {test.message}")
            if id(test) in drawn:
                lines.extend(f"          {line}" for line in picture_lines(test.details["picture"]))
        for reason, count in skipped.items():
            lines.append(style(f"    - {count} skipped: {reason}", fg="yellow"))
        if exercise.tier:
            lines.append(f"    {style('performance', fg='cyan')}: {exercise.tier['message']}")
            lines.extend(f"          {note}" for note in exercise.tier.get("notes", []))
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


def _drawn(exercise):
    """The failed tests whose pictures the text shows: one per function, the first whose call was
    diagnosed (it shows the mistake), else the first."""
    chosen = {}
    for test in exercise.tests:
        if "picture" in test.details:
            target = test.details.get("call", {}).get("target")
            if target not in chosen or ("diagnosis" in test.details and "diagnosis" not in chosen[target].details):
                chosen[target] = test
    return {id(test) for test in chosen.values()}


SHADES = ((0.005, "·"), (0.25, "░"), (0.5, "▒"), (0.75, "▓"), (float("inf"), "█"))  # weight below: char
NON_FINITE = {"nan": "N", "inf": "∞", "-inf": "∞"}


def picture_lines(picture):
    """A failing mask or weight matrix drawn beside the expected one, a character per entry: rows
    are queries (or sequences), columns keys; a mask is █ (may attend) or ·, a weight is shaded from
    █ (near 1) to · (0); N marks a NaN."""
    def cell(value):
        if isinstance(value, str):
            return NON_FINITE.get(value, "?")
        if picture["kind"] == "mask":
            return "█" if value else "·"
        return next(char for limit, char in SHADES if value < limit)

    grids = [["".join(cell(value) for value in row) for row in picture[side]] for side in ("expected", "got")]
    width = max(len("expected"), len(grids[0][0]) if grids[0] else 0)
    where = f" [{', '.join(map(str, picture['slice']))}]" if picture["slice"] else ""
    legend = "█ may attend, · masked" if picture["kind"] == "mask" else "█▓▒░ weight 1 to 0, · zero"
    lines = [f"{picture['rows']} × {picture['columns']}{where} ({legend}, N NaN):",
             f"{'expected'.ljust(width)}   yours"]
    lines += [f"{want.ljust(width)}   {got}" for want, got in zip(*grids)]
    rows, columns = picture["shape"]
    if rows > len(grids[0]) or columns > len(grids[0][0]):
        lines.append(f"(the first {len(grids[0])} × {len(grids[0][0])} of {rows} × {columns})")
    return lines


def render_json(report):
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


# Gradescope's visibility settings, and how the summary tells a student when hidden checks appear.
GRADESCOPE_VISIBILITIES = {"hidden": "hidden from students", "after_due_date": "shown after the due date",
                           "after_published": "shown when grades are published", "visible": ""}


def render_gradescope(report, hidden_visibility="after_published"):
    """Gradescope's results.json (gradescope-autograders.readthedocs.io/en/latest/specs/).

    A test per check, its teaching message as the output; hidden checks get `hidden_visibility`.
    Skipped checks (a GPU case on a CPU machine) are left out, as Gradescope has no 'skipped' and
    they count towards no score, and are counted in the top-level output instead. The performance
    tiers become a `leaderboard`, present only when some exercise has a tier."""
    tests = [
        {
            "name": f"{exercise.id}: {test.name}",
            "score": test.score,
            "max_score": test.max_score,
            "status": "passed" if test.status == "passed" else "failed",
            "output": test.message,
            "visibility": hidden_visibility if test.visibility == "hidden" else "visible",
        }
        for exercise in report.exercises for test in exercise.tests if test.status != "skipped"
    ]
    results = {
        "score": report.score,
        "execution_time": round(report.wall_time, 2),
        "output": _gradescope_summary(report, hidden_visibility),
        "output_format": "text",
        "extra_data": {"max_score": report.max_score, "device": report.device, "seed": report.seed},
        "tests": tests,
    }
    leaderboard = [entry for exercise in report.exercises for entry in _leaderboard(exercise)]
    if leaderboard:
        results["leaderboard"] = leaderboard
    return json.dumps(results, indent=2, ensure_ascii=False) + "\n"


def _gradescope_summary(report, hidden_visibility):
    """The top-level output: per exercise, the checks a student may see now, tier and diagnoses."""
    when_hidden = GRADESCOPE_VISIBILITIES[hidden_visibility]
    lines = [f"Lumen attention kit — graded on {report.device}, seed {report.seed}"]
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
        if exercise.tier:
            lines.append(f"    performance: {exercise.tier.get('message') or exercise.tier.get('name')}")
        lines.extend(f"    ➜ {diagnosis['message']}" for diagnosis in exercise.diagnoses)
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


JUNIT_ELEMENTS = {"failed": "failure", "error": "error", "timeout": "error", "not_run": "error",
                  "skipped": "skipped"}
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_text(value):
    """Text XML 1.0 can carry: control characters (ANSI colours, NULs a student printed) -> U+FFFD."""
    return _NOT_XML.sub("\ufffd", str(value))


def render_junit(report):
    """JUnit XML as GitHub Actions reporters and GitLab read it: a <testsuite> per exercise, a
    <testcase> per check (classname = exercise, name, time, file). Wrong answers are <failure>s
    carrying the teaching message; crashes, missing code and timeouts are <error>s; skips <skipped>."""
    root = ET.Element("testsuites", name="lumen-grade")
    totals = Counter()
    for exercise in report.exercises:
        counts = Counter(JUNIT_ELEMENTS.get(test.status, "passed") for test in exercise.tests)
        counts.update(tests=len(exercise.tests), time=sum(test.duration for test in exercise.tests))
        totals.update(counts)
        suite = ET.SubElement(root, "testsuite", _junit_counts(counts, name=f"{exercise.id}: {exercise.title}"))
        properties = ET.SubElement(suite, "properties")
        facts = {"score": _points(exercise.score), "max_score": _points(exercise.max_score),
                 "file": exercise.file, "device": report.device, "seed": report.seed}
        if exercise.tier:
            facts["tier"] = exercise.tier.get("name")
        for name, value in facts.items():
            ET.SubElement(properties, "property", name=name, value=_xml_text(value))
        for test in exercise.tests:
            case = ET.SubElement(suite, "testcase", classname=exercise.id, name=_xml_text(test.name),
                                 time=f"{test.duration:.3f}", file=_xml_text(exercise.file))
            element = JUNIT_ELEMENTS.get(test.status)
            if element == "skipped":
                ET.SubElement(case, element, message=_xml_text(test.message))
            elif element:
                outcome = ET.SubElement(case, element, message=_xml_text(test.message), type=test.status)
                outcome.text = _xml_text(f"{test.message}\n{_points(test.score)}/{_points(test.max_score)} points")
        notes = [f"not graded: {exercise.error}"] if exercise.error else []
        notes += [f"➜ {diagnosis['message']}" for diagnosis in exercise.diagnoses]
        if exercise.output:
            notes += ["your code printed:", exercise.output]
        if notes:
            ET.SubElement(suite, "system-out").text = _xml_text("\n".join(notes))
    for name, value in _junit_counts(totals, name="lumen-grade").items():
        root.set(name, value)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _junit_counts(counts, name):
    """The attributes JUnit readers total: tests, failures, errors, skipped, time."""
    return {"name": _xml_text(name), "tests": str(counts["tests"]), "failures": str(counts["failure"]),
            "errors": str(counts["error"]), "skipped": str(counts["skipped"]), "time": f"{counts['time']:.3f}"}


RENDERERS = {"text": render_text, "json": render_json, "gradescope": render_gradescope, "junit": render_junit}
